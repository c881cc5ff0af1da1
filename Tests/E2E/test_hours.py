"""End-to-end: opening hours. At closing time the screen goes black and the kiosk stops waking up;
a touch shows the screensaver for a while; the output is turned off where the compositor can."""
import os
import time

import pytest

from harness import Kiosk, wait_until
from test_shell import wait_for_screensaver


def wakeups(pid):
    total = 0
    for task in os.listdir(f"/proc/{pid}/task"):
        with open(f"/proc/{pid}/task/{task}/status") as f:
            total += sum(int(l.split()[1]) for l in f if "voluntary_ctxt_switches" in l)
    return total


def closing_soon(seconds):
    """An [shell] hours spec open since midnight today that closes `seconds` from now (local time)."""
    now = time.localtime()
    if now.tm_hour * 3600 + now.tm_min * 60 + now.tm_sec > 86_400 - seconds - 10:
        time.sleep(seconds + 12)  # not across midnight
    t = time.localtime(time.time() + seconds)
    day = time.strftime("%a", t)
    return f"{day} 00:00-{t.tm_hour:02d}:{t.tm_min:02d}:{t.tm_sec:02d}"


def lit_pixels(img):
    """Pixels that are not black (anything drawn)."""
    return sum(1 for p in img.convert("L").getdata() if p > 8)


def test_closing_time_goes_black_and_silent_and_a_touch_shows_the_screensaver(weston, tmp_path):
    cfg = tmp_path / "kiosk.toml"
    # The wake lasts long enough to be seen on a loaded machine: a screenshot and its count of
    # 2 Mpx in Python take most of a second there, and the first labels must fall into view.
    cfg.write_text(f'[shell]\nhours = "{closing_soon(2)}"\nafter_hours_wake = 8\n')
    env = weston.env(XDG_STATE_HOME=str(tmp_path))
    with Kiosk(weston, "--verbose", "--config", str(cfg), "--scene", "tiles", env=env, protocol=False) as k:
        k.wait_for(r"first frame shown")
        assert lit_pixels(weston.screenshot()) > 10_000, "the tile board is not on screen while open"
        k.wait_for(r"opening hours: closed", timeout=6)
        wait_until(lambda: lit_pixels(weston.screenshot()) == 0, timeout=3, what="a black screen")
        time.sleep(1.0)
        a = wakeups(k.proc.pid)
        time.sleep(3.0)
        assert wakeups(k.proc.pid) == a, "the closed kiosk woke up"
        # Someone touches the black screen: the screensaver for 8 s, then black again.
        weston.send("down 0 960 540", "frame", "up 0", "frame")
        k.wait_for(r"screensaver started", timeout=5)
        wait_for_screensaver(weston, timeout=7, what="the after-hours screensaver")
        k.wait_for(r"screensaver ended", timeout=12)
        wait_until(lambda: lit_pixels(weston.screenshot()) == 0, timeout=5, what="black again")


def test_sway_is_asked_to_turn_the_output_off_at_closing_and_on_for_a_touch(tmp_path):
    """sway offers wlr-output-power-management: what Kiosk asks for, from the protocol log: off at
    closing, on for a touch, off again after. Debian 12's sway 1.7 cannot switch its headless
    output off (it logs "Failed to commit output", for `dpms off` too); Debian 13's sway 1.10
    can, and reports the output off."""
    import re

    from wlroots import Sway, run_kiosk_as_user
    from test_wlroots import config_file

    sway = Sway()
    try:
        cfg = config_file(sway, f'[shell]\nhours = "{closing_soon(2)}"\nafter_hours_wake = 2\n')
        with run_kiosk_as_user(sway, "--scene", "tiles", "--config", cfg, env=sway.env(WAYLAND_DEBUG="client")) as k:
            k.wait_for(r"first frame shown")
            set_mode = r"zwlr_output_power_v1[@#]\d+\.set_mode\((\d)\)"  # libwayland 1.23 writes #
            assert not re.findall(set_mode, k.stderr)
            k.wait_for(r"turning the screen off", timeout=6)
            k.wait_for(set_mode)
            assert "idle inhibitor released" in k.stderr
            # A click (the pointer is a finger) after hours: on, the screensaver, then off again.
            sway.send("pointer 960 540 1920 1080", "button down", "button up")
            k.wait_for(r"turning the screen on")
            k.wait_for(r"turning the screen off", timeout=6, count=2)
            k.wait_for(set_mode, count=3)
            assert re.findall(set_mode, k.stderr) == ["0", "1", "0"]
            from wlroots import WLROOTS_015
            if WLROOTS_015:
                assert "Failed to commit output HEADLESS-1" in sway.log.read_text()  # sway 1.7 tried
            else:  # sway 1.10 switches its headless output off, and says so
                import json
                powered = lambda: [o["power"] for o in json.loads(sway.swaymsg("-t", "get_outputs", "-r"))]
                wait_until(lambda: powered() == [False], timeout=5, what="sway's output off again")
    finally:
        sway.close()


def test_cage_turns_its_output_off_at_closing_and_on_for_a_touch():
    """Debian 13's cage 0.2.0 offers wlr-output-management and no output power management: at
    closing the kiosk disables the output (as `wlr-randr --off` does) and cage reports it
    disabled; a touch turns it on with the screensaver, and after the wake it is off again.
    Debian 12's cage 0.1.4 offers neither protocol (and takes no virtual pointer)."""
    from wlroots import WLROOTS_015, Cage

    if WLROOTS_015:
        pytest.skip("cage 0.1.4 offers no output protocol")
    c = Cage("--scene", "tiles", config=f'[shell]\nhours = "{closing_soon(3)}"\nafter_hours_wake = 4\n')

    def enabled():
        return "Enabled: yes" in c.run("wlr-randr")

    try:
        c.wait_for(r"first frame shown", timeout=15)
        c.send()  # the pointer plugged in before closing
        assert enabled()
        c.wait_for(r"opening hours: closed", timeout=8)
        c.wait_for(r"screen power: by wlr-output-management .* offers no wlr-output-power-management")
        c.wait_for(r"turning the screen off \(wlr-output-management\)")
        wait_until(lambda: not enabled(), timeout=5, what="cage's output disabled")
        time.sleep(1)
        c.send("pointer 640 360 1280 720", "button down", "button up")
        c.wait_for(r"turning the screen on \(wlr-output-management\)")
        wait_until(enabled, timeout=5, what="cage's output enabled for the visitor")
        c.wait_for(r"screensaver started")
        wait_until(lambda: lit_pixels(c.screenshot()) > 1000, timeout=5, what="the after-hours screensaver on screen")
        wait_until(lambda: not enabled(), timeout=10, what="cage's output disabled again after the wake")
        assert not c.exit_file.exists(), "the kiosk ended while its output was off"
    finally:
        c.close()
