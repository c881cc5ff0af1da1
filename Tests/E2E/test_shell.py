"""End-to-end: the screensaver takes over when idle, and the waking tap presses nothing."""
import signal
import time

from harness import Kiosk, color_near, count_color, rgb, views, wait_until
from test_tiles import ACCENT, OFF_FILL, tile_box

# The words are 0x8e24aa at alpha 0.75 over black.
PURPLE = (0x8E * 3 // 4, 0x24 * 3 // 4, 0xAA * 3 // 4)


def wait_for_screensaver(weston, timeout, what="the screensaver"):
    """Waits until falling words (purple over black) cover a few hundred pixels."""
    wait_until(lambda: count_color(weston.screenshot(), (0, 0, 1920, 1080), PURPLE, tol=40) > 300,
               timeout=timeout, what=what)


def test_idle_screensaver_wakes_without_pressing_and_restart_keeps_scene_and_state(weston, tmp_path):
    env = weston.env(XDG_STATE_HOME=str(tmp_path))
    k = Kiosk(weston, "--verbose", "--scene", "tiles", "--idle-timeout", "2", env=env, protocol=False)
    try:
        k.wait_for(r"first frame shown")
        box = tile_box(2)
        cx, cy = (box[0] + box[2]) / 2, (box[1] + box[3]) / 2
        # Idle for 2 s: the falling words take over (purple text over black).
        wait_for_screensaver(weston, timeout=6)
        # A tap on a tile wakes the kiosk and must not select the tile.
        weston.send(f"down 0 {cx:.0f} {cy:.0f}", "frame", "up 0")
        time.sleep(0.6)
        img = weston.screenshot()
        assert count_color(img, box, ACCENT, tol=20) == 0, "the waking tap selected a tile"
        assert count_color(img, box, OFF_FILL, tol=6) > 500
        # The next tap selects it.
        weston.send(f"down 1 {cx:.0f} {cy:.0f}", "frame", "up 1")
        wait_until(lambda: count_color(weston.screenshot(), box, ACCENT, tol=20) > 500, timeout=3, what="the tile to turn on")
        time.sleep(0.4)
        k.proc.send_signal(signal.SIGTERM)
        assert k.wait_exit(timeout=2) == 0
    finally:
        k.close()
    # No --scene: the kiosk comes back on the tile board, with the tile still selected.
    k2 = Kiosk(weston, "--verbose", "--idle-timeout", "0", env=env, protocol=False)
    try:
        k2.wait_for(r"first frame shown")
        wait_until(lambda: count_color(weston.screenshot(), box, ACCENT, tol=20) > 500, timeout=3,
                   what="the restored board")
    finally:
        k2.close()


def test_app_rotation_lays_out_portrait_and_maps_taps(weston, tmp_path):
    """--rotate 90 on a landscape output: a portrait board, and a tap on the glass hits the tile under it."""
    env = weston.env(XDG_STATE_HOME=str(tmp_path))
    k = Kiosk(weston, "--verbose", "--scene", "tiles", "--rotate", "90", "--idle-timeout", "0", env=env, protocol=False)
    try:
        k.wait_for(r"first frame shown")
        box = tile_box(2, width=1080, height=1920)  # laid out 1080 × 1920, scene coordinates
        lx, ly = (box[0] + box[2]) / 2, (box[1] + box[3]) / 2
        gx, gy = 1920 - ly, lx  # rotated 90° clockwise onto the glass
        box = (gx - 20, gy - 20, gx + 20, gy + 20)
        assert count_color(weston.screenshot(), box, OFF_FILL, tol=6) > 300
        weston.send(f"down 0 {gx:.0f} {gy:.0f}", "frame", "up 0")
        wait_until(lambda: count_color(weston.screenshot(), box, ACCENT, tol=20) > 300, timeout=3,
                   what="the tile under the finger to turn on")
    finally:
        k.close()


PANEL_CARD = rgb(0x1C2330)


# evdev key codes of the PIN 2580 and Return.
PIN_KEYS = ["key 3", "key 6", "key 9", "key 11", "key 28"]


def test_three_fingers_held_in_the_corner_open_the_admin_panel(weston, tmp_path):
    env = weston.env(XDG_STATE_HOME=str(tmp_path))
    cfg = tmp_path / "kiosk.toml"
    cfg.write_text('[admin]\npin = "2580"\n')
    k = Kiosk(weston, "--verbose", "--config", str(cfg), "--scene", "tiles", "--idle-timeout", "0", env=env, protocol=False)
    try:
        k.wait_for(r"first frame shown")
        weston.send("down 1 40 40", "down 2 100 60", "down 3 60 110", "frame")
        k.wait_for(r"admin panel opened", timeout=5)
        weston.send("up 1", "up 2", "up 3")
        weston.send(*PIN_KEYS)
        wait_until(lambda: count_color(weston.screenshot(), (700, 300, 1220, 780), PANEL_CARD, tol=4) > 20000,
                   timeout=3, what="the admin panel")
        # Escape (evdev 1) closes it; the tile board is back, with nothing selected by the fingers.
        weston.send("key 1")
        k.wait_for(r"admin panel closed")
        wait_until(lambda: count_color(weston.screenshot(), (0, 0, 1920, 1080), OFF_FILL, tol=6) > 5000,
                   timeout=3, what="the tile board")
        assert count_color(weston.screenshot(), (0, 0, 1920, 1080), ACCENT, tol=20) < 200
    finally:
        k.close()


SKY = rgb(0x4FC3F7)


def lit_pill_x(img):
    """The middle of the lit (sky-blue) scene-bar pill, or None."""
    xs = [x for x in range(0, 1920, 2) for y in range(10, 44, 4) if color_near(img.getpixel((x, y)), SKY, tol=50)]
    return sum(xs) / len(xs) if len(xs) > 20 else None


def test_scene_bar_and_edge_swipe_switch_scenes_and_share_a_frame_with_the_scene(weston, tmp_path):
    """The bar's pills are buttons: pressed while held, a finger on a tile in the same frame is the
    board's, the switch comes on lift; a swipe in from the right edge goes to the next scene."""
    env = weston.env(XDG_STATE_HOME=str(tmp_path))
    cfg = tmp_path / "kiosk.toml"
    cfg.write_text('[shell]\nscenes = ["touch", "lander", "tiles"]\n')  # three pills, as on a bench
    k = Kiosk(weston, "--verbose", "--config", str(cfg), "--scene", "tiles", "--idle-timeout", "0", env=env, protocol=False)
    try:
        k.wait_for(r"first frame shown")
        k.wait_for(r"view: scene bar lander")
        img = weston.screenshot()
        tiles_x = lit_pill_x(img)
        assert tiles_x is not None and tiles_x > 1000, f"the Tiles pill (third) is not lit: {tiles_x}"
        # The middle pill is "Lander"; its face beside the title.
        x, y, w, h = views(k)["scene bar lander"]
        lander_x, lander_y = round(x + w / 2), round(y + h / 2)
        face = (lander_x - 52, lander_y)
        before = img.getpixel(face)
        box = tile_box(2)
        cx, cy = (box[0] + box[2]) / 2, (box[1] + box[3]) / 2
        weston.send(f"down 0 {lander_x} {lander_y}", f"down 1 {cx:.0f} {cy:.0f}", "frame")
        wait_until(lambda: weston.screenshot().getpixel(face) != before, timeout=3, what="the pressed pill to change")
        weston.send("up 1", "frame")
        wait_until(lambda: count_color(weston.screenshot(), box, ACCENT, tol=20) > 500, timeout=3,
                   what="the tile touched with the pill held to turn on")
        assert lit_pill_x(weston.screenshot()) == tiles_x, "switched before the pill was let go"
        weston.send("up 0", "frame")
        wait_until(lambda: abs((lit_pill_x(weston.screenshot()) or 0) - lander_x) < 40, timeout=3, what="the Lander pill lit")
        # From the right edge, 60 mm inwards: the next scene after the lander (tiles).
        weston.send("down 2 1915 600", "frame", *[c for i in range(1, 9) for c in (f"motion 2 {1915 - i * 30} 604", "frame")],
                    "up 2", "frame")
        wait_until(lambda: (lit_pill_x(weston.screenshot()) or 0) > 1000, timeout=3, what="the Tiles pill lit again")
    finally:
        k.close()


def test_waking_gives_the_next_visitor_a_fresh_board_unless_idle_reset_is_off(weston, tmp_path):
    box = tile_box(2)
    cx, cy = (box[0] + box[2]) / 2, (box[1] + box[3]) / 2
    for reset in (True, False):
        cfg = tmp_path / f"kiosk-{reset}.toml"
        cfg.write_text(f"[shell]\nidle_reset = {'true' if reset else 'false'}\n")
        env = weston.env(XDG_STATE_HOME=str(tmp_path / f"state-{reset}"))
        with Kiosk(weston, "--verbose", "--config", str(cfg), "--scene", "tiles", "--idle-timeout", "2",
                   env=env, protocol=False) as k:
            k.wait_for(r"first frame shown")
            weston.send(f"down 0 {cx:.0f} {cy:.0f}", "frame", "up 0", "frame")
            wait_until(lambda: count_color(weston.screenshot(), box, ACCENT, tol=20) > 500, timeout=3,
                       what="the last visitor's tile")
            wait_for_screensaver(weston, timeout=6)
            weston.send("down 1 100 1000", "frame", "up 1", "frame")
            k.wait_for(r"screensaver ended")
            time.sleep(0.6)
            lit = count_color(weston.screenshot(), box, ACCENT, tol=20)
            if reset:
                assert lit == 0, "the next visitor found the last one's tile selected"
                assert count_color(weston.screenshot(), box, OFF_FILL, tol=6) > 500
            else:
                assert lit > 500, "idle_reset = false lost the selection"


def test_the_first_swipe_after_a_pause_is_a_swipe(weston, tmp_path):
    """Visitors arrive after minutes of nothing: a quick stroke on the touch test's grid, the
    first input after seconds without a frame, must read as a swipe (it used to begin at the
    last frame's time and last seconds)."""
    env = weston.env(XDG_STATE_HOME=str(tmp_path))
    k = Kiosk(weston, "--verbose", "--scene", "touch", "--idle-timeout", "0", env=env, protocol=False)
    try:
        k.wait_for(r"first frame shown")
        time.sleep(3)  # nothing animates on the touch test: no frame in between
        column = (1300, 0, 1920, 1080)  # the captions' column, right of the stroke and its marker
        before = count_color(weston.screenshot(), column, SKY, tol=30)
        weston.send("down 0 400 700", "frame")
        for i in range(1, 5):
            time.sleep(0.025)
            weston.send(f"motion 0 {400 + 80 * i} 700", "frame")
        weston.send("up 0", "frame")
        k.wait_for(r"touch: 0 ended 720,700")
        # "Swipe: → right" in the accent colour where "Swipe on the grid" stood in grey.
        wait_until(lambda: count_color(weston.screenshot(), column, SKY, tol=30) > before + 300,
                   timeout=5, what="the swipe recognized")
    finally:
        k.close()
