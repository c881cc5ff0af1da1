"""Visitors' languages under weston: the pill at the end of the scene bar switches every scene
live (Arabic mirrors the layout), the next fresh start brings the kiosk's own language back, and
bad language settings are one line each with the defaults kept. The kiosk's debug log says where
its labelled controls are (`view: …`) after each lift, and which language a visitor chose."""
from pathlib import Path

import pytest

from harness import KIOSK, Kiosk, views, wait_until
from test_setup import H, W, tap, tap_label

CONFIG = """[shell]
idle_timeout = 5
languages = ["en", "fr", "ar"]
start = "tiles"
[admin]
pin = "2580"
"""


def start(weston, tmp_path, config):
    cfg = tmp_path / "kiosk.toml"
    cfg.write_text(config)
    k = Kiosk(weston, "--verbose", "--config", str(cfg), env=weston.env(XDG_STATE_HOME=str(tmp_path / "state"), LANG="C.UTF-8"),
              protocol=False)
    k.wait_for(r"first frame shown", timeout=20)
    return k


def x_of(v, label):
    x, _, w, _ = v[label]
    return x + w / 2


def settle(weston, k, since):
    """A harmless tap below everything (the views are logged after each lift), then where the
    controls are since `since`."""
    tap(weston, (W // 2, H - 2))
    wait_until(lambda: "tiles remove" in views(k, since=since) or "lander help" in views(k, since=since), timeout=5,
               what="the kiosk to log its controls")
    return views(k, since=since)


def test_the_pill_switches_every_scene_live_and_a_fresh_start_brings_the_default_back(weston, tmp_path):
    k = start(weston, tmp_path, CONFIG)
    v = settle(weston, k, "first frame shown")
    assert x_of(v, "scene bar lander") < x_of(v, "scene bar tiles") < x_of(v, "scene bar language")
    assert x_of(v, "tiles remove") < x_of(v, "tiles refill")

    tap_label(weston, k, "scene bar language")
    k.wait_for(r"language: fr \(Français\), chosen by a visitor", timeout=5)
    tap_label(weston, k, "scene bar language")
    k.wait_for(r"language: ar", timeout=5)
    v = settle(weston, k, "language: ar")
    # Arabic reads from the right: the first scene there, the pill on the left, Remove on the right.
    assert x_of(v, "scene bar lander") > x_of(v, "scene bar tiles") > x_of(v, "scene bar language"), v
    assert x_of(v, "tiles remove") > x_of(v, "tiles refill"), v
    weston.screenshot().save("/tmp/languages-tiles-ar.png")

    # A scene not shown yet comes in Arabic too: the help on the left, the pad on the left.
    tap_label(weston, k, "scene bar lander")
    k.wait_for(r"scene: lander", timeout=5)
    v = settle(weston, k, "scene: lander")
    assert x_of(v, "lander help") < W / 2 and x_of(v, "move the controls") < W / 2, v
    weston.screenshot().save("/tmp/languages-lander-ar.png")

    # Nobody here: the screensaver; the touch that wakes it finds English and the start scene.
    k.wait_for(r"screensaver started", timeout=15)
    tap(weston, (W // 2, H // 2))
    k.wait_for(r"screensaver ended", timeout=5)
    v = settle(weston, k, "screensaver ended")
    assert x_of(v, "scene bar lander") < x_of(v, "scene bar tiles") < x_of(v, "scene bar language"), v
    assert x_of(v, "tiles remove") < x_of(v, "tiles refill"), v
    assert "chosen by a visitor" not in k.stderr.split("screensaver ended")[-1]


def test_an_unknown_language_or_text_is_one_line_and_the_defaults(weston, tmp_path):
    k = start(weston, tmp_path, '[shell]\nlanguage = "xx"\nstart = "tiles"\n[text]\n"tiles.hnit" = "Touchez"\n'
                                '"tiles.refill" = "Remplir"\n[admin]\npin = "2580"\n')
    err = k.stderr
    assert "kiosk.toml:2:12: language must be one of en, ar, de, es, fr, ja (another: a catalog in /etc/kiosk/locale); using en" in err
    assert "kiosk.toml:5:1: unknown text 'tiles.hnit' (did you mean 'tiles.hint'?)" in err
    # The rest applies: the kiosk runs in English with the operator's own word for Refill.
    v = settle(weston, k, "first frame shown")
    assert x_of(v, "tiles remove") < x_of(v, "tiles refill")
    assert k.proc.poll() is None


def portuguese(kiosk_bin, folder):
    """pt.po the README's way: `kiosk texts --pot`, gettext's msginit, a few texts translated."""
    import re
    import subprocess
    folder.mkdir()
    (folder / "kiosk.pot").write_text(subprocess.run([kiosk_bin, "texts", "--pot"], capture_output=True, text=True, check=True).stdout)
    subprocess.run(["msginit", "--no-translator", "-l", "pt_PT", "-i", "kiosk.pot", "-o", "pt.po"], cwd=folder, check=True,
                   capture_output=True)
    po = (folder / "pt.po").read_text()
    for key, text in [("scene.lander", "Alunagem"), ("scene.tiles", "Peças"), ("tiles.refill", "Repor"), ("tiles.remove", "Remover")]:
        po = re.sub(r'(msgctxt "%s"\nmsgid "[^"]*"\nmsgstr )""' % re.escape(key), r'\1"%s"' % text, po)
    (folder / "pt.po").write_text(po.replace("X-Kiosk-Language-Name: \\n", "X-Kiosk-Language-Name: Português\\n"))
    (folder / "kiosk.pot").unlink()


def test_an_operators_catalog_is_a_language_visitors_can_choose(weston, tmp_path):
    locale = tmp_path / "locale"
    portuguese(str(KIOSK), locale)
    cfg = tmp_path / "kiosk.toml"
    cfg.write_text('[shell]\nlanguage = "pt"\nlanguages = ["pt", "en"]\nstart = "tiles"\n[admin]\npin = "2580"\n')
    k = Kiosk(weston, "--verbose", "--config", str(cfg), protocol=False,
              env=weston.env(XDG_STATE_HOME=str(tmp_path / "state"), LANG="C.UTF-8", KIOSK_LOCALE_DIR=str(locale)))
    k.wait_for(r"first frame shown", timeout=20)
    assert "language: pt (Português); visitors may switch to en" in k.stderr
    assert f"{locale}/pt.po: 128 of 132 texts not translated (shown in English): access.button" in k.stderr
    v = settle(weston, k, "first frame shown")
    weston.screenshot().save("/tmp/languages-tiles-pt.png")
    assert "tiles remove" in v
    tap_label(weston, k, "scene bar language")
    k.wait_for(r"language: en \(English\), chosen by a visitor", timeout=5)
    # A broken catalog pushed while it runs: one line, English, the kiosk goes on.
    (locale / "pt.po").write_text('msgctxt "scene.tiles"\nmsgid "Tiles"\nmsgstr "Peças\n')
    cfg.write_text(cfg.read_text() + "# touched\n")
    k.wait_for(rf"{locale}/pt.po:3: a string in double quotes expected; language 'pt' left out", timeout=10)
    assert k.proc.poll() is None


@pytest.mark.parametrize("language,scene", [("ar", "tiles"), ("ja", "touch")])
def test_cage_shows_the_language_as_the_snapshot_draws_it(language, scene, tmp_path):
    """Live under cage (wlroots, the kiosk as another user, its own fontconfig): Arabic mirrored
    and Japanese from fonts-noto-cjk come out as `kiosk snapshot --language` draws them."""
    import subprocess
    import time

    from test_wlroots import NO_BAR, assert_same
    from wlroots import Cage, kiosk_binary
    from PIL import Image

    c = Cage("--scene", scene, config=NO_BAR + f'language = "{language}"\n')
    try:
        c.wait_for(r"first frame shown")
        path = tmp_path / f"snapshot-{language}.png"
        subprocess.run([str(kiosk_binary()), "snapshot", "--scene", scene, "--size", "1280x720", "--language", language,
                        "--out", str(path)], check=True, timeout=30)
        with Image.open(path) as im:
            want = im.convert("RGB")
        time.sleep(1.5)
        got = c.screenshot()
        got.save(f"/tmp/languages-cage-{language}.png")
        assert_same(got, want, f"cage, {scene} in {language}")
    finally:
        c.close()


def test_cage_shows_an_operators_language_as_the_snapshot_draws_it(tmp_path):
    """The Portuguese catalog under cage (the kiosk as another user, who must be able to read
    it): the tiles as `kiosk snapshot --language pt` draws them with the same catalog."""
    import os
    import subprocess
    import tempfile
    import time

    from test_wlroots import NO_BAR, assert_same
    from wlroots import Cage, kiosk_binary
    from PIL import Image

    locale = Path(tempfile.mkdtemp(prefix="kiosk-locale-")) / "locale"
    try:
        portuguese(str(KIOSK), locale)
        for p in (locale.parent, locale):
            os.chmod(p, 0o755)
        os.chmod(locale / "pt.po", 0o644)
        c = Cage("--scene", "tiles", config=NO_BAR + 'language = "pt"\n', env={"KIOSK_LOCALE_DIR": str(locale)})
        try:
            c.wait_for(r"first frame shown")
            assert "language: pt (Português)" in c.stderr
            path = tmp_path / "snapshot-pt.png"
            subprocess.run([str(kiosk_binary()), "snapshot", "--scene", "tiles", "--size", "1280x720", "--language", "pt",
                            "--out", str(path)], check=True, timeout=30, env={**os.environ, "KIOSK_LOCALE_DIR": str(locale)})
            with Image.open(path) as im:
                want = im.convert("RGB")
            time.sleep(1.5)
            got = c.screenshot()
            got.save("/tmp/languages-cage-pt.png")
            assert_same(got, want, "cage, tiles in an operator's Portuguese")
        finally:
            c.close()
    finally:
        subprocess.run(["rm", "-rf", str(locale.parent)], check=False)
