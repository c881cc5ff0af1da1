"""End-to-end under Debian's wlroots kiosk compositors, headless with pixman: cage 0.1.4 and sway
1.7 (Debian 12, wlroots 0.15), or with KIOSK_E2E_RELEASE=trixie cage 0.2.0 and sway 1.10 (Debian
13, wlroots 0.18): what screencopy (grim, wayvnc) captures is the whole kiosk, equal to
`kiosk snapshot`."""
import re
import signal
import subprocess
import time

import pytest
from PIL import Image, ImageChops

from harness import count_color, rgb, wait_until
from wlroots import WLROOTS_015, Cage, Sway, kiosk_binary, run_kiosk_as_user

NO_BAR = "[shell]\nscene_bar = false\nidle_timeout = 0\n"
ACCENT = rgb(0x4FC3F7)
TERRAIN = (58, 63, 75)


def snapshot(scene, size, out_dir) -> Image.Image:
    path = out_dir / f"snapshot-{scene}-{size[0]}x{size[1]}.png"
    subprocess.run([str(kiosk_binary()), "snapshot", "--scene", scene, "--size", f"{size[0]}x{size[1]}", "--out", str(path)],
                   check=True, timeout=30)
    with Image.open(path) as im:
        return im.convert("RGB")


def assert_same(got: Image.Image, want: Image.Image, what: str):
    assert got.size == want.size, f"{what}: {got.size} vs {want.size}"
    diff = ImageChops.difference(got, want)
    assert diff.getbbox() is None, f"{what}: the capture differs from the snapshot within {diff.getbbox()}"


def unpainted(img: Image.Image) -> float:
    """Share of pure black pixels: the compositor's background showing through. No scene but
    the screensaver paints pure black."""
    counts = {c: n for n, c in img.getcolors(img.width * img.height)}
    return counts.get((0, 0, 0), 0) / (img.width * img.height)


def config_file(comp, text):
    path = comp.dir / "kiosk.toml"
    path.write_text(text)
    path.chmod(0o644)
    return str(path)


# MARK: cage 0.1.4


@pytest.mark.parametrize("scene", ["touch", "tiles"])
def test_cage_captures_the_whole_kiosk_as_the_snapshot(scene, tmp_path):
    c = Cage("--scene", scene, config=NO_BAR)
    try:
        c.wait_for(r"first frame shown")
        if WLROOTS_015:
            c.wait_for(r"buffers go out flipped")
        else:
            assert "buffers go out flipped" not in c.stderr, "cage 0.2.0 repaints right after scan-out"
        want = snapshot(scene, Cage.size, tmp_path)
        # Captured at 1.5 s and again at 3 s: grim's first capture used to come out black.
        time.sleep(1.5)
        assert_same(c.screenshot(), want, f"cage, {scene}, 1.5 s")
        time.sleep(1.5)
        assert_same(c.screenshot(), want, f"cage, {scene}, 3 s")
        assert "Basic output test failed" not in c.log.read_text()
    finally:
        c.close()


@pytest.mark.skipif(not WLROOTS_015, reason="the shim stops cage 0.1.4's own scan-out function")
def test_cage_compositing_upright_as_on_a_panel_shows_the_kiosk_whole(tmp_path):
    # A DRM panel's cage cannot scan a wl_shm buffer out: it composites Kiosk's plain (unflipped)
    # buffers every frame, repainting only the damage Kiosk reports. The shim makes the headless
    # cage do that, so this path (and `make bench`'s row for it) is the panel's.
    c = Cage("--scene", "tiles", config=NO_BAR, composites=True)
    try:
        c.wait_for(r"first frame shown")
        time.sleep(1.5)
        assert_same(c.screenshot(), snapshot("tiles", Cage.size, tmp_path), "cage compositing upright, tiles")
        assert "buffers go out flipped" not in c.stderr
        log = c.log.read_text()
        assert "cage-no-scanout: direct scan-out refused" in log, "the shim did not stop cage's scan-out"
        assert "Basic output test failed" not in log
    finally:
        c.close()
    # Moving: the lander's frames arrive as damage only; what cage repaints of them must add up.
    c = Cage("--scene", "lander", composites=True)
    try:
        c.wait_for(r"first frame shown")
        time.sleep(1.0)
        img = c.screenshot()
        assert unpainted(img) < 0.001, f"{unpainted(img):.1%} of the lander capture is unpainted"
        assert count_color(img, (0, 400, 1280, 720), TERRAIN, tol=6) > 20000
    finally:
        c.close()


