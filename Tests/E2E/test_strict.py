"""End-to-end under Kiosk's strict test compositor: every scene and the hard cases real compositors
rarely produce on demand, with zero violations (see Tests/E2E/strict-compositor for the checks)."""
import json
import os
import random
import re
import subprocess
import time

import pytest
from PIL import Image, ImageChops

from harness import BAD_CLIENT, KIOSK, Kiosk, Strict, count_color, rgb, wait_until

F1, F2, F3 = 59, 60, 61
ESCAPE = 1
FINGER0 = rgb(0x4FC3F7)


@pytest.fixture
def strict():
    s = Strict()
    yield s
    s.close()


def start(strict, *args, config=None, tmp=None, **kw):
    """A kiosk under `strict`, mapped; settings from `config` (TOML text) when given."""
    extra = list(args)
    if config is not None:
        path = tmp / "kiosk.toml"
        path.write_text(config)
        extra = ["--config", str(path), *extra]
    k = Kiosk(strict, "--verbose", *extra, protocol=False, **kw)
    k.wait_for(r"first frame shown")
    return k


def cpu_seconds(pid) -> float:
    """User + system CPU time a process has used."""
    fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def commits_after(strict, n):
    return len(strict.commits()) - n


def tap(strict, x, y, finger=0):
    strict.send(f"down {finger} {x} {y}", "frame", f"up {finger}", "frame")


@pytest.mark.parametrize("mistake,caught", [
    ("good", None),
    ("stale", r"differs from the picture outside its damage at 16,0"),
    ("busy-write", r"was written to while the compositor held it \(first change at pixel 7,5\)"),
    ("reattach", r"attached while the compositor still holds it"),
    ("early", r"buffer committed before the first configure was acked"),
    ("no-ack", r"configure \d+ \(1920x1080\) was not acked within 1000 ms"),
    ("small", r"surface 1910x1070 does not fill the configured fullscreen size 1920x1080"),
    ("odd-scale", r"buffer 3841x2160 is not divisible by its scale 2"),
    ("leak", r"9 wl_buffers alive at once"),
])
def test_the_strict_compositor_catches_each_mistake(strict, mistake, caught):
    """A check that cannot fail proves nothing: a client making each mistake is caught, and one
    making none is not."""
    subprocess.run([str(BAD_CLIENT), mistake], env=strict.env(), timeout=10, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL)
    time.sleep(0.1)
    found = strict.violations()
    if caught is None:
        assert found == []
    else:
        assert any(re.search(caught, v) for v in found), f"{mistake}: not caught; violations: {found}"


def test_scenes_touches_switching_and_admin_panel_are_clean(strict, tmp_path):
    with start(strict, "--scene", "touch", "--idle-timeout", "0", config='[admin]\npin = "2580"\n', tmp=tmp_path) as k:
        strict.send("down 0 300 300", "down 1 600 400", "frame")
        strict.send("motion 0 350 330", "motion 1 640 380", "frame")
        wait_until(lambda: count_color(strict.picture(), (250, 250, 400, 400), FINGER0) > 200, timeout=3,
                   what="the first finger's marker")
        strict.send("up 0", "up 1", "frame")
        for key in (F2, F3, F1):
            strict.send(f"key {key}")
            time.sleep(0.6)  # the cross-fade
            for i in range(3):
                tap(strict, 400 + 200 * i, 500 + 60 * i)
            strict.send("down 0 900 500", "frame", "motion 0 1100 520", "frame", "up 0", "frame")
            time.sleep(0.3)
        # The admin panel: three fingers held 3 s in the top-left corner, closed with Escape.
        strict.send("down 1 40 40", "down 2 100 60", "down 3 60 110", "frame")
        k.wait_for(r"admin panel opened", timeout=6)
        strict.send("up 1", "up 2", "up 3", "frame")
        strict.send("key 3", "key 6", "key 9", "key 11", "key 28")  # the PIN 2580, Return
        time.sleep(0.3)
        strict.send(f"key {ESCAPE}")
        k.wait_for(r"admin panel closed")
        time.sleep(0.3)
        assert len(strict.commits()) > 20
        strict.assert_clean()
        assert k.proc.poll() is None


