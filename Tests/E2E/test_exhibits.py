"""An operator's exhibits as visitors meet them, live: the package's example folder shown by the
kiosk under weston and under cage (Debian 13's, which takes a virtual pointer). After a pause a
tap on a tile opens its page — its title, picture and text on screen as `kiosk snapshot` draws
them — a finger drags the text, Back returns to the board, and the fresh start after the
screensaver brings the board back. With speech on, the page is read aloud: its title, then its
text a paragraph at a time. A picture replaced in the folder while the kiosk runs is shown."""
import re
import shutil
import subprocess
import time
from pathlib import Path

from PIL import Image, ImageChops

from harness import KIOSK, Kiosk, views, wait_until

EXAMPLE = Path(__file__).resolve().parents[2] / "Packaging" / "exhibits-example"


def example_folder(tmp_path):
    """The package's example, copied where every user may read it (cage's kiosk runs as another
    user, who cannot pass through pytest's own folders)."""
    import tempfile
    top = Path(tempfile.mkdtemp(prefix="kiosk-exhibits-"))
    folder = top / "exhibits"
    shutil.copytree(EXAMPLE, folder)
    # And a seventh, longer than any screen: to scroll.
    long_text = "\n\n".join(f"Paragraph {n}: the Apollo programme flew eleven crewed missions between 1968 and 1972, "
                                "six of them landing on the Moon." for n in range(1, 31))
    with open(folder / "exhibits.toml", "a") as f:
        f.write(f'\n[[exhibit]]\ntitle = "The Apollo programme"\npicture = "saturn-v.jpg"\ntext = """\n{long_text}"""\n')
    for p in [top, folder, *folder.iterdir()]:
        p.chmod(0o755 if p.is_dir() else 0o644)
    return folder


def settings(folder, extra=""):
    return f'[shell]\nscenes = ["exhibits", "lander"]\nidle_timeout = 20\n[exhibits]\nfolder = "{folder}"\n{extra}'


def snapshot(config, size, tmp_path, exhibit=None):
    """What `kiosk snapshot` draws of the exhibits (a page open, with `exhibit`)."""
    out = tmp_path / f"snapshot-{exhibit or 'board'}.png"
    page = ["--exhibit", str(exhibit)] if exhibit else []
    subprocess.run([str(KIOSK), "snapshot", "--scene", "exhibits", "--scene-bar", "--config", str(config),
                    "--size", f"{size[0]}x{size[1]}", "--at", "1", *page, "--out", str(out)], check=True, timeout=60)
    with Image.open(out) as img:
        return img.convert("RGB")


def differing(a, b, box=None):
    """The share of pixels (in `box`) where a channel moved by more than 24."""
    if box:
        a, b = a.crop(box), b.crop(box)
    r, g, bl = ImageChops.difference(a.convert("RGB"), b.convert("RGB")).split()
    diff = ImageChops.lighter(ImageChops.lighter(r, g), bl).point(lambda v: 255 if v > 24 else 0)
    return diff.histogram()[255] / (a.width * a.height)


def box(v):
    x, y, w, h = v
    return (round(x), round(y), round(x + w), round(y + h))


def centre(v):
    x, y, w, h = v
    return round(x + w / 2), round(y + h / 2)


class OnWeston:
    """Touches through weston's test input module."""

    def __init__(self, weston, tmp_path, config, extra_env=None):
        self.c = weston
        self.k = Kiosk(weston, "--verbose", "--config", str(config), "--scene", "exhibits",
                       env=weston.env(XDG_STATE_HOME=str(tmp_path / "state"), **(extra_env or {})), protocol=False)
        self.size = (1920, 1080)

    def tap(self, x, y):
        self.c.send(f"down 0 {x} {y}", "frame")
        time.sleep(0.06)
        self.c.send("up 0", "frame")

    def drag(self, x, y, dy, steps=12):
        self.c.send(f"down 1 {x} {y}", "frame")
        for i in range(1, steps + 1):
            time.sleep(0.016)
            self.c.send(f"motion 1 {x} {y + dy * i // steps}", "frame")
        self.c.send("up 1", "frame")

    def screenshot(self):
        return self.c.screenshot()

    @property
    def stderr(self):
        return self.k.stderr

    def wait_for(self, pattern, timeout=10):
        self.k.wait_for(pattern, timeout=timeout)

    def close(self):
        self.k.close()


