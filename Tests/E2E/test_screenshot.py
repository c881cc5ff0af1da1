"""End-to-end: a picture of what a panel shows. `kiosk screenshot` asks the running kiosk for
its own last frame, upright as a visitor sees the panel: it equals the compositor's own capture
(weston's screenshooter, grim under cage) on a turned output and with the kiosk's own rotation
too. `[metrics] screenshot` keeps such a picture in a file, rewritten only after the screen
changed."""
import os
import pwd
import subprocess
import time

import pytest
from PIL import Image, ImageChops

from harness import KIOSK, Kiosk, Weston, to_logical, wait_until


def screenshot(path, *args, user=None, env=None):
    """`kiosk screenshot` run to its end; (exit status, stdout, stderr)."""
    r = subprocess.run([str(KIOSK), "screenshot", *args, str(path)], capture_output=True, text=True, timeout=30,
                       user=user, env=env)
    return r.returncode, r.stdout.strip(), r.stderr.strip()


def assert_same(got: Image.Image, want: Image.Image, what: str):
    assert got.size == want.size, f"{what}: {got.size} vs {want.size}"
    box = ImageChops.difference(got.convert("RGB"), want.convert("RGB")).getbbox()
    assert box is None, f"{what}: the pictures differ within {box}"


def still_kiosk(w, *args, config=None, tmp_path):
    """A kiosk on the tile board (nothing moves once it is dealt), settled."""
    cfg = tmp_path / "kiosk.toml"
    cfg.write_text(config or "[shell]\nidle_timeout = 0\n")
    k = Kiosk(w, "--verbose", "--config", str(cfg), "--scene", "tiles", *args,
              env=w.env(XDG_STATE_HOME=str(tmp_path)), protocol=False)
    k.wait_for(r"first frame shown")
    time.sleep(1.5)
    return k


@pytest.mark.parametrize("transform", ["normal", "rotate-90"])
def test_the_kiosks_picture_is_the_compositors_capture_upright(transform, tmp_path):
    w = Weston(transform=transform)
    try:
        with still_kiosk(w, tmp_path=tmp_path) as k:
            code, out, err = screenshot(tmp_path / "mine.png")
            assert code == 0, err
            assert out == str(tmp_path / "mine.png")
            k.wait_for(r"screenshot: \d+x\d+ sent to pid")
            capture = to_logical(w.screenshot(), transform)
            with Image.open(tmp_path / "mine.png") as mine:
                assert mine.size == ((1920, 1080) if transform == "normal" else (1080, 1920))
                assert_same(mine, capture, f"weston {transform}")
    finally:
        w.close()


def test_the_kiosks_own_rotation_is_undone_too(tmp_path):
    """A panel mounted on its side under a compositor that cannot turn it: the kiosk turns its
    own drawing (`--rotate 90`), and the picture is upright as the visitor sees it."""
    w = Weston()
    try:
        with still_kiosk(w, "--rotate", "90", tmp_path=tmp_path):
            code, _, err = screenshot(tmp_path / "mine.png")
            assert code == 0, err
            with Image.open(tmp_path / "mine.png") as mine:
                assert mine.size == (1080, 1920)
                # `rotate = 90` draws a quarter turn clockwise on the glass: the capture, in the
                # glass' orientation, turned back a quarter counterclockwise is what the visitor sees.
                assert_same(mine, w.screenshot().transpose(Image.Transpose.ROTATE_90), "the kiosk's own rotation")
    finally:
        w.close()