def test_screensaver_animates_and_wakes_clean(strict):
    with start(strict, "--scene", "tiles", "--idle-timeout", "1") as k:
        purple = (0x8E * 3 // 4, 0x24 * 3 // 4, 0xAA * 3 // 4)
        wait_until(lambda: count_color(strict.picture(), (0, 0, 1920, 1080), purple, tol=40) > 300, timeout=6,
                   what="falling words")
        n = len(strict.commits())
        wait_until(lambda: commits_after(strict, n) > 20, timeout=3, what="the screensaver animating")
        tap(strict, 960, 540)
        time.sleep(0.8)  # within the second before idle_timeout brings the screensaver back
        assert count_color(strict.picture(), (0, 0, 1920, 1080), purple, tol=40) < 50
        strict.assert_clean()


@pytest.mark.parametrize("scene", ["touch", "tiles"])
def test_the_committed_picture_is_the_headless_snapshot(strict, tmp_path, scene):
    """What the compositor holds — every pixel, not just the damage — is what `kiosk snapshot`
    renders for the same scene and size."""
    with start(strict, "--scene", scene, config="[shell]\nscene_bar = false\nidle_timeout = 0\n", tmp=tmp_path) as k:
        time.sleep(0.5)
        shot = tmp_path / "snapshot.png"
        subprocess.run([str(KIOSK), "snapshot", "--scene", scene, "--size", "1920x1080", "--out", str(shot)],
                       check=True, timeout=30)
        want = Image.open(shot).convert("RGB")
        got = strict.picture()
        diff = ImageChops.difference(want, got)
        assert diff.getbbox() is None, f"picture differs from the snapshot within {diff.getbbox()}"
        strict.assert_clean()


def test_buffers_released_late_then_never(strict):
    with start(strict, "--scene", "touch", "--idle-timeout", "0") as k:
        strict.send("release late 250")
        strict.send("down 0 300 300", "frame")
        for i in range(20):
            strict.send(f"motion 0 {300 + 20 * i} 300", "frame")
            time.sleep(0.03)
        strict.send("up 0", "frame")
        time.sleep(0.5)
        # Never released: the kiosk stops at a bounded number of buffers and waits, idle.
        strict.send("release never")
        strict.send("down 0 800 500", "frame")
        for i in range(20):
            strict.send(f"motion 0 {800 + 15 * i} 500", "frame")
            time.sleep(0.03)
        time.sleep(0.3)
        n = len(strict.commits())
        before = cpu_seconds(k.proc.pid)
        time.sleep(1.0)
        assert cpu_seconds(k.proc.pid) - before < 0.2, "a kiosk waiting for buffers must not spin"
        assert commits_after(strict, n) == 0
        assert strict.status()["max_buffers"] <= 4
        # The buffers come back: the waiting frame is drawn without another input.
        strict.send("release normal")
        wait_until(lambda: commits_after(strict, n) > 0, timeout=3, what="a frame after the buffers came back")
        strict.send("up 0", "frame")
        time.sleep(0.3)
        strict.assert_clean()


def test_resizes_under_a_compositor_that_never_releases_stay_bounded(strict):
    with start(strict, "--scene", "tiles", "--idle-timeout", "0") as k:
        strict.send("release never")
        for i in range(12):
            strict.send(f"configure {800 + 50 * i} {600 + 20 * i}")
            time.sleep(0.1)
        wait_until(lambda: strict.picture().size == (1350, 820), timeout=3, what="the last size")
        assert strict.status()["max_buffers"] <= 6
        k.wait_for(r"has not released a \d+x\d+ buffer it no longer shows: destroying it")
        strict.assert_clean()


def test_frame_callbacks_late_or_withheld(strict):
    with start(strict, "--scene", "lander", "--idle-timeout", "0") as k:
        strict.send("frames late 150")
        n = len(strict.commits())
        time.sleep(1.0)
        late = commits_after(strict, n)
        assert 3 <= late <= 12, f"{late} commits in 1 s with frame callbacks 150 ms late"
        strict.send("frames withhold")
        time.sleep(0.3)
        n = len(strict.commits())
        before = cpu_seconds(k.proc.pid)
        time.sleep(1.0)
        assert commits_after(strict, n) <= 1, "no frame callback, no new frames"
        assert cpu_seconds(k.proc.pid) - before < 0.2, "waiting for a frame callback must not spin"
        # A configure still gets its commit while frame callbacks are withheld.
        strict.send("configure 1920 1080")
        wait_until(lambda: any(l.startswith("commit ") for l in strict.lines()[-3:]), timeout=2,
                   what="a commit answering the configure")
        strict.send("frames normal")
        n = len(strict.commits())
        wait_until(lambda: commits_after(strict, n) > 10, timeout=3, what="the animation resumed with the frame callbacks")
        strict.assert_clean()


def test_a_change_waiting_for_a_withheld_frame_callback_is_drawn_when_it_comes(strict):
    with start(strict, "--scene", "tiles", "--idle-timeout", "0") as k:
        from test_tiles import tile_box
        first, second = tile_box(0), tile_box(1)
        strict.send("frames withhold")
        tap(strict, (first[0] + first[2]) // 2, (first[1] + first[3]) // 2)  # draws once; that frame's callback is withheld
        time.sleep(0.3)
        n = len(strict.commits())
        cx, cy = (second[0] + second[2]) // 2, (second[1] + second[3]) // 2
        strict.send(f"down 0 {cx} {cy}", "frame", "up 0", "frame")  # the second tile: waits
        time.sleep(0.5)
        assert commits_after(strict, n) == 0, "drew without a frame callback"
        strict.send("frames flush")
        wait_until(lambda: commits_after(strict, n) > 0, timeout=2, what="the waiting frame")
        time.sleep(0.3)
        strict.send("frames normal")
        assert count_color(strict.picture(), tuple(int(v) for v in second), FINGER0, tol=20) > 500, "the second tile is not on"
        strict.assert_clean()


def test_configure_storm():
    # A 6144×6144 frame (the fitted 16384² configure) takes a while to draw on a busy machine,
    # during which the next configure waits: 5 s to answer each here.
    strict = Strict(configure_timeout=5000)
    k = start(strict, "--scene", "tiles", "--idle-timeout", "0")
    try:
        rnd = random.Random(7)
        for _ in range(40):
            strict.send(f"configure {rnd.randint(200, 2400)} {rnd.randint(200, 1600)}")
            time.sleep(0.02)
        for w, h in [(0, 0), (1, 1), (16384, 16384), (1, 1), (2, 3), (0, 0), (1920, 1080)]:
            strict.send(f"configure {w} {h}")
            time.sleep(0.25)
        k.wait_for(r"asked for 16384×16384 at scale 1: using 6144×6144")
        wait_until(lambda: strict.picture().size == (1920, 1080), timeout=3, what="the final size")
        tap(strict, 960, 540)
        time.sleep(0.3)
        assert k.proc.poll() is None, k.stderr[-2000:]
        strict.assert_clean()
        assert strict.status()["max_buffers"] <= 8
    finally:
        k.close()
        strict.close()


def turn_through(strict, transforms):
    """Turns the output through `transforms` as a compositor does (the output's transform, then
    a configure of the turned size); each time the kiosk fills it and takes a tap."""
    for t in transforms:
        want = (1080, 1920) if t % 2 else (1920, 1080)
        strict.send(f"output set STRICT-1 1920 1080 1 {t}", f"configure {want[0]} {want[1]}")
        wait_until(lambda: strict.picture().size == want, timeout=3, what=f"a picture for transform {t}")
        tap(strict, 300, 300)
    time.sleep(0.3)


def test_output_scales_and_all_transforms(strict):
    with start(strict, "--scene", "touch", "--idle-timeout", "0") as k:
        for scale in (2, 3, 4, 1):
            # As a real compositor does: the output's scale, then the fullscreen size in points.
            strict.send(f"output set STRICT-1 1920 1080 {scale} 0", f"configure {1920 // scale} {1080 // scale}")
            want = (1920 // scale * scale, 1080 // scale * scale)
            wait_until(lambda: strict.picture().size == want, timeout=3, what=f"a picture at scale {scale}")
            tap(strict, 100, 100)
        turn_through(strict, range(8))
        strict.assert_clean()


def test_app_rotation_pre_rotates_for_every_output_transform(strict):
    # With --rotate 90 as well, the app's turn and the output's fold into one: the buffer is
    # still drawn in the panel's orientation, for every output transform.
    with start(strict, "--scene", "tiles", "--rotate", "90", "--idle-timeout", "0") as k:
        turn_through(strict, (1, 2, 3, 0, 5, 6, 7, 4))
        strict.assert_clean()


def test_outputs_added_and_removed(strict):
    with start(strict, "--scene", "touch", "--idle-timeout", "0") as k:
        strict.send("output add STRICT-2 2560 1600 2 0")
        strict.send("output remove STRICT-1")
        k.wait_for(r"buffer scale 1 → 2")
        strict.send("configure 1280 800")
        wait_until(lambda: strict.picture().size == (2560, 1600), timeout=3, what="the picture at scale 2")
        strict.send("output remove STRICT-2")
        time.sleep(0.3)
        tap(strict, 200, 200)
        strict.send("output add STRICT-3 1920 1080 1 0", "configure 1920 1080")
        wait_until(lambda: strict.picture().size == (1920, 1080), timeout=3, what="the picture on the new output")
        time.sleep(0.3)
        assert k.proc.poll() is None, k.stderr[-2000:]
        strict.assert_clean()


def test_seat_capabilities_come_and_go(strict):
    k = start(strict, "--scene", "touch", "--idle-timeout", "0")

    have = {"touch", "pointer", "keyboard"}

    def caps(names):
        """New capabilities, and the kiosk has asked for each new device (before that, a
        compositor has no one to send its events to)."""
        before = {d: strict.lines().count(f"get_{d}") for d in ("touch", "pointer", "keyboard")}
        strict.send(f"caps {names}")
        new = set(names.split(",")) - {"none"}
        for d in new - have:
            wait_until(lambda: strict.lines().count(f"get_{d}") > before[d], timeout=3, what=f"wl_seat.get_{d}")
        have.clear()
        have.update(new)
    try:
        # A finger is down when the touch capability goes: it is cancelled, not left stuck.
        strict.send("down 0 500 500", "frame")
        k.wait_for(r"touch: 0 began 500,500")
        caps("none")
        k.wait_for(r"touch: 0 cancelled 500,500")
        caps("touch")
        tap(strict, 600, 600, finger=3)
        k.wait_for(r"touch: 3 ended 600,600")
        caps("pointer,keyboard")
        strict.send("pointer 700 300", "button down", "pointer 720 320", "button up")
        k.wait_for(r"touch: -1 ended 720,320")
        strict.send("key 30")
        k.wait_for(r'key pressed: keysym=0x61 text="a"')
        caps("touch,pointer,keyboard")
        tap(strict, 300, 300)
        k.wait_for(r"touch: 0 ended 300,300")
        strict.assert_clean()
    finally:
        k.close()


def test_a_modifier_held_when_the_kiosk_gets_the_keyboard_applies_to_its_first_key(strict):
    """The kiosk compiles the compositor's keymap only at the first key (a touch-only panel never
    needs it); the modifier state sent before that, with the keyboard focus, must not be lost."""
    strict.send("keydown 42")  # Shift, held down before the kiosk is even there
    with start(strict, "--scene", "touch", "--idle-timeout", "0") as k:
        strict.send("key 30")
        k.wait_for(r'key pressed: keysym=0x41 text="A"')
        strict.send("keyup 42", "key 30")
        k.wait_for(r'key pressed: keysym=0x61 text="a"')
        strict.assert_clean()


def test_touch_sequences_a_compositor_might_send(strict):
    with start(strict, "--scene", "touch", "--idle-timeout", "0") as k:
        # No frame events at all (some compositors): the last up still ends the gesture.
        strict.send("down 4 100 100", "motion 4 150 150", "up 4")
        k.wait_for(r"4 ended 150,150")
        # An id reused while still down, and an up for an id never seen.
        strict.send("down 5 200 200", "frame", "down 5 260 260", "frame", "up 9", "frame", "up 5", "frame")
        k.wait_for(r"5 ended 260,260")
        # Ten fingers at once, moved, lifted.
        strict.send(*[f"down {i} {150 + 150 * i} {300 + 20 * i}" for i in range(10)], "frame")
        strict.send(*[f"motion {i} {160 + 150 * i} {320 + 20 * i}" for i in range(10)], "frame")
        k.wait_for(r"touch: " + "; ".join(f"{i} moved" + r" [\d,]+" for i in range(10)))
        strict.send(*[f"up {i}" for i in range(10)], "frame")
        # Cancel in the middle of a two-finger gesture: every point ends, none acts.
        strict.send("down 0 1400 300", "down 1 1500 400", "frame", "motion 0 1420 330", "frame", "cancel")
        k.wait_for(r"touch: 0 cancelled 1420,330; 1 cancelled 1500,400")
        time.sleep(0.5)
        img = strict.picture()
        assert count_color(img, (1300, 200, 1600, 500), FINGER0) == 0, "a cancelled finger left its marker"
        strict.assert_clean()


def test_a_compositor_that_never_sends_touch_frames_still_shows_held_fingers(strict, tmp_path):
    """cage 0.1.4 sends wl_touch down, motion and up but never frame: a finger held down, moved,
    and a second one beside it must act while they are down, not only when they lift."""
    strict.send("touch-frames never")
    with start(strict, "--scene", "touch", "--idle-timeout", "0") as k:
        strict.send("down 0 300 600")
        k.wait_for(r"touch: 0 began 300,600")
        wait_until(lambda: count_color(strict.picture(), (250, 550, 350, 650), FINGER0) > 50, timeout=3,
                   what="a marker under the held finger")
        strict.send("motion 0 500 650", "down 1 800 600")
        # One batch or two: the commands reach the compositor one by one, and a loaded machine
        # may let Kiosk read between them.
        k.wait_for(r"touch: 0 moved 500,650")
        k.wait_for(r"1 began 800,600")
        wait_until(lambda: count_color(strict.picture(), (450, 600, 550, 700), FINGER0) > 50, timeout=3,
                   what="the marker following the finger")
        wait_until(lambda: count_color(strict.picture(), (750, 550, 850, 650), rgb(0xFFB74D), tol=60) > 50,
                   timeout=3, what="a marker under the second finger")
        strict.send("up 0", "up 1")
        k.wait_for(r"1 ended 800,600")
        strict.assert_clean()
    # The lander's thrust fires while its button is held.
    from test_lander import pad_centre
    state = tmp_path / "state"
    with start(strict, "--scene", "lander", "--idle-timeout", "0", env=strict.env(XDG_STATE_HOME=str(state))) as k:
        fx, fy = pad_centre()
        strict.send(f"down 0 {fx:.0f} {fy:.0f}")
        k.wait_for(r"touch: 0 began")
        time.sleep(1.0)
        k.proc.send_signal(15)  # saves the flight while the finger is still down
        assert k.wait_exit(timeout=5) == 0
    fuel = json.loads((state / "kiosk" / "lander.json").read_text())["flight"]["fuel"]
    assert fuel < 99, f"no thrust while the button was held (fuel {fuel})"


def test_a_frame_that_draws_nothing_does_not_freeze_the_kiosk_under_wlroots_frame_callbacks(strict):
    """wlroots compositors (Debian's cage) answer a frame callback only when they repaint, and
    repaint only for damage. A frame that changed nothing visible, committed without damage,
    waited for its callback forever: on a booted panel the lander stood still, thrust or not.
    The screensaver's first word falls in from above the screen, unseen for its first frames."""
    from test_shell import PURPLE
    strict.send("frames damage-only")
    with start(strict, "--screensaver", "--idle-timeout", "0"):
        wait_until(lambda: count_color(strict.picture(), (0, 0, 1920, 1080), PURPLE, tol=40) > 100, timeout=5,
                   what="a word falling into view")
        strict.assert_clean()


def test_sigterm_exits_zero_and_compositor_loss_exits_one(strict):
    k = start(strict, "--scene", "lander")
    k.proc.send_signal(15)
    assert k.wait_exit(timeout=5) == 0
    k.close()
    with start(strict, "--scene", "lander") as k:
        strict.kill()
        assert k.wait_exit(timeout=5) == 1
        assert "lost the connection to the compositor" in k.stderr.strip().splitlines()[-1]


def test_the_whole_surface_is_declared_opaque_at_every_size(strict):
    """An XRGB fullscreen kiosk says so (wl_surface.set_opaque_region), so the compositor never
    paints what lies beneath it: weston 10 otherwise fills its background under every damaged
    pixel first (a fifth of its repaint time with falling words)."""
    with start(strict, "--scene", "touch") as k:
        wait_until(lambda: "opaque_region 0,0 1920x1080 rects=1" in strict.lines(), timeout=3, what="the opaque region")
        strict.send("configure 1280 800")
        k.wait_for(r"display: 1280×800 pt")
        wait_until(lambda: "opaque_region 0,0 1280x800 rects=1" in strict.lines(), timeout=3,
                   what="the opaque region at the new size")
        strict.assert_clean()
