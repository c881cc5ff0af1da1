"""End-to-end: the foundation against a real weston 10 (headless, pixman, kiosk-shell)."""
import os
import re
import signal
import time

import pytest

from harness import SLACK, Kiosk, color_near, count_color, rgb, to_logical, wait_until

BACKGROUND = rgb(0x101418)
FINGER0 = rgb(0x4FC3F7)
FINGER1 = rgb(0xFFB74D)
WHITE = (255, 255, 255)
# 9 mm at the 96 dpi fallback (weston's headless output reports no believable panel size).
MARKER_RADIUS = 9 * 96 / 25.4


def marker_pixels(img, x, y, color):
    r = MARKER_RADIUS + 6
    return count_color(img, (x - r, y - r, x + r, y + r), color, tol=30)


def started(kiosk, **kw):
    """A kiosk whose surface the compositor shows (mapped, so input reaches it)."""
    k = kiosk("--scene", "touch", **kw)
    k.wait_for(r"first frame committed")
    k.wait_for(r"first frame shown")
    return k


def test_fullscreen_at_output_size_and_configure_acked(weston, kiosk):
    k = started(kiosk)
    assert k.requests("xdg_toplevel.set_fullscreen") == ["nil"]
    assert k.requests("xdg_toplevel.set_app_id") == ['"kiosk"']
    sizes = [tuple(int(v) for v in re.findall(r"-?\d+", a)[2:4]) for a in k.requests("wl_shm_pool.create_buffer")]
    assert sizes and all(s == (1920, 1080) for s in sizes), sizes
    # Every configure is acked before the next commit.
    pending = None
    for line in k.stderr.splitlines():
        if m := re.search(r"xdg_surface@\d+\.configure\((\d+)\)", line):
            if "->" not in line:
                pending = m.group(1)
        elif m := re.search(r"-> xdg_surface@\d+\.ack_configure\((\d+)\)", line):
            assert m.group(1) == pending
            pending = None
        elif "-> wl_surface@" in line and ".commit()" in line:
            assert pending is None, "committed before acking a configure"
    img = weston.screenshot()
    assert img.size == (1920, 1080)
    for corner in [(5, 5), (1914, 5), (5, 1074), (1914, 1074), (960, 700)]:
        assert img.getpixel(corner) in (BACKGROUND, rgb(0x1F2630)), corner  # background or grid
    # The title is drawn: bright text pixels at the top left.
    assert count_color(img, (30, 30, 160, 80), (232, 238, 244), tol=60) > 50


def test_first_frame_within_budget(weston, kiosk):
    k = kiosk(protocol=False)  # WAYLAND_DEBUG's logging would be measured too
    k.wait_for(r"first frame committed")
    ns = int(re.search(r"monotonic (\d+) ns", k.stderr).group(1))
    elapsed_ms = (ns - k.started_ns) / 1e6
    print(f"exec → first committed frame: {elapsed_ms:.1f} ms")
    # Not a speed test (the 18 ms target is measured by Tests/E2E/tools/first_frame.py): a start
    # that waits on something it should not (a timeout, a second round trip per output) shows
    # up as whole seconds; a loaded CI machine gets the same slack as every wait.
    assert 0 < elapsed_ms < 300 * SLACK


def test_two_fingers_draw_two_markers_and_lift_without_frame(weston, kiosk):
    k = started(kiosk)
    weston.send("down 0 300 400", "down 1 900 600", "frame")
    k.wait_for(r"touch: 0 began 300,400; 1 began 900,600")

    def both_drawn():
        img = weston.screenshot()
        return marker_pixels(img, 300, 400, FINGER0) > 200 and marker_pixels(img, 900, 600, FINGER1) > 200 and img
    img = wait_until(both_drawn, timeout=3, what="two markers")
    # Each marker is only where its finger is.
    assert marker_pixels(img, 900, 600, FINGER0) == 0
    assert marker_pixels(img, 300, 400, FINGER1) == 0

    # weston 10 sends no frame after the last up: the app must not wait for one.
    weston.send("up 0", "up 1")
    k.wait_for(r"\b1 ended")
    wait_until(lambda: marker_pixels(weston.screenshot(), 900, 600, FINGER1) == 0, timeout=3, what="markers gone")


def test_moving_finger_damages_only_around_it(weston, kiosk):
    k = started(kiosk)
    weston.send("down 0 500 500", "frame")
    k.wait_for(r"touch: 0 began")
    time.sleep(0.8)  # let the first frames settle and the trail fade
    before = len(k.requests("wl_surface.damage_buffer"))
    weston.send("motion 0 540 510", "frame")
    k.wait_for(r"touch: 0 moved 540,510")
    wait_until(lambda: len(k.requests("wl_surface.damage_buffer")) > before, timeout=3, what="damage after the move")
    time.sleep(0.1)
    rects = [tuple(int(v) for v in a.split(", ")) for a in k.requests("wl_surface.damage_buffer")[before:]]
    first_commit_rects = rects[: max(1, len(rects))]
    area = sum(w * h for _, _, w, h in first_commit_rects)
    assert 0 < area < 0.05 * 1920 * 1080, rects
    for x, y, w, h in rects:
        assert 300 < x + w / 2 < 750 and 300 < y + h / 2 < 700, f"damage {x},{y} {w}x{h} is far from the finger"


