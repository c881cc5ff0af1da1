"""A visitor with low vision, live: under weston and the strict compositor, after a pause, one
tap on the scene bar's "aA" pill turns the large high-contrast mode on — the scene laid out
again at half the points, surfaces black — and a tap lands where the now larger pill is seen.
Under cage (wlroots), a site that makes the mode its default shows exactly what `kiosk snapshot
--large` draws."""
import re
import time

from PIL import Image

from harness import Kiosk, views, wait_until

CONFIG = '[shell]\nscenes = ["lander", "tiles"]\nidle_timeout = 0\n'


def commonest(img: Image.Image):
    return max(img.getcolors(img.width * img.height))[1]


def tap(c, x, y):
    c.send(f"down 0 {x} {y}", "frame")
    time.sleep(0.05)
    c.send("up 0", "frame")


def test_the_pill_turns_the_large_mode_on_and_touches_land_where_things_are_seen(compositor, tmp_path):
    cfg = tmp_path / "kiosk.toml"
    cfg.write_text(CONFIG)
    k = Kiosk(compositor, "--verbose", "--config", str(cfg), "--scene", "tiles",
              env=compositor.env(XDG_STATE_HOME=str(tmp_path)), protocol=False)
    with k:
        k.wait_for(r"first frame shown")
        k.wait_for(r"view: scene bar large")
        before = views(k)
        # The strict compositor takes no screenshots; weston's are looked at.
        looks = hasattr(compositor, "screenshot")
        if looks:
            assert commonest(compositor.screenshot()) != (0, 0, 0), "the usual mode's surfaces are not black"
        time.sleep(2)  # the visitor arrives after a pause
        x, y, w, h = before["scene bar large"]
        tap(compositor, round(x + w / 2), round(y + h / 2))
        k.wait_for(re.escape("large mode on: the scene laid out at 960x540 points, scale 2"))
        wait_until(lambda: "tiles refill" in views(k, since="large mode on"), timeout=5, what="the views laid out anew")
        after = views(k, since="large mode on")
        # The pills in scene points, twice as large in pixels: at least as tall in points.
        assert after["scene bar lander"][3] >= before["scene bar lander"][3]
        time.sleep(1)  # the tiles slide into their new places
        if looks:
            shot = compositor.screenshot()
            shot.save(tmp_path / "large-tiles.png")
            assert commonest(shot) == (0, 0, 0), "surfaces are black in high contrast"
        # A tap where the Lander pill is seen: window points are twice the scene's.
        x, y, w, h = after["scene bar lander"]
        tap(compositor, round((x + w / 2) * 2), round((y + h / 2) * 2))
        k.wait_for(r"scene: lander")
        time.sleep(1)
        if looks:
            compositor.screenshot().save(tmp_path / "large-lander.png")


def test_cage_a_sites_large_default_is_what_the_snapshot_draws(tmp_path):
    """The kiosk as cage's child with `[access] large = true`: the capture (grim) equals the
    headless render of the same mode, pixel for pixel."""
    from test_wlroots import assert_same
    from wlroots import Cage, kiosk_binary
    import subprocess

    c = Cage("--scene", "tiles", config="[shell]\nidle_timeout = 0\n[access]\nlarge = true\n")
    try:
        c.wait_for(r"first frame shown")
        c.wait_for(r"large mode on")
        path = tmp_path / "snapshot-large-tiles.png"
        subprocess.run([str(kiosk_binary()), "snapshot", "--scene", "tiles", "--scene-bar", "--large", "--at", "2",
                        "--size", f"{Cage.size[0]}x{Cage.size[1]}", "--out", str(path)], check=True, timeout=30)
        time.sleep(2)
        shot = c.screenshot()
        shot.save(tmp_path / "cage-large-tiles.png")
        with Image.open(path) as want:
            assert_same(shot, want.convert("RGB"), "cage, tiles in the large mode")
    finally:
        c.close()
