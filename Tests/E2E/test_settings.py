"""End-to-end: settings files, check-config, and a live reload on SIGHUP or a change of the file."""
import re
import signal
import subprocess
import time
from contextlib import contextmanager

from harness import KIOSK, Kiosk, count_color, wait_until
from test_shell import wait_for_screensaver
from test_tiles import OFF_FILL


def test_check_config_reports_each_problem_with_position(tmp_path):
    good = tmp_path / "good.toml"
    good.write_text('[shell]\nidle_timeout = 60\n')
    r = subprocess.run([str(KIOSK), "check-config", str(good)], capture_output=True, text=True, timeout=30)
    assert r.returncode == 0 and r.stdout.strip() == f"{good}: ok"
    bad = tmp_path / "bad.toml"
    bad.write_text('[shell]\nrotate = 45\n[lander]\npad = "up"\n')
    r = subprocess.run([str(KIOSK), "check-config", str(bad)], capture_output=True, text=True, timeout=30)
    assert r.returncode == 1
    assert r.stdout.splitlines() == [f"{bad}:2:10: rotate must be \"auto\", 0, 90, 180 or 270; using \"auto\"",
                                     f'{bad}:4:7: pad must be "left" or "right"; using right']


@contextmanager
def kiosk_with_config(weston, tmp_path, text, *args):
    """A kiosk reading `text` as its settings file, shown on screen; yields it and the file."""
    cfg = tmp_path / "kiosk.toml"
    cfg.write_text(text)
    k = Kiosk(weston, "--verbose", "--config", str(cfg), *args, protocol=False)
    try:
        k.wait_for(r"first frame shown")
        yield k, cfg
    finally:
        k.close()


def test_a_broken_file_leaves_the_kiosk_running_on_defaults(weston, tmp_path):
    with kiosk_with_config(weston, tmp_path, "[shell\nidle_timeout = 1\n") as (k, cfg):
        assert f"{cfg}:1:" in k.stderr
        assert k.proc.poll() is None


def test_sighup_reloads_settings_live(weston, tmp_path):
    with kiosk_with_config(weston, tmp_path, "[shell]\nidle_timeout = 0\n", "--scene", "touch") as (k, cfg):
        cfg.write_text("[shell]\nidle_timeout = 1\nstart = \"tiles\"\n")
        k.proc.send_signal(signal.SIGHUP)
        k.wait_for(r"settings reloaded")
        k.wait_for(r"\[shell\] start is now tiles: the kiosk takes it at its next start \(it keeps lander\)")
        wait_for_screensaver(weston, timeout=5, what="the screensaver after the new 1 s idle timeout")


def test_editing_the_file_reloads_it_without_a_signal(weston, tmp_path):
    with kiosk_with_config(weston, tmp_path, "[shell]\nidle_timeout = 0\nscenes = [\"touch\", \"tiles\"]\n",
                           "--scene", "touch") as (k, cfg):
        # Saved the way editors do: a new file renamed over the old one.
        tmp = tmp_path / ".kiosk.toml.swp"
        tmp.write_text("[shell]\nidle_timeout = 1\nscenes = [\"tiles\"]\n")
        tmp.rename(cfg)
        k.wait_for(r"settings file changed")
        k.wait_for(r"settings reloaded")
        # The touch scene is no longer allowed: the tile board shows, then the screensaver.
        wait_until(lambda: count_color(weston.screenshot(), (0, 0, 1920, 1080), OFF_FILL, tol=6) > 5000, timeout=3,
                   what="the tile board")
        wait_for_screensaver(weston, timeout=6, what="the screensaver after the new 1 s idle timeout")


def test_the_screen_goes_off_after_the_blank_delay_and_a_touch_wakes_the_scene(weston, tmp_path):
    # weston 10 offers no output power protocol: the screen is black (the booted machines see the
    # connector go off); a touch brings the scene back without pressing anything.
    with kiosk_with_config(weston, tmp_path, "[shell]\nblank_delay = 1\n", "--screensaver", "--scene", "tiles") as (k, _):
        k.wait_for(r"the screen goes off", timeout=4)
        k.wait_for(r"turning the screen off|the screen stays black, lit")
        wait_until(lambda: sum(1 for p in weston.screenshot().convert("L").getdata() if p > 8) == 0, timeout=3,
                   what="a black screen")
        weston.send("down 0 960 540", "frame", "up 0", "frame")
        wait_until(lambda: count_color(weston.screenshot(), (0, 0, 1920, 1080), OFF_FILL, tol=6) > 5000, timeout=3,
                   what="the tile board back")