def test_cancel_removes_markers_and_fires_nothing(weston, kiosk):
    k = started(kiosk)
    weston.send("down 0 300 400", "down 1 900 600", "frame")
    wait_until(lambda: marker_pixels(weston.screenshot(), 300, 400, FINGER0) > 200, timeout=3, what="marker")
    weston.send("cancel")
    k.wait_for(r"touch: 0 cancelled 300,400; 1 cancelled 900,600")
    img = wait_until(lambda: (i := weston.screenshot()) and marker_pixels(i, 300, 400, FINGER0) == 0 and i,
                     timeout=3, what="markers gone after cancel")
    assert marker_pixels(img, 900, 600, FINGER1) == 0
    assert "ended" not in k.stderr  # a cancelled touch is never reported as a completed one


def test_pointer_button_acts_as_one_finger(weston, kiosk):
    k = started(kiosk)
    weston.send("pointer 700 300", "button down")
    k.wait_for(r"touch: -1 began 700,300")
    wait_until(lambda: marker_pixels(weston.screenshot(), 700, 300, WHITE) > 150, timeout=3, what="pointer marker")
    weston.send("button up")
    k.wait_for(r"-1 ended")
    # The cursor is hidden: set_cursor with a nil surface.
    assert any(a.split(", ")[1] == "nil" for a in k.requests("wl_pointer.set_cursor"))


@pytest.mark.parametrize("transform", ["rotate-90", "rotate-270"])
def test_output_rotation_relayouts_live(weston, kiosk, transform):
    k = started(kiosk)
    weston.send("down 0 300 400", "up 0")
    k.wait_for(r"\b0 ended")
    weston.send(f"transform {transform}")
    k.wait_for(r"display: 1080×1920 pt")
    # The frames are drawn straight into buffers in the panel's own orientation, marked as
    # turned: the compositor shows them without turning every damaged pixel. Every buffer is
    # the panel's size, and none is shown turned before the mark is set.
    want = {"rotate-90": "1", "rotate-270": "3"}[transform]
    k.wait_for(rf"wl_surface@\d+\.set_buffer_transform\({want}\)")
    k.wait_for(r"wl_surface@\d+\.attach\(wl_buffer@\d+, 0, 0\)", count=2)
    sizes = [tuple(int(v) for v in re.findall(r"-?\d+", a)[2:4]) for a in k.requests("wl_shm_pool.create_buffer")]
    assert sizes and all(s == (1920, 1080) for s in sizes), sizes
    assert k.requests("wl_surface.set_buffer_transform") == [want]
    def relaid_out():
        img = to_logical(weston.screenshot(), transform)
        # Portrait layout: the title at the logical top left and the info line says portrait.
        return img.size == (1080, 1920) and count_color(img, (30, 30, 160, 80), (232, 238, 244), tol=60) > 50 and img
    wait_until(relaid_out, timeout=3, what="portrait layout")
    # Touch coordinates follow the rotation: a finger lands where it is on the rotated screen.
    weston.send("down 0 300 1500", "frame")
    k.wait_for(r"touch: 0 began 300,1500")
    wait_until(lambda: marker_pixels(to_logical(weston.screenshot(), transform), 300, 1500, FINGER0) > 200,
               timeout=3, what="marker in the rotated layout")
    assert k.proc.poll() is None


def test_key_press_reaches_the_app(weston, kiosk):
    k = started(kiosk)
    region = (30, 145, 600, 200)  # the "Last key" line
    before = weston.screenshot().crop(region)
    weston.send("key 30")  # KEY_A
    k.wait_for(r'key pressed: keysym=0x61 text="a"')
    wait_until(lambda: weston.screenshot().crop(region).tobytes() != before.tobytes(), timeout=3,
               what="the last-key line to change")


def test_idle_kiosk_makes_no_wakeups(weston, kiosk):
    k = started(kiosk, protocol=False)
    time.sleep(1.0)

    def switches():
        total = 0
        for task in os.listdir(f"/proc/{k.proc.pid}/task"):
            with open(f"/proc/{k.proc.pid}/task/{task}/status") as f:
                total += sum(int(l.split()[1]) for l in f if "voluntary_ctxt_switches" in l)
        return total
    a = switches()
    time.sleep(3.0)
    assert switches() == a, "the idle kiosk woke up"


