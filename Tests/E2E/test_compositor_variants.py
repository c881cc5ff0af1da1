"""End-to-end: compositors that differ from the kiosk default (missing globals, no seat, HiDPI)."""
import re
import time

from harness import Kiosk, Weston, wait_until


def run(weston, *args, protocol=True):
    return Kiosk(weston, "--verbose", *args, protocol=protocol)


def test_missing_xdg_wm_base_exits_one_naming_it():
    # weston's fullscreen-shell offers no xdg_wm_base.
    w = Weston(shell="fullscreen-shell.so")
    k = run(w, protocol=False)
    try:
        assert k.wait_exit(timeout=5) == 1
        last = k.stderr.strip().splitlines()[-1]
        assert last == "kiosk: error: the compositor does not offer xdg_wm_base, which Kiosk needs", last
    finally:
        k.close()
        w.close()


def test_no_seat_keeps_running_and_warns_once():
    w = Weston(seat=False)
    k = run(w, protocol=False)
    try:
        k.wait_for(r"offers no wl_seat")
        time.sleep(1.0)
        assert k.proc.poll() is None, k.stderr
        assert k.stderr.count("no wl_seat") == 1
    finally:
        k.close()
        w.close()


def test_integer_hidpi_uses_buffer_scale():
    # weston's --width/--height are logical: the output mode is 2560×1600 pixels.
    w = Weston(width=1280, height=800, scale=2)
    k = run(w)
    try:
        k.wait_for(r"first frame shown")
        k.wait_for(r"display: 1280×800 pt, scale 2")
        assert "2" in k.requests("wl_surface.set_buffer_scale")
        sizes = [tuple(int(v) for v in re.findall(r"-?\d+", a)[2:4]) for a in k.requests("wl_shm_pool.create_buffer")]
        assert sizes and all(s == (2560, 1600) for s in sizes), sizes
        # A finger at logical (100, 100) is drawn at device pixel (200, 200).
        w.send("down 0 100 100", "frame")
        k.wait_for(r"touch: 0 began 100,100")
        from test_foundation import FINGER0, marker_pixels
        # marker_pixels measures in points; the screenshot is in device pixels.
        wait_until(lambda: marker_pixels(w.screenshot().resize((1280, 800)), 100, 100, FINGER0) > 150,
                   timeout=3, what="marker at the scaled position")
    finally:
        k.close()
        w.close()


def test_held_key_repeats_at_the_compositors_rate(weston):
    k = run(weston)
    try:
        k.wait_for(r"first frame shown")
        weston.send("keydown 30")
        k.wait_for(r'key pressed: keysym=0x61', timeout=3)
        time.sleep(0.8)  # weston: 400 ms delay, 40 per second
        weston.send("keyup 30")
        k.wait_for(r"key released: keysym=0x61")
        repeats = k.stderr.count('text="a" (repeat)')
        assert 5 <= repeats <= 25, repeats
        time.sleep(0.3)
        assert k.stderr.count('text="a" (repeat)') == repeats, "repeat went on after the key was released"
    finally:
        k.close()


def test_app_rotation_on_a_rotated_output_folds_into_the_buffer_transform():
    # A landscape panel turned to portrait by the compositor, and the kiosk turned back by
    # --rotate 90: the two turns cancel, so the frames go out drawn straight (no copy) in the
    # panel's orientation, marked as turned; the first buffer is already that size.
    w = Weston(width=1920, height=1080, transform="rotate-90")
    k = run(w, "--rotate", "90", "--scene", "touch")
    try:
        k.wait_for(r"first frame shown")
        k.wait_for(r"display: 1080×1920 pt")
        assert k.requests("wl_surface.set_buffer_transform") == ["1"]
        sizes = [tuple(int(v) for v in re.findall(r"-?\d+", a)[2:4]) for a in k.requests("wl_shm_pool.create_buffer")]
        assert sizes and all(s == (1920, 1080) for s in sizes), sizes
        from harness import count_color
        # On the panel itself the touch scene is upright landscape: its title at the top left.
        wait_until(lambda: count_color(w.screenshot(), (30, 30, 160, 80), (232, 238, 244), tol=60) > 50,
                   timeout=3, what="the upright landscape layout")
    finally:
        k.close()
        w.close()


def _settled_screenshot(w, k):
    k.wait_for(r"first frame shown")
    time.sleep(0.3)
    return w.screenshot()


def test_flipped_buffers_show_the_same_picture():
    # The cage workaround (Quirks.flipsBuffers) stores rows bottom first and marks the buffer
    # FLIPPED_180, or the matching flipped turn when the buffer is pre-rotated: weston, which
    # implements every buffer transform, must show exactly what the plain buffers show.
    import os
    expected = {"normal": ("", "6"), "rotate-90": ("1", "5"), "rotate-180": ("2", "4"), "rotate-270": ("3", "7")}
    for transform, args in [("normal", []), ("rotate-90", ["--rotate", "90"]), ("rotate-180", ["--rotate", "180"]),
                            ("rotate-270", ["--rotate", "270"])]:
        shots = []
        for flip in ("0", "1"):
            w = Weston(width=1280, height=800, transform=transform)
            k = Kiosk(w, "--verbose", "--scene", "tiles", *args, env=w.env(KIOSK_FLIP_BUFFERS=flip))
            try:
                shots.append(_settled_screenshot(w, k))
                sent = k.requests("wl_surface.set_buffer_transform")
                want = expected[transform][int(flip)]
                assert sent == ([want] if want else []), sent
                assert ("buffers go out flipped" in k.stderr) == (flip == "1")
            finally:
                k.close()
                w.close()
        plain, flipped = shots
        assert plain.size == flipped.size
        assert list(plain.getdata()) == list(flipped.getdata()), f"{transform}: flipped buffers show a different picture"