class OnCage:
    """Touches as cage 0.2.0's virtual pointer (pointer-as-touch)."""

    def __init__(self, tmp_path, config_text):
        from wlroots import Cage as Rig
        self.c = Rig("--scene", "exhibits", config=config_text)
        self.size = Rig.size
        self.c.wait_for(r"first frame shown", timeout=15)
        self.c.send()  # the pointer plugged in
        self.c.wait_for(r"seat capabilities: .*pointer=true")

    def at(self, x, y):
        return f"pointer {x} {y} {self.size[0]} {self.size[1]}"

    def tap(self, x, y):
        self.c.send(self.at(x, y), "button down")
        time.sleep(0.06)
        self.c.send("button up")

    def drag(self, x, y, dy, steps=12):
        self.c.send(self.at(x, y), "button down")
        for i in range(1, steps + 1):
            time.sleep(0.016)
            self.c.send(self.at(x, y + dy * i // steps))
        self.c.send("button up")

    def screenshot(self):
        return self.c.screenshot()

    @property
    def stderr(self):
        return self.c.stderr

    def wait_for(self, pattern, timeout=10):
        self.c.wait_for(pattern, timeout=timeout)

    def close(self):
        self.c.close()


def looks_like(rig, want, what, region=None, timeout=10):
    """Waits until the screen shows `want` (in `region`): the pictures come from a helper thread."""
    wait_until(lambda: differing(rig.screenshot(), want, region) < 0.01, timeout=timeout,
               what=f"the screen to show {what} as kiosk snapshot draws it")


def a_visit(rig, config, tmp_path):
    """The visit itself, the same under every compositor."""
    board = snapshot(config, rig.size, tmp_path)
    page = snapshot(config, rig.size, tmp_path, exhibit=1)
    rig.wait_for(r"view: exhibit 1 at")
    looks_like(rig, board, "the board, every picture in it")
    time.sleep(3)  # the visitor arrives after a pause
    rig.tap(*centre(views(rig)["exhibit 1"]))
    wait_until(lambda: "exhibits back" in views(rig), timeout=5, what="the page's Back")
    looks_like(rig, page, "the Moon's page: its title, picture and text")
    rig.screenshot().save(tmp_path / "page.png")
    rig.tap(*centre(views(rig)["exhibits back"]))
    looks_like(rig, board, "the board again after Back")
    # The long one: a finger drags its text up, lets go, and it glides on further down.
    rig.tap(*centre(views(rig)["exhibit 7"]))
    wait_until(lambda: "exhibits down" in views(rig), timeout=5, what="the long page, its text to scroll")
    time.sleep(1)
    text = views(rig)["exhibits text"]
    before = rig.screenshot()
    x, y = centre(text)
    rig.drag(x, y + 150, -300)
    time.sleep(2)
    after = rig.screenshot()
    after.save(tmp_path / "page-scrolled.png")
    assert differing(before, after, box(text)) > 0.05, "the text did not move under the finger"
    assert differing(before, after, (0, 0, rig.size[0], round(text[1]) - 2)) < 0.01, "more than the text moved"
    # The visitor leaves with the page open: the fresh start after the screensaver is the board.
    rig.wait_for(r"screensaver started", timeout=40)
    time.sleep(1)
    rig.tap(rig.size[0] // 2, rig.size[1] // 2)
    rig.wait_for(r"screensaver ended")
    looks_like(rig, board, "the board, for the next visitor")


def test_weston_a_visitor_opens_reads_scrolls_and_leaves_an_exhibit(weston, tmp_path):
    config = tmp_path / "kiosk.toml"
    config.write_text(settings(example_folder(tmp_path)))
    rig = OnWeston(weston, tmp_path, config)
    try:
        rig.wait_for(r"first frame shown")
        a_visit(rig, config, tmp_path)
    finally:
        rig.close()


def test_cage_a_visitor_opens_reads_scrolls_and_leaves_an_exhibit(tmp_path):
    import pytest
    from wlroots import WLROOTS_015

    if WLROOTS_015:
        pytest.skip("cage 0.1.4 offers no virtual pointer to touch it with")
    folder = example_folder(tmp_path)
    config = tmp_path / "kiosk.toml"
    config.write_text(settings(folder))
    rig = OnCage(tmp_path, settings(folder))
    try:
        a_visit(rig, config, tmp_path)
    finally:
        rig.close()


def test_weston_speech_reads_a_page_title_then_paragraph_by_paragraph(weston, tmp_path):
    config = tmp_path / "kiosk.toml"
    config.write_text(settings(example_folder(tmp_path), "[access]\nspeech = true\n"))
    rig = OnWeston(weston, tmp_path, config)
    try:
        rig.wait_for(r"view: exhibit 1 at")
        time.sleep(2)
        tile = centre(views(rig)["exhibit 1"])
        rig.tap(*tile)
        rig.wait_for(re.escape("speech (en): The Moon, button"))
        assert "exhibits back" not in views(rig), "with speech on, a tap explores: nothing opened"
        rig.tap(*tile)
        time.sleep(0.12)
        rig.tap(*tile)
        rig.wait_for(r"(?m)speech \(en\): The Moon$")
        wait_until(lambda: "exhibits back" in views(rig), timeout=5, what="the page opened by a double tap")
        x, y, w, h = views(rig)["exhibits back"]
        # The title, to the right of Back: explored by touch.
        rig.tap(round(x + w + 60), round(y + h / 2))
        rig.wait_for(re.escape("speech (en): The Moon, heading"))
        for first_words in ["The Moon is Earth's only natural satellite.", "It always shows Earth the same face"]:
            weston.send("down 2 800 700", "frame")
            for i in range(1, 7):
                time.sleep(0.02)
                weston.send(f"motion 2 {800 + 25 * i} 700", "frame")
            weston.send("up 2", "frame")
            rig.wait_for(re.escape(f"speech (en): {first_words}"))
    finally:
        rig.close()


def test_weston_a_picture_replaced_while_it_runs_is_shown(weston, tmp_path):
    folder = example_folder(tmp_path)
    config = tmp_path / "kiosk.toml"
    config.write_text(settings(folder))
    rig = OnWeston(weston, tmp_path, config)
    try:
        rig.wait_for(r"view: exhibit 1 at")
        moon = box(views(rig)["exhibit 1"])
        looks_like(rig, snapshot(config, rig.size, tmp_path), "the board")
        before = rig.screenshot()
        # The operator copies Mars over the Moon, as a file manager would (a new file, renamed).
        shutil.copy(folder / "mars.jpg", folder / ".moon.jpg.new")
        (folder / ".moon.jpg.new").rename(folder / "moon.jpg")
        rig.wait_for(re.escape(f"exhibits: {folder} changed: shown again"))
        wait_until(lambda: differing(before, rig.screenshot(), moon) > 0.2, timeout=10, what="the Moon's tile to show Mars")
        # A picture that is not one: its tile a placeholder, said once, naming it.
        (folder / "mars.jpg").write_text("not a picture")
        rig.wait_for(re.escape(f"exhibits: picture {folder}/mars.jpg: not a JPEG or PNG picture; a placeholder is shown instead"))
        assert rig.k.proc.poll() is None, "the kiosk kept running"
    finally:
        rig.close()
