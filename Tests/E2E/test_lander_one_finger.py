"""A visitor who uses one finger at a time lands the rocket, live under weston (the strict
compositor flies the lander in test_strict.py; a whole landing there too cost the suite 35 s):
after a pause, a tap on the engine keeps it burning and another stops it; a turn
button is held alone; never two fingers down. The visitor steers by what the screen shows, read
here from the kiosk's flight record (`lander: …` debug lines, ten a second)."""
import re
import time

from harness import Kiosk, views, wait_until

CONFIG = '[shell]\nscenes = ["lander", "tiles"]\nidle_timeout = 0\n'
RECORD = re.compile(r"lander: x (\S+) altitude (\S+) vx (\S+) vy (\S+) heading (\S+) pad (\S+)-(\S+) engine (on|off) (\w+)")


def flight(k):
    """The last flight record: a dict of its numbers, the engine and the outcome."""
    m = None
    for m in RECORD.finditer(k.stderr):
        pass
    if m is None:
        return None
    x, alt, vx, vy, heading, pad0, pad1 = map(float, m.groups()[:7])
    return dict(x=x, altitude=alt, vx=vx, vy=vy, heading=heading, pad=(pad0 + pad1) / 2, engine=m.group(8) == "on",
                outcome=m.group(9))


def test_one_finger_at_a_time_lands_the_rocket(weston, tmp_path):
    compositor = weston
    cfg = tmp_path / "kiosk.toml"
    cfg.write_text(CONFIG)
    k = Kiosk(compositor, "--verbose", "--config", str(cfg), "--scene", "lander",
              env=compositor.env(XDG_STATE_HOME=str(tmp_path)), protocol=False)
    with k:
        k.wait_for(r"view: fire engine")
        k.wait_for(r"lander: x ")
        v = views(k)
        centre = {name: (round(x + w / 2), round(y + h / 2)) for name, (x, y, w, h) in v.items()}
        fire, port, starboard = centre["fire engine"], centre["turn port"], centre["turn starboard"]
        time.sleep(2)  # the visitor arrives after a pause
        held = None
        taps = 0

        def down(at):
            compositor.send(f"down 0 {at[0]} {at[1]}", "frame")

        def up():
            compositor.send("up 0", "frame")

        deadline = time.monotonic() + 150
        while time.monotonic() < deadline:
            f = flight(k)
            if f["outcome"] != "flying":
                break
            # Over the pad: upright and sinking slowly; on the way: leaning toward it.
            want_vx = max(-3, min(3, (f["pad"] - f["x"]) * 0.25))
            near = f["altitude"] < 12 or abs(f["pad"] - f["x"]) < 1
            want_heading = -f["vx"] * 0.15 if near else max(-0.35, min(0.35, (want_vx - f["vx"]) * 0.3))
            want_vy = -4.0 if f["altitude"] > 30 else -max(0.8, f["altitude"] * 0.12)
            needs_engine = True if f["vy"] < want_vy - 0.4 else False if f["vy"] > want_vy + 0.4 else f["engine"]
            if needs_engine != f["engine"]:
                if held:
                    up()
                    held = None
                down(fire)
                time.sleep(0.05)
                up()
                taps += 1
                wanted = "on" if needs_engine else "off"
                wait_until(lambda: (flight(k) or {}).get("engine") == needs_engine or flight(k)["outcome"] != "flying",
                           timeout=3, what=f"the engine {wanted}")
                continue
            error = want_heading - f["heading"]
            turn = None if abs(error) < 0.06 else starboard if error > 0 else port
            if turn != held:
                if held:
                    up()
                if turn:
                    down(turn)
                held = turn
            time.sleep(0.05)
        if held:
            up()
        final = flight(k)
        assert final["outcome"] == "landed", f"the flight ended {final}"
        assert taps >= 2, "the engine was tapped on and off"
        # Each tap lasts 50 ms; the engine burnt on for seconds of records after the finger lifted.
        burning = sum(1 for m in RECORD.finditer(k.stderr) if m.group(8) == "on")
        assert burning >= 10, f"the engine burnt in {burning} records"
        if hasattr(compositor, "screenshot"):
            time.sleep(0.5)
            compositor.screenshot().save(tmp_path / "landed.png")
