"""The kiosk's operator key (F12: frame statistics) from a keyboard at the panel: nothing for a
visitor, the overlay with `[admin] maintenance_keys = true`, taken live from the settings file."""
import time

from harness import Kiosk, wait_until

# The statistics overlay's strip: the window's top right (Stage.statsRect).
STATS = (1920 - 430, 8, 1920 - 10, 42)
KEY_F12 = 88


def stats_strip(weston):
    return weston.screenshot().crop(STATS).tobytes()


def test_f12_shows_frame_statistics_only_for_maintenance(weston, tmp_path):
    cfg = tmp_path / "kiosk.toml"
    cfg.write_text("[shell]\nscene_bar = false\nidle_timeout = 0\n")
    k = Kiosk(weston, "--verbose", "--config", str(cfg), "--scene", "tiles", protocol=False)
    try:
        k.wait_for(r"first frame shown")
        before = stats_strip(weston)
        weston.send(f"key {KEY_F12}")
        k.wait_for(r"key pressed: keysym=0xffc9")
        time.sleep(0.5)  # a frame or two: the overlay would be drawn by now
        assert stats_strip(weston) == before, "F12 showed the statistics to a visitor"

        cfg.write_text("[shell]\nscene_bar = false\nidle_timeout = 0\n[admin]\nmaintenance_keys = true\n")
        k.wait_for(r"\[admin\] maintenance_keys is now true: F12 shows the frame statistics at once")
        weston.send(f"key {KEY_F12}")
        k.wait_for(r"key pressed: keysym=0xffc9", count=2)
        wait_until(lambda: stats_strip(weston) != before, timeout=3, what="the statistics overlay")
        weston.send(f"key {KEY_F12}")
        wait_until(lambda: stats_strip(weston) == before, timeout=3, what="the overlay gone again")
    finally:
        k.close()
