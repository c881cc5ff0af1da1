"""A panel turned by hand: the kiosk follows its accelerometer as iio-sensor-proxy reports it,
tested the way Debian tests such programs, with python3-dbusmock's iio-sensor-proxy on a system
bus of its own (Tests/E2E/sensors.py). Under weston (the input module's touches) and cage (grim's
captures; cage 0.2.0's virtual pointer as a finger), the mock turns the panel left-up, right-up,
bottom-up and back to normal: each time the picture, turned back as a person standing at the
turned panel sees it, is what `kiosk snapshot` draws at that shape, and a tap where the snapshot
has the Lander pill shows the lander."""
import re
import subprocess
import time

import pytest
from PIL import Image, ImageChops

from harness import KIOSK, Kiosk, Weston, wait_until
from sensors import SensorBus
from wlroots import WLROOTS_015, Cage, kiosk_binary

# The panel's reading, the clockwise turn that stands the picture upright, and the shape.
TURNS = [("left-up", 270, "portrait-upside-down"), ("right-up", 90, "portrait"),
         ("bottom-up", 180, "landscape-upside-down"), ("normal", 0, "landscape")]
IDLE = "[shell]\nidle_timeout = 0\n"


def snapshot(binary, scene, size, out):
    """`kiosk snapshot` of `scene` under the scene bar at `size`, and where its controls are."""
    path = out / f"snapshot-{scene}-{size[0]}x{size[1]}.png"
    r = subprocess.run([str(binary), "snapshot", "--scene", scene, "--size", f"{size[0]}x{size[1]}", "--scene-bar",
                        "--views", "--out", str(path)], check=True, capture_output=True, text=True, timeout=60)
    views = {m.group(1): tuple(float(v) for v in m.groups()[1:])
             for m in re.finditer(r"view: (.+) at ([-\d.]+),([-\d.]+) size ([\d.]+)x([\d.]+)", r.stdout)}
    with Image.open(path) as im:
        return im.convert("RGB"), views


def differing(a, b, threshold=24):
    assert a.size == b.size, f"{a.size} vs {b.size}"
    d = ImageChops.difference(a, b).convert("L").point(lambda v: 255 if v > threshold else 0)
    return d.histogram()[255] / (a.width * a.height)


def on_glass(point, degrees, window):
    """A point of the scene (laid out turned `degrees` clockwise) on the window of `window` size."""
    x, y = point
    w, h = window
    return {0: (x, y), 90: (w - y, x), 180: (w - x, h - y), 270: (y, h - x)}[degrees]


def scene_size(degrees, window):
    return window if degrees in (0, 180) else (window[1], window[0])


def centre(box):
    x, y, w, h = box
    return x + w / 2, y + h / 2


def walk_the_turns(bus, screen, tap, log, binary, tmp_path, window):
    """Each turn of TURNS: the journal's line, the picture upright for a person at the turned
    panel, then a tap on the Lander pill (and back to the tiles by their pill)."""
    seen = {}
    for reading, degrees, shape in TURNS:
        before = log().count(f"the picture turned {degrees}°")
        bus.turn(reading)
        wait_until(lambda: log().count(f"the picture turned {degrees}° ({shape})") > before, timeout=10,
                   what=f"the kiosk turned for {reading}:\n{log()[-2000:]}")
        want, views = snapshot(binary, "tiles", scene_size(degrees, window), tmp_path)
        got = {}

        def upright():
            # A person at the panel turned `reading` sees the glass turned back (PIL: counter-clockwise).
            got["img"] = screen().rotate(degrees, expand=True)
            return differing(got["img"], want) < 0.002
        wait_until(upright, timeout=10, what=f"{reading}: the tiles upright as kiosk snapshot draws them")
        got["img"].save(tmp_path / f"turned-{reading}.png")
        seen[reading] = got["img"]
        if tap is None:
            continue
        shown = log().count("scene: lander")
        tap(*on_glass(centre(views["scene bar lander"]), degrees, window))
        wait_until(lambda: log().count("scene: lander") > shown, timeout=10, what=f"{reading}: the lander after a tap on its pill")
        shown = log().count("scene: tiles")
        tap(*on_glass(centre(views["scene bar tiles"]), degrees, window))
        wait_until(lambda: log().count("scene: tiles") > shown, timeout=10, what=f"{reading}: the tiles again")
    return seen