def test_a_bad_push_keeps_the_running_settings(weston, tmp_path):
    # Files that made the old parser abort the process, pushed over a good one while it runs;
    # then a FIFO in its place (a plain open would block the kiosk): each is reported with its
    # position, the kiosk keeps its settings (the 1 s screensaver stays) and keeps running.
    with kiosk_with_config(weston, tmp_path, "[shell]\nidle_timeout = 1\n", "--scene", "touch") as (k, cfg):
        for n, bad in enumerate(["[#]\n", "[é]\n", "[a..b]\n", "[shell]\nidle_timeout = 0\nx = [\n"], start=1):
            cfg.write_text(bad)
            k.proc.send_signal(signal.SIGHUP)
            k.wait_for(r"not applied: the kiosk keeps the settings it has", count=n)
        assert f"{cfg}:1:2: expected a key" in k.stderr
        assert f"{cfg}:4:1: the array opened at 3:5 is not closed" in k.stderr
        cfg.unlink()
        import os
        os.mkfifo(cfg)
        k.proc.send_signal(signal.SIGHUP)
        k.wait_for(r"not a regular file \(a FIFO\)")
        assert k.proc.poll() is None
        wait_for_screensaver(weston, timeout=6, what="the screensaver: the 1 s idle timeout still applies")
        r = subprocess.run([str(KIOSK), "check-config", str(cfg)], capture_output=True, text=True, timeout=10)
        assert r.returncode == 1 and "not a regular file (a FIFO)" in r.stdout


FINGER0 = (0x4F, 0xC3, 0xF7)


def test_a_touch_matrix_turns_touches_as_libinput_would(weston, tmp_path):
    """`[touch] matrix = [-1, 0, 1, 0, 1, 0]` undoes a mirrored x: a finger reported at x = 200
    of 1920 is drawn (and acts) at 1720; a reload back to none puts it where it is reported."""
    with kiosk_with_config(weston, tmp_path, "[shell]\nidle_timeout = 0\n[touch]\nmatrix = [-1, 0, 1, 0, 1, 0]\n",
                           "--scene", "touch") as (k, cfg):
        weston.send("down 0 200 700", "frame")
        wait_until(lambda: count_color(weston.screenshot(), (1660, 640, 1780, 760), FINGER0) > 300, timeout=5,
                   what="the finger's marker where the mirrored report puts it")
        assert count_color(weston.screenshot(), (140, 640, 260, 760), FINGER0) < 50
        weston.send("up 0", "frame")
        cfg.write_text("[shell]\nidle_timeout = 0\n")
        k.proc.send_signal(signal.SIGHUP)
        k.wait_for(r"settings reloaded|reloaded")
        weston.send("down 1 200 700", "frame")
        wait_until(lambda: count_color(weston.screenshot(), (140, 640, 260, 760), (0xFF, 0xB7, 0x4D)) > 300, timeout=5,
                   what="the next finger's marker where it is reported")
        weston.send("up 1", "frame")


def test_phrases_no_installed_font_covers_are_named_once_a_load(weston, tmp_path):
    """こ (U+3053) is in no font this machine has unless a CJK font is installed: fontconfig's
    own answer (fc-list) decides what the kiosk must say."""
    has_cjk = subprocess.run(["fc-list", ":charset=3053"], capture_output=True, text=True).stdout.strip() != ""
    text = '[shell]\nidle_timeout = 0\n[words]\nphrases = ["Hello", "こんにちは"]\n'
    with kiosk_with_config(weston, tmp_path, text, "--scene", "words") as (k, cfg):
        line = f'{cfg}:4:21: words: "こんにちは" has 5 characters no installed font covers (Hiragana); install fonts-noto-cjk'
        if has_cjk:
            time.sleep(1)
            assert "no installed font covers" not in k.stderr
        else:
            k.wait_for(re.escape(line))
            cfg.write_text(text + "# saved again\n")
            k.wait_for(r"settings reloaded")
            k.wait_for(re.escape(line), count=2)
        r = subprocess.run([str(KIOSK), "check-config", str(cfg)], capture_output=True, text=True, timeout=30)
        assert (line in r.stdout) == (not has_cjk) and r.returncode == (0 if has_cjk else 1), r.stdout
