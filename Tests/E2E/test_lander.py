"""End-to-end: the Lander under a real weston: thrust climbs, and a restart keeps the flight."""
import json
import signal
import tempfile
import time
from pathlib import Path

from harness import Kiosk, wait_until

# Where the rocket flies, above the ground and the pad, below the scene bar, and clear of the
# readout on the left (its light text would pass for the rocket).
SHIP_BOX = (760, 60, 1160, 700)


def ship_top(img):
    """The topmost row of the white rocket in the flight area, or None."""
    x0, y0, x1, y1 = SHIP_BOX
    crop = img.crop(SHIP_BOX)
    w, h = crop.size
    px = crop.load()
    for y in range(0, h, 2):
        for x in range(0, w, 3):
            r, g, b = px[x, y]
            if r > 200 and g > 200 and b > 200:
                return y + y0
    return None


def pad_centre():
    # Right-hand corner, 24 pt margins; buttons 64 pt (16 mm at 96 dpi = 60.5 → 64 minimum),
    # gaps 9.4 pt, grip 34 pt (9 mm, a fingertip; see ControlPad.layout).
    mm = 96 / 25.4
    side, gap, grip = max(64, 16 * mm), max(8, 2.5 * mm), max(34, 9 * mm)
    width, height = 3 * side + 2 * gap, grip + gap + side
    x0, y0 = 1920 - 24 - width, 1080 - 24 - height
    return x0 + side + gap + side / 2, y0 + grip + gap + side / 2


def test_thrust_makes_the_ship_climb_and_a_restart_keeps_the_flight(weston):
    state = Path(tempfile.mkdtemp(prefix="kiosk-state-"))
    env = weston.env(XDG_STATE_HOME=str(state))
    k = Kiosk(weston, "--verbose", "--scene", "lander", env=env, protocol=False)
    try:
        k.wait_for(r"first frame shown")
        fx, fy = pad_centre()
        weston.send(f"down 0 {fx:.0f} {fy:.0f}", "frame")
        k.wait_for(r"touch: 0 began")
        time.sleep(0.3)
        a = ship_top(weston.screenshot())
        time.sleep(1.2)
        b = ship_top(weston.screenshot())
        assert a is not None and b is not None
        assert b < a - 10, f"the ship did not climb: top {a} → {b}"
        weston.send("up 0")
        k.wait_for(r"\b0 ended")
        k.proc.send_signal(signal.SIGTERM)
        assert k.wait_exit(timeout=2) == 0
    finally:
        k.close()
    saved = json.loads((state / "kiosk" / "lander.json").read_text())
    assert saved["version"] == 1 and saved["flight"]["fuel"] < 100
    assert (state / "kiosk" / "lander.json").stat().st_mode & 0o777 == 0o600

    k2 = Kiosk(weston, "--verbose", "--scene", "lander", env=env, protocol=False)
    try:
        k2.wait_for(r"first frame shown")
        # The restored flight shows the fuel that was used, not a fresh tank.
        fuel = round(saved["flight"]["fuel"])
        img = weston.screenshot()
        assert ship_top(img) is not None
        assert "saved" not in k2.stderr and "damaged" not in k2.stderr, k2.stderr
        k2.proc.send_signal(signal.SIGTERM)
        assert k2.wait_exit(timeout=2) == 0
        again = json.loads((state / "kiosk" / "lander.json").read_text())
        assert again["flight"]["fuel"] <= saved["flight"]["fuel"] + 1e-9
        assert fuel < 100
    finally:
        k2.close()


def test_compositor_loss_saves_the_flight_before_exiting_one():
    # No input, so no save was due yet: only the exit path can have written the flight.
    from harness import Weston
    w = Weston()
    state = Path(tempfile.mkdtemp(prefix="kiosk-state-"))
    k = Kiosk(w, "--verbose", "--scene", "lander", env=w.env(XDG_STATE_HOME=str(state)), protocol=False)
    try:
        k.wait_for(r"first frame shown")
        time.sleep(1.0)  # the ship falls
        assert not (state / "kiosk" / "lander.json").exists()
        w.kill()
        assert k.wait_exit(timeout=5) == 1
        assert "lost the connection to the compositor" in k.stderr.strip().splitlines()[-1]
        saved = json.loads((state / "kiosk" / "lander.json").read_text())
        assert saved["flight"]["vy"] != 0  # a flight in progress, not a fresh one
        assert json.loads((state / "kiosk" / "shell.json").read_text())["scene"] == "lander"
    finally:
        k.close()
        w.close()