def test_weston_turned_left_right_and_upside_down_follows_and_takes_taps_where_it_draws(tmp_path):
    bus = SensorBus(orientation="normal")
    w = Weston(width=1280, height=800)
    config = tmp_path / "kiosk.toml"
    config.write_text(IDLE)
    try:
        k = Kiosk(w, "--verbose", "--scene", "tiles", "--config", str(config), env=dict(w.env(), **bus.env))
        k.wait_for(r"first frame shown", timeout=20)
        k.wait_for(r"rotation: following the panel's accelerometer \(iio-sensor-proxy\) among landscape, portrait, "
                   r"landscape-upside-down, portrait-upside-down", timeout=10)
        assert len(bus.claimants()) == 1, "the kiosk claimed the accelerometer"

        def tap(x, y):
            w.send(f"down 0 {x:.0f} {y:.0f}", "up 0")
        walk_the_turns(bus, w.screenshot, tap, lambda: k.stderr, KIOSK, tmp_path, (1280, 800))
        assert k.proc.poll() is None
    finally:
        k.close()
        w.close()
        bus.close()


def test_cage_turned_left_right_and_upside_down_follows(tmp_path):
    """cage 0.1.4 offers no virtual pointer: there the pictures alone; cage 0.2.0 takes the taps."""
    bus = SensorBus(orientation="normal")
    c = Cage("--scene", "tiles", config=IDLE, env=bus.env)
    try:
        c.wait_for(r"first frame shown", timeout=20)
        c.wait_for(r"rotation: following the panel's accelerometer", timeout=10)

        def tap(x, y):
            c.send(f"pointer {x:.0f} {y:.0f} {Cage.size[0]} {Cage.size[1]}", "button down", "button up")
        walk_the_turns(bus, c.screenshot, None if WLROOTS_015 else tap, lambda: c.stderr, kiosk_binary(), tmp_path, Cage.size)
    finally:
        c.close()
        bus.close()


def test_a_finger_down_across_a_turn_presses_nothing(tmp_path):
    """A visitor's finger on the Lander pill while the panel is turned: the pill moved from under
    it, so its lift shows no lander (the touch was cancelled at the turn)."""
    bus = SensorBus(orientation="normal")
    w = Weston(width=1280, height=800)
    try:
        k = Kiosk(w, "--verbose", "--scene", "tiles", env=dict(w.env(), **bus.env))
        k.wait_for(r"first frame shown", timeout=20)
        k.wait_for(r"rotation: following", timeout=10)
        _, views = snapshot(KIOSK, "tiles", (1280, 800), tmp_path)
        x, y = centre(views["scene bar lander"])
        w.send(f"down 0 {x:.0f} {y:.0f}")
        bus.turn("bottom-up")
        wait_until(lambda: "the picture turned 180°" in k.stderr, timeout=10, what="the turn")
        # The lift lands where, turned, the Lander pill is no more.
        w.send("up 0")
        k.wait_for(r"\b0 cancelled|touch: 0 ended", timeout=5)
        time.sleep(1)
        assert "scene: lander" not in k.stderr, "a finger down across the turn pressed the pill"
    finally:
        k.close()
        w.close()
        bus.close()


