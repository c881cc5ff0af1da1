"""End-to-end: touch a kiosk can trust on real panels, under weston with its input module.
Touch Display 2's phantom tap (down and up at one timestamp, one point, every 12.864 s;
raspberrypi/linux#7638) sent as its controller sends it, all at once; a touchscreen pulled out
with a finger on it and plugged in again; a clock that is not synchronised."""
import re
import time

from harness import Kiosk, count_color, wait_until
from test_hours import lit_pixels
from test_shell import wait_for_screensaver
from test_tiles import ACCENT, OFF_FILL, tile_box

TD2_BEAT = 12.864


def phantom(weston, x, y):
    weston.send_at_once(f"down 5 {x:.0f} {y:.0f}", "frame", "up 5", "frame")


def metrics(path):
    text = path.read_text() if path.exists() else ""
    return {m.group(1): float(m.group(2)) for m in re.finditer(r"^(\S+) (\S+)$", text, re.M)}


def closed_all_day():
    """Hours open only on another day of the week than today (local time)."""
    return time.strftime("%a", time.localtime(time.time() + 86_400 * 3)) + " 09:00-17:00"


def test_touch_display_2s_phantom_taps_for_80_s_select_nothing_and_the_screensaver_comes(weston, tmp_path):
    prom = tmp_path / "kiosk.prom"
    cfg = tmp_path / "kiosk.toml"
    cfg.write_text(f'[shell]\nidle_timeout = 30\n\n[metrics]\ntextfile = "{prom}"\n')
    env = weston.env(XDG_STATE_HOME=str(tmp_path))
    with Kiosk(weston, "--verbose", "--config", str(cfg), "--scene", "tiles", env=env, protocol=False) as k:
        k.wait_for(r"first frame shown")
        box = tile_box(0)
        x, y = (box[0] + box[2]) / 2, (box[1] + box[3]) / 2
        start = time.monotonic()
        beats = 0
        while time.monotonic() - start < 80:
            phantom(weston, x, y)
            beats += 1
            if beats == 1:
                time.sleep(1.0)
                img = weston.screenshot()
                img.save(tmp_path / "after-the-first-phantom.png")
                assert count_color(img, box, OFF_FILL, tol=6) > 500, "the first phantom selected the tile"
            time.sleep(max(0.0, start + beats * TD2_BEAT - time.monotonic()))
        k.wait_for(r"screensaver started")
        assert k.stderr.count("screensaver started") == 1 and "screensaver ended" not in k.stderr
        k.wait_for(r"touch: phantom taps at \d+,\d+ about every 12\.\d s \(no duration\): ignored")
        wait_for_screensaver(weston, timeout=3)
        weston.screenshot().save(tmp_path / "screensaver-through-the-phantoms.png")
        wait_until(lambda: metrics(prom).get('kiosk_touch_phantoms_total{rule="no-duration"}', 0)
                   + metrics(prom).get('kiosk_touch_phantoms_total{rule="beat"}', 0) >= beats - 1,
                   timeout=20, what="the phantoms counted in the metrics")
        m = metrics(prom)
        assert m["kiosk_touches_total"] == 0 and m["kiosk_last_input_time_seconds"] == 0, m
        assert m["kiosk_touchscreen_present"] == 1
        # A person's tap wakes the board (pressing nothing); the next selects the tile.
        weston.send(f"down 0 {x:.0f} {y:.0f}", "frame", "up 0", "frame")
        k.wait_for(r"screensaver ended")
        time.sleep(0.8)
        assert count_color(weston.screenshot(), box, OFF_FILL, tol=6) > 500, "the waking tap pressed the tile"
        weston.send(f"down 0 {x:.0f} {y:.0f}", "frame", "up 0", "frame")
        wait_until(lambda: count_color(weston.screenshot(), box, ACCENT, tol=20) > 500, timeout=3,
                   what="the tile selected by a person's tap")
        weston.screenshot().save(tmp_path / "a-persons-tap.png")