def test_cage_lander_and_screensaver_are_whole():
    # Idle for 6 s: the two captures of the lander (1 s and 2 s after its first frame, each as
    # long as grim takes) stay clear of the screensaver's cross-fade on a slow machine too.
    c = Cage("--scene", "lander", "--idle-timeout", "6")
    try:
        c.wait_for(r"first frame shown")
        for _ in range(2):
            time.sleep(1.0)
            img = c.screenshot()
            assert unpainted(img) < 0.001, f"{unpainted(img):.1%} of the lander capture is unpainted"
            # The terrain (grey) and the control pad's buttons are there, not only the moving ship.
            assert count_color(img, (0, 400, 1280, 720), TERRAIN, tol=6) > 20000
        purple = (0x8E * 3 // 4, 0x24 * 3 // 4, 0xAA * 3 // 4)
        wait_until(lambda: count_color(c.screenshot(), (0, 0, 1280, 720), purple, tol=40) > 300, timeout=8,
                   what="the screensaver's words in the capture")
    finally:
        c.close()


def test_cage_rotated_output_relayouts_portrait(tmp_path):
    # cage 0.1.4 turns its output with -r; cage 0.2.0 through wlr-output-management, live.
    c = Cage("--scene", "tiles", config=NO_BAR, rotate=1 if WLROOTS_015 else 0)
    try:
        if not WLROOTS_015:
            c.wait_for(r"first frame shown")
            c.run("wlr-randr", "--output", "HEADLESS-1", "--transform", "90")
        c.wait_for(r"display: 720×1280 pt")
        time.sleep(1.0)
        assert_same(c.screenshot(), snapshot("tiles", (720, 1280), tmp_path), "cage -r, tiles")
    finally:
        c.close()


def test_cage_sigterm_exits_zero_and_compositor_loss_exits_one():
    c = Cage("--scene", "touch")
    try:
        c.wait_for(r"first frame shown")
        subprocess.run(["kill", "-TERM", str(c.kiosk_pid())], check=True)
        assert c.kiosk_exit() == 0
        c.proc.wait(timeout=5)  # cage ends with its app
    finally:
        c.close()
    c = Cage("--scene", "touch")
    try:
        c.wait_for(r"first frame shown")
        c.kill()
        assert c.kiosk_exit() == 1
        assert "lost the connection to the compositor" in c.stderr.strip().splitlines()[-1]
    finally:
        c.close()


def test_cage_started_as_the_unit_starts_it_tells_systemd_ready_and_pings():
    # kiosk.service: Type=notify, NotifyAccess=all, cage the main process, Kiosk its child.
    import os
    import tempfile
    from pathlib import Path
    from test_service import NotifySocket
    folder = Path(tempfile.mkdtemp(prefix="kiosk-notify-"))  # reachable by the test user
    folder.chmod(0o755)
    n = NotifySocket(folder / "socket")
    os.chmod(n.path, 0o777)
    c = Cage("--scene", "tiles", as_the_unit=True, env={"NOTIFY_SOCKET": n.path, "WATCHDOG_USEC": "1000000"})
    try:
        wait_until(lambda: n.times("READY=1"), timeout=10, what="READY=1 from Kiosk under cage")
        assert any("STATUS=showing tiles" in m for _, m in n.poll())
        time.sleep(1.6)
        assert len(n.times("WATCHDOG=1")) >= 2, "Kiosk must ping for cage, the unit's main process"
        assert unpainted(c.screenshot()) < 0.001
    finally:
        c.close()
        n.close()


# MARK: sway 1.7


@pytest.fixture
def sway():
    s = Sway()
    yield s
    s.close()


@pytest.mark.parametrize("scene", ["touch", "tiles"])
def test_sway_captures_the_whole_kiosk_as_the_snapshot(sway, scene, tmp_path):
    k = run_kiosk_as_user(sway, "--scene", scene, "--config", config_file(sway, NO_BAR))
    try:
        k.wait_for(r"first frame shown")
        assert "buffers go out flipped" not in k.stderr  # sway repaints correctly after scan-out
        time.sleep(1.0)
        assert_same(sway.screenshot(), snapshot(scene, sway.size, tmp_path), f"sway, {scene}")
        k.wait_for(r"display: 1920×1080 pt")
    finally:
        k.close()


def test_sway_output_transform_relayouts_live(sway, tmp_path):
    k = run_kiosk_as_user(sway, "--scene", "tiles", "--config", config_file(sway, NO_BAR))
    try:
        k.wait_for(r"first frame shown")
        sway.swaymsg("output", "HEADLESS-1", "transform", "90")
        k.wait_for(r"display: 1080×1920 pt")
        time.sleep(1.0)
        assert_same(sway.screenshot(), snapshot("tiles", (1080, 1920), tmp_path), "sway transform 90, tiles")
        sway.swaymsg("output", "HEADLESS-1", "transform", "normal")
        k.wait_for(r"display: 1920×1080 pt", timeout=5)
    finally:
        k.close()


def test_sway_keys_and_pointer(sway):
    k = run_kiosk_as_user(sway, "--scene", "tiles", "--idle-timeout", "0")
    try:
        k.wait_for(r"first frame shown")
        # A click on the first tile selects it (the pointer's button is a finger).
        from test_tiles import tile_box
        box = tuple(int(v) for v in tile_box(0))
        x, y = (box[0] + box[2]) // 2, (box[1] + box[3]) // 2
        # sway 1.10 gives the pointer to a new window once its first frame is in: a click
        # before that reaches no one, as it would for a person clicking that early.
        sway.send(f"pointer {x} {y} 1920 1080")
        k.wait_for(r"pointer entered")
        sway.send("button down", "button up")
        k.wait_for(rf"touch: -1 ended {x},{y}")
        wait_until(lambda: count_color(sway.screenshot(), box, ACCENT, tol=20) > 500, timeout=3,
                   what="the clicked tile to turn on")
        # F1 shows the lander (the visitors' first scene): its terrain fills the bottom of the screen.
        sway.send("key 59")
        k.wait_for(r"key pressed: keysym=0xffbe")
        wait_until(lambda: count_color(sway.screenshot(), (0, 700, 1920, 1080), TERRAIN, tol=6) > 50000,
                   timeout=3, what="the lander after F1")
        assert unpainted(sway.screenshot()) < 0.001
    finally:
        k.close()


def test_sway_unanswered_presentation_feedback_does_not_pile_up(sway):
    # sway 1.7 on a headless output answers the first frame's feedback and no other: the kiosk
    # asks for at most a few unanswered ones (each is an object in both processes), says so once,
    # and its statistics line counts the frames it did not follow.
    k = run_kiosk_as_user(sway, "--screensaver", "-v", env=sway.env(WAYLAND_DEBUG="1"))
    try:
        k.wait_for(r"first frame shown")
        wait_until(lambda: len(re.findall(r"-> wl_surface[@#]\d+\.commit", k.stderr)) >= 120, timeout=20, what="120 commits")
        asked = len(re.findall(r"-> wp_presentation[@#]\d+\.feedback", k.stderr))
        answered = len(re.findall(r"wp_presentation_feedback[@#]\d+\.(?:presented|discarded)", k.stderr))
        assert asked <= answered + 8, f"{asked} feedback objects asked for, {answered} answered"
        if WLROOTS_015:
            k.wait_for(r"has not answered presentation feedback for 8 followed frames")
            k.proc.send_signal(signal.SIGUSR1)
            k.wait_for(r"stats: .* not followed \(no presentation feedback\)")
    finally:
        k.close()


def test_sway_sigterm_exits_zero_and_compositor_loss_exits_one(sway):
    k = run_kiosk_as_user(sway, "--scene", "lander")
    try:
        k.wait_for(r"first frame shown")
        k.proc.terminate()
        assert k.wait_exit() == 0
    finally:
        k.close()
    k = run_kiosk_as_user(sway, "--scene", "lander")
    try:
        k.wait_for(r"first frame shown")
        sway.kill()
        assert k.wait_exit() == 1
        assert "lost the connection to the compositor" in k.stderr.strip().splitlines()[-1]
    finally:
        k.close()