@pytest.mark.parametrize("what", ["no proxy", "no accelerometer"])
def test_without_a_sensor_nothing_turns_and_the_journal_says_which_once(what, tmp_path):
    bus = SensorBus(proxy=what != "no proxy", accelerometer=False)
    w = Weston(width=1280, height=800)
    try:
        k = Kiosk(w, "--verbose", "--scene", "tiles", env=dict(w.env(), **bus.env))
        k.wait_for(r"first frame shown", timeout=20)
        line = {"no proxy": r"rotation: no iio-sensor-proxy on the system bus \(org\.freedesktop\.DBus\.Error\.ServiceUnknown",
                "no accelerometer": r"rotation: iio-sensor-proxy has no accelerometer on this panel"}[what]
        k.wait_for(line, timeout=10)
        if what == "no proxy":
            # iio-sensor-proxy started later (udev starts it when it finds a sensor): followed then.
            bus.start_proxy(accelerometer=True, orientation="right-up")
            k.wait_for(r"the picture turned 90° \(portrait\)", timeout=10)
        time.sleep(1)
        assert len(re.findall(line, k.stderr)) == 1, "said once"
    finally:
        k.close()
        w.close()
        bus.close()


def test_a_fixed_rotate_wins_over_the_accelerometer(tmp_path):
    bus = SensorBus(orientation="left-up")
    w = Weston(width=1280, height=800)
    config = tmp_path / "kiosk.toml"
    config.write_text("[shell]\nrotate = 180\n")
    try:
        k = Kiosk(w, "--verbose", "--scene", "tiles", "--config", str(config), env=dict(w.env(), **bus.env))
        k.wait_for(r"first frame shown", timeout=20)
        k.wait_for(r"rotation: \[shell\] rotate = 180 fixes the picture", timeout=10)
        bus.turn("right-up")
        time.sleep(2)
        assert "the picture turned" not in k.stderr
        # The line taken out of the file while the kiosk runs: the panel's reading again.
        config.write_text("[shell]\n")
        k.wait_for(r"the picture turned 90°|rotation: following", timeout=10)
        wait_until(lambda: "turned 90°" in k.stderr, timeout=10, what="following right-up again")
    finally:
        k.close()
        w.close()
        bus.close()


def test_the_setup_and_the_screensaver_turn_too(tmp_path):
    """A fresh panel standing right-up shows its first-start setup in portrait, as `kiosk
    snapshot` draws the setup at that shape, and turned back upright when the panel is; the
    screensaver, shown later, is laid out anew at each turn too."""
    bus = SensorBus(orientation="right-up")
    w = Weston(width=1280, height=800)
    try:
        k = Kiosk(w, "--verbose", env=dict(w.env(), **bus.env))
        k.wait_for(r"setup: no PIN and no setup yet", timeout=20)
        k.wait_for(r"the picture turned 90° \(portrait\)", timeout=10)
        for degrees, reading in [(90, None), (0, "normal")]:
            if reading:
                bus.turn(reading)
                k.wait_for(rf"the picture turned {degrees}°", timeout=10)
            path = tmp_path / f"setup-{degrees}.png"
            size = scene_size(degrees, (1280, 800))
            subprocess.run([str(KIOSK), "snapshot", "--scene", "setup", "--size", f"{size[0]}x{size[1]}", "--out", str(path)],
                           check=True, capture_output=True, timeout=60)
            with Image.open(path) as im:
                want = im.convert("RGB")
            got = {}

            def upright():
                got["img"] = w.screenshot().rotate(degrees, expand=True)
                return differing(got["img"], want) < 0.002
            wait_until(upright, timeout=10, what=f"the setup upright at {degrees}°")
            got["img"].save(tmp_path / f"turned-setup-{degrees}.png")
        k.close()
        # The screensaver, turned while it shows: laid out at the turned shape.
        s = Kiosk(w, "--verbose", "--screensaver", env=dict(w.env(), **bus.env))
        s.wait_for(r"first frame shown", timeout=20)
        bus.turn("left-up")
        s.wait_for(r"turned 270°: the scene laid out at 800x1280 points", timeout=10)
        assert s.proc.poll() is None
        time.sleep(2)
        w.screenshot().rotate(270, expand=True).save(tmp_path / "turned-screensaver-270.png")
        s.close()
    finally:
        k.close()
        w.close()
        bus.close()