def test_at_night_phantom_taps_leave_the_panel_black(weston, tmp_path):
    cfg = tmp_path / "kiosk.toml"
    cfg.write_text(f'[shell]\nhours = "{closed_all_day()}"\n')
    env = weston.env(XDG_STATE_HOME=str(tmp_path))
    with Kiosk(weston, "--verbose", "--config", str(cfg), "--scene", "tiles", env=env, protocol=False) as k:
        k.wait_for(r"opening hours: closed")
        wait_until(lambda: lit_pixels(weston.screenshot()) == 0, timeout=3, what="a black screen")
        for _ in range(3):
            phantom(weston, 960, 300)
            time.sleep(2.0)
            assert lit_pixels(weston.screenshot()) == 0, "a phantom tap woke the black panel"
        assert "closed (screensaver for a visitor)" not in k.stderr
        weston.send("down 0 960 300", "frame", "up 0", "frame")
        wait_for_screensaver(weston, timeout=5, what="a person's touch showing the screensaver")


def test_a_touchscreen_pulled_out_with_a_finger_on_it_and_plugged_in_again(weston, kiosk):
    from test_foundation import FINGER0, FINGER1, marker_pixels
    k = kiosk("--scene", "touch")
    k.wait_for(r"first frame shown")
    weston.send("down 0 500 500", "frame")
    wait_until(lambda: marker_pixels(weston.screenshot(), 500, 500, FINGER0) > 200, timeout=3, what="the finger's marker")
    weston.send("unplug")
    k.wait_for(r"touch: the touchscreen is gone")
    wait_until(lambda: marker_pixels(weston.screenshot(), 500, 500, FINGER0) == 0, timeout=3,
               what="the marker gone with the touchscreen")
    weston.send("plug")
    k.wait_for(r"touch: a touchscreen is back")
    k.wait_for(r"-> wl_seat@\d+\.get_touch", count=2)
    # A person touches after plugging: once weston has the new wl_touch (a down sent before its
    # get_touch arrives reaches no client), the next touch works at once, nothing held before.
    time.sleep(0.3)
    weston.send("down 1 900 600", "frame")
    wait_until(lambda: marker_pixels(weston.screenshot(), 900, 600, FINGER1) > 200, timeout=3, what="a new finger's marker")
    img = weston.screenshot()
    assert marker_pixels(img, 500, 500, FINGER0) == 0
    img.save(weston.dir / "after-the-replug.png")
    weston.send("up 1", "frame")


def test_phantoms_show_in_the_touch_test_in_their_own_colour(weston, kiosk):
    k = kiosk("--scene", "touch")
    k.wait_for(r"first frame shown")
    phantom(weston, 700, 700)
    k.wait_for(r"touch: ignored \(no-duration\) at 700,700")
    red = (0xFF, 0x17, 0x44)
    wait_until(lambda: count_color(weston.screenshot(), (660, 660, 740, 740), red, tol=30) > 50, timeout=3,
               what="the ignored contact marked in red")
    weston.screenshot().save(weston.dir / "touch-test-ignored.png")


def test_a_clock_not_synchronised_keeps_the_panel_open(weston, tmp_path):
    prom = tmp_path / "kiosk.prom"
    cfg = tmp_path / "kiosk.toml"
    cfg.write_text(f'[shell]\nhours = "{closed_all_day()}"\n\n[metrics]\ntextfile = "{prom}"\n')
    env = weston.env(XDG_STATE_HOME=str(tmp_path), KIOSK_CLOCK_SYNCHRONIZED="0")
    with Kiosk(weston, "--verbose", "--config", str(cfg), "--scene", "tiles", env=env, protocol=False) as k:
        k.wait_for(r"first frame shown")
        k.wait_for(r"clock: the system clock is not synchronised \(no NTP, and no real-time clock set it at boot\)")
        k.wait_for(r"warning: opening hours: not applied while the system clock is not synchronised: the kiosk stays open")
        wait_until(lambda: "kiosk_clock_synchronized" in metrics(prom), timeout=5, what="the metrics")
        m = metrics(prom)
        assert m["kiosk_clock_synchronized"] == 0 and m["kiosk_open"] == 1
        assert "opening hours: closed" not in k.stderr
        assert lit_pixels(weston.screenshot()) > 10_000
