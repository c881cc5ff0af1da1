"""Every gesture a visitor or an operator makes, performed live with real timing under weston and
under the strict compositor: once as the first input after 2 s without any (visitors arrive
after minutes of nothing; no frame is drawn meanwhile), and once right after another gesture.
Each must be recognized — the kiosk's debug log names what its recognizers saw
(`gesture: swipe right recognized`) and where its labelled controls are (`view: …`)."""
import re
import time

from harness import Kiosk, Strict, views

ESCAPE = 1
F1, F2 = 59, 60
# The touch test first in the bar, as on a bench: F2 and the edge swipe reach the lander.
PIN = '[shell]\nscenes = ["touch", "lander", "tiles"]\n[admin]\npin = "2580"\n'


def centre(k, label):
    x, y, w, h = views(k)[label]
    return round(x + w / 2), round(y + h / 2)


def stroke(c, finger, start, end, steps=4, step_time=0.02):
    """One finger from `start` to `end` in `steps` moves, `step_time` apart."""
    (x0, y0), (x1, y1) = start, end
    c.send(f"down {finger} {x0} {y0}", "frame")
    for i in range(1, steps + 1):
        time.sleep(step_time)
        c.send(f"motion {finger} {x0 + (x1 - x0) * i // steps} {y0 + (y1 - y0) * i // steps}", "frame")
    c.send(f"up {finger}", "frame")


def tap(c, k):
    x, y = centre(k, "small target")
    c.send(f"down 0 {x} {y}", "frame")
    time.sleep(0.05)
    c.send("up 0", "frame")


def hold(c, k):
    x, y = centre(k, "hold button")
    c.send(f"down 0 {x} {y}", "frame")
    time.sleep(1.3)
    c.send("up 0", "frame")


def drag(c, k):
    x, y = centre(k, "follower")
    stroke(c, 0, (x, y), (x - 60, y + 40), steps=6)


def pinch_and_turn(c, k):
    x, y = centre(k, "spinner")
    c.send(f"down 1 {x - 40} {y}", f"down 2 {x + 40} {y}", "frame")
    for i in range(1, 7):
        time.sleep(0.02)
        c.send(f"motion 1 {x - 40 - 4 * i} {y - 4 * i}", f"motion 2 {x + 40 + 4 * i} {y + 4 * i}", "frame")
    c.send("up 1", "up 2", "frame")


def swipe(direction):
    ends = {"right": (1120, 600), "left": (480, 600), "down": (800, 920), "up": (800, 280)}

    def perform(c, k):
        stroke(c, 0, (800, 600), ends[direction], step_time=0.025)
    return perform


def once_more(k, line, action):
    """Does `action`, then waits for `line` in the log once more than before it."""
    n = k.stderr.count(line)
    action()
    k.wait_for(re.escape(line), count=n + 1)


def to_lander(c, k):
    once_more(k, "scene: lander", lambda: c.send(f"key {F2}"))
    time.sleep(0.5)  # the cross-fade


def back_to_the_touch_test(c, k):
    c.send(f"key {F1}")
    time.sleep(0.5)


def double_tap(c, k):
    """Two taps on the lander's sky: a new flight."""
    for finger in (0, 1):
        c.send(f"down {finger} 500 350", "frame")
        time.sleep(0.05)
        c.send(f"up {finger}", "frame")
        time.sleep(0.1)


def edge_swipes(c, k):
    """In from the right (the next scene), then in from the left (back to the touch test)."""
    once_more(k, "scene: lander", lambda: stroke(c, 0, (1918, 950), (1700, 950)))
    time.sleep(0.4)  # the cross-fade
    stroke(c, 0, (1, 950), (220, 950))


def admin_hold(c, k):
    def hold_three():
        c.send("down 1 40 40", "down 2 100 60", "down 3 60 110", "frame")
        time.sleep(3.3)
        c.send("up 1", "up 2", "up 3", "frame")
    once_more(k, "admin panel opened", hold_three)
    once_more(k, "admin panel closed", lambda: c.send(f"key {ESCAPE}"))


def nothing(c, k):
    pass


# What each gesture must make the recognizers say (each line once more than before); what is
# done before the pause (to reach its scene) and after it.
GESTURES = [
    ("tap", nothing, tap, ["tap recognized"], nothing),
    ("hold", nothing, hold, ["hold began"], nothing),
    ("drag", nothing, drag, ["drag began"], nothing),
    ("pinch and turn", nothing, pinch_and_turn, ["pinch began", "rotate began"], nothing),
    *[(f"swipe {d}", nothing, swipe(d), [f"swipe {d} recognized"], nothing) for d in ("right", "left", "down", "up")],
    ("double tap", to_lander, double_tap, ["double tap recognized"], back_to_the_touch_test),
    ("edge swipes", nothing, edge_swipes, ["edge swipe from the right began", "edge swipe from the left began"], nothing),
    ("admin hold", nothing, admin_hold, ["admin hold began"], nothing),
]


def test_every_gesture_first_after_a_pause_and_right_after_another(compositor, tmp_path):
    cfg = tmp_path / "kiosk.toml"
    cfg.write_text(PIN)
    k = Kiosk(compositor, "--verbose", "--config", str(cfg), "--scene", "touch", "--idle-timeout", "0",
              env=compositor.env(XDG_STATE_HOME=str(tmp_path)), protocol=False)
    try:
        k.wait_for(r"first frame shown")
        k.wait_for(r"view: small target")
        missed = []
        for pause in (2.0, 0.0):
            for name, setup, perform, said, teardown in GESTURES:
                setup(compositor, k)
                before = {s: k.stderr.count(f"gesture: {s}") for s in said}
                time.sleep(pause)
                perform(compositor, k)
                for s in said:
                    try:
                        k.wait_for(re.escape(f"gesture: {s}"), count=before[s] + 1, timeout=5)
                    except Exception:
                        missed.append(f"{name} ({'after a pause' if pause else 'right after another'}): no '{s}'")
                teardown(compositor, k)
                time.sleep(0.3 if not pause else 0)
        assert not missed, "\n".join(missed) + "\n" + "\n".join(l for l in k.stderr.splitlines() if "gesture:" in l)
        if isinstance(compositor, Strict):
            compositor.assert_clean()
        assert k.proc.poll() is None
    finally:
        k.close()