def test_standard_output_and_clear_errors(tmp_path):
    code, _, err = screenshot(tmp_path / "none.png")
    assert code == 1 and "no running kiosk was found" in err, err
    code, _, err = screenshot(tmp_path / "x.png", "--pid", "1")
    assert code == 1 and "no kiosk with pid 1" in err, err
    w = Weston()
    try:
        with still_kiosk(w, tmp_path=tmp_path) as k:
            r = subprocess.run([str(KIOSK), "screenshot", "-"], capture_output=True, timeout=30)
            assert r.returncode == 0 and r.stdout.startswith(b"\x89PNG"), r.stderr
            code, _, err = screenshot(tmp_path / "pid.png", "--pid", str(k.proc.pid))
            assert code == 0, err
            # Someone who is neither root nor the kiosk's user is refused, and the kiosk says so.
            nobody = pwd.getpwnam("nobody")
            code, _, err = screenshot("/tmp/never.png", user=nobody.pw_uid)
            assert code == 1 and "error: " in err, err
            k.wait_for(r"screenshots: refused a request from user %d" % nobody.pw_uid)
            assert not os.path.exists("/tmp/never.png")
    finally:
        w.close()


def mtime(path):
    try:
        return os.stat(path).st_mtime_ns
    except FileNotFoundError:
        return None


def test_a_fleets_picture_is_kept_and_rewritten_only_after_a_change(tmp_path):
    shot = tmp_path / "screen.png"
    w = Weston()
    try:
        config = f'[shell]\nidle_timeout = 0\n[metrics]\nscreenshot = "{shot}"\nscreenshot_interval = 5\n'
        with still_kiosk(w, config=config, tmp_path=tmp_path) as k:
            k.wait_for(r"screenshot: kept at")
            wait_until(lambda: mtime(shot), timeout=5, what="the first picture")
            time.sleep(1)
            first = mtime(shot)
            with Image.open(shot) as mine:
                assert_same(mine, w.screenshot(), "the kept picture")
            # Nothing changes on screen: nothing is written, however long.
            time.sleep(6)
            assert mtime(shot) == first, "the picture was rewritten while the screen stayed the same"
            # A visitor changes the screen: a new picture, showing it, within the interval.
            w.send("down 0 960 540", "frame")
            time.sleep(0.05)
            w.send("up 0", "frame")
            wait_until(lambda: mtime(shot) != first, timeout=8, what="a new picture after the change")
            time.sleep(1)
            with Image.open(shot) as mine:
                assert_same(mine, w.screenshot(), "the picture after the change")
            assert oct(os.stat(shot).st_mode & 0o777) == "0o644"
            assert not [p for p in tmp_path.iterdir() if p.name.startswith(".screen.png")], "a temporary file was left"
    finally:
        w.close()


def test_a_picture_path_that_cannot_be_written_is_said_once_and_the_kiosk_runs_on(tmp_path):
    w = Weston()
    try:
        config = '[shell]\nidle_timeout = 0\n[metrics]\nscreenshot = "/nonexistent/screen.png"\nscreenshot_interval = 5\n'
        with still_kiosk(w, config=config, tmp_path=tmp_path) as k:
            k.wait_for(r"screenshot: cannot write /nonexistent/screen.png .*tries again")
            for i in range(3):
                w.send(f"down 0 {300 + 400 * i} 540", "frame", "up 0", "frame")
                time.sleep(0.3)
            time.sleep(6)
            assert k.stderr.count("cannot write /nonexistent/screen.png") == 1
            assert k.proc.poll() is None
    finally:
        w.close()


def test_cage_the_kiosks_picture_is_grims_and_its_own_user_may_ask(tmp_path):
    """Under cage the kiosk runs as an unprivileged user: root asks, and so does that user."""
    from wlroots import Cage

    c = Cage("--scene", "tiles", config="[shell]\nidle_timeout = 0\n")
    try:
        c.wait_for(r"first frame shown")
        time.sleep(1.5)
        code, _, err = screenshot(tmp_path / "root.png")
        assert code == 0, err
        assert_same(Image.open(tmp_path / "root.png"), c.screenshot(), "cage, asked by root")
        code, _, err = screenshot(c.dir / "user.png", user=c.uid, env=dict(os.environ, HOME="/"))
        assert code == 0, err
        assert_same(Image.open(c.dir / "user.png"), Image.open(tmp_path / "root.png"), "asked by the kiosk's user")
    finally:
        c.close()