def test_sigterm_exits_zero_promptly(weston, kiosk):
    k = started(kiosk)
    k.proc.send_signal(signal.SIGTERM)
    assert k.wait_exit(timeout=1.0) == 0  # stretched by the harness's slack on a loaded machine
    assert "shutting down" in k.stderr


def test_compositor_gone_exits_one_with_clear_message(weston, kiosk):
    k = started(kiosk, protocol=False)
    weston.kill()
    assert k.wait_exit(timeout=3) == 1
    last = k.stderr.strip().splitlines()[-1]
    assert last.startswith("kiosk: error: lost the connection to the compositor"), last


def test_no_wayland_display_exits_one_with_clear_message():
    env = {k: v for k, v in os.environ.items() if k != "WAYLAND_DISPLAY"}
    k = Kiosk(None, env=env, protocol=False)
    try:
        assert k.wait_exit(timeout=5) == 1
        lines = k.stderr.strip().splitlines()
        assert len(lines) == 1 and "WAYLAND_DISPLAY is not set" in lines[0] and "cage" in lines[0], lines
    finally:
        k.close()


def test_snapshot_renders_headless_and_rejects_bad_input(tmp_path):
    from harness import KIOSK
    import subprocess
    from PIL import Image
    out = tmp_path / "touch.png"
    r = subprocess.run([str(KIOSK), "snapshot", "--scene", "touch", "--size", "1080x1920", "--scale", "2",
                        "--out", str(out)], capture_output=True, text=True, timeout=30)
    assert r.returncode == 0, r.stderr
    with Image.open(out) as im:
        assert im.size == (2160, 3840)
        assert im.convert("RGB").getpixel((5, 3000)) == BACKGROUND
    # --scene-bar: the kiosk as a visitor sees it, the scene under the bar (its selected button
    # accent blue, at the top centre).
    bar = tmp_path / "bar.png"
    r = subprocess.run([str(KIOSK), "snapshot", "--scene", "tiles", "--scene-bar", "--size", "1280x720", "--out", str(bar)],
                       capture_output=True, text=True, timeout=30)
    assert r.returncode == 0, r.stderr
    with Image.open(bar) as im:
        assert count_color(im.convert("RGB"), (640, 6, 900, 46), rgb(0x4FC3F7), tol=45) > 1000
    for args, needle in [(["--size", "12x"], "--size '12x'"), (["--scene", "nope"], "unknown scene 'nope'"),
                         (["--scale", "9"], "--scale 9"), (["--scene", "words", "--scene-bar"], "--scene-bar: 'words'")]:
        r = subprocess.run([str(KIOSK), "snapshot", *args, "--out", str(out)], capture_output=True, text=True, timeout=30)
        lines = r.stderr.strip().splitlines()
        assert r.returncode == 1 and len(lines) == 1 and needle in lines[0], (args, r.stderr)


def test_two_fingers_turn_the_spinner_widget(weston, kiosk):
    import math
    k = started(kiosk)
    # The spinner is the accent-blue ring in the right-hand widget column (TouchTestScene.layout
    # places it): found on screen, below the scene bar whose selected button is that blue too.
    shot = weston.screenshot()
    ring = [(x, y) for y in range(80, 1080, 2) for x in range(1200, 1920, 2)
            if color_near(shot.getpixel((x, y)), (0x4f, 0xc3, 0xf7), tol=24)]
    assert len(ring) > 50, "no spinner on screen"
    xs, ys = [x for x, _ in ring], [y for _, y in ring]
    cx, cy = (min(xs) + max(xs)) // 2, (min(ys) + max(ys)) // 2
    box = (cx - 90, cy - 90, cx + 90, cy + 90)
    before = shot.crop(box)
    weston.send(f"down 0 {cx - 45} {cy}", f"down 1 {cx + 45} {cy}", "frame")
    for i in range(1, 9):
        a = i * 0.1
        weston.send(f"motion 0 {cx - 45 * math.cos(a):.1f} {cy - 45 * math.sin(a):.1f}",
                    f"motion 1 {cx + 45 * math.cos(a):.1f} {cy + 45 * math.sin(a):.1f}", "frame")
        time.sleep(0.02)
    weston.send("up 0", "up 1")
    k.wait_for(r"\b1 ended")
    time.sleep(0.8)  # let the finger trails fade so only the spinner differs

    def turned():
        after = weston.screenshot().crop(box)
        diff = sum(1 for a, b in zip(before.getdata(), after.getdata()) if a != b)
        return diff > 500
    wait_until(turned, timeout=3, what="the spinner to turn")


def test_ten_simulated_minutes_leak_neither_memory_nor_files():
    # kiosk bench --scene soak exits 1 when resident memory grows ≥ 1 MiB after the warm-up or
    # open files change; `make soak` runs a simulated hour.
    import subprocess
    from harness import KIOSK
    r = subprocess.run([str(KIOSK), "bench", "--scene", "soak", "--seconds", "600", "--size", "1280x800"],
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "open fds:" in r.stdout
