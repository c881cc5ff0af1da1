"""A visitor who cannot see the screen, live under weston and the strict compositor: after a
pause, two fingers tapped three times turn speech on; a finger slid along the scene bar hears
each pill; a double tap anywhere chooses the one last heard. What the kiosk says is in its debug
log (`speech (en): …`) until it has a voice of its own."""
import re
import time

from harness import Kiosk, views

CONFIG = '[shell]\nscenes = ["lander", "tiles"]\nidle_timeout = 0\n'


def two_finger_tap(c, x, y):
    c.send(f"down 1 {x} {y}", f"down 2 {x + 80} {y}", "frame")
    time.sleep(0.06)
    c.send("up 1", "up 2", "frame")


def centre(k, label):
    x, y, w, h = views(k)[label]
    return round(x + w / 2), round(y + h / 2)


def test_speech_on_by_the_gesture_the_bar_explored_and_tiles_chosen_by_a_double_tap(compositor, tmp_path):
    cfg = tmp_path / "kiosk.toml"
    cfg.write_text(CONFIG)
    k = Kiosk(compositor, "--verbose", "--config", str(cfg), "--scene", "lander",
              env=compositor.env(XDG_STATE_HOME=str(tmp_path)), protocol=False)
    with k:
        k.wait_for(r"first frame shown")
        k.wait_for(r"view: scene bar tiles")
        time.sleep(2)  # the visitor arrives after a pause
        for _ in range(3):
            two_finger_tap(compositor, 900, 600)
            time.sleep(0.15)
        k.wait_for(re.escape("speech (en): Speech on."))

        (x0, y0), (x1, y1) = centre(k, "scene bar lander"), centre(k, "scene bar tiles")
        compositor.send(f"down 0 {x0} {y0}", "frame")
        for i in range(1, 21):
            time.sleep(0.05)
            compositor.send(f"motion 0 {x0 + (x1 - x0) * i // 20} {y0}", "frame")
        time.sleep(0.3)
        compositor.send("up 0", "frame")
        k.wait_for(re.escape("speech (en): Lander, scene, selected"))
        k.wait_for(re.escape("speech (en): Tiles, scene"))
        assert "scene: tiles" not in k.stderr, "exploring pressed the pill"

        time.sleep(1)
        for _ in range(2):
            compositor.send("down 0 700 700", "frame")
            time.sleep(0.05)
            compositor.send("up 0", "frame")
            time.sleep(0.12)
        k.wait_for(r"scene: tiles")
        spoken = re.findall(r"speech \(en\): (.*)", k.stderr)
        assert spoken[:3] == ["Speech on. Touch the screen to hear what is there; double-tap to choose it. "
                              "Tap three times with two fingers to turn speech off.",
                              "Lander, scene, selected", "Tiles, scene"], spoken
