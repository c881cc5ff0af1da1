"""The README's pictures, rendered by `kiosk snapshot` into docs/pictures/: what the current
build draws, at the size of a Raspberry Pi's 7" panel (800×480, 154×86 mm), so the front page
shows the product as a visitor sees it. `make pictures` writes them; Tests/E2E/test_docs.py
fails when one no longer matches what the build draws.

  pictures.py write [KIOSK]     render every picture into docs/pictures/
  pictures.py check [KIOSK]     render into a temporary folder and compare; exit 1 when stale
"""
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
FOLDER = ROOT / "docs" / "pictures"
PANEL = ["--size", "800x480", "--panel-mm", "154x86"]
# The package's example exhibits (Packaging/exhibits-example), as an operator adds them.
EXHIBITS = ["--scene", "exhibits", "--scene-bar", "--config", "{exhibits}"]
PORTRAIT = ["--size", "480x800", "--panel-mm", "86x154"]

# name, what the README's caption says, `kiosk snapshot` options
PICTURES = [
    ("lander.png", "The lander, steered with a multi-touch pad", ["--scene", "lander", "--scene-bar", *PANEL]),
    ("tiles.png", "The tile board", ["--scene", "tiles", "--scene-bar", *PANEL]),
    ("words.png", "The falling-words screensaver", ["--scene", "words", "--at", "40", *PANEL]),
    ("setup.png", "The setup an installer walks with a finger", ["--scene", "setup", *PANEL]),
    ("portrait.png", "A portrait panel", ["--scene", "tiles", "--scene-bar", *PORTRAIT]),
    ("arabic.png", "In Arabic, laid out right to left", ["--scene", "lander", "--scene-bar", "--language", "ar", *PANEL]),
    ("exhibits.png", "An operator's own exhibits", [*EXHIBITS, *PANEL]),
    ("exhibit.png", "An exhibit's page", [*EXHIBITS, "--exhibit", "5", *PANEL]),
]


def kiosk_binary(arg=None):
    return arg or os.environ.get("KIOSK_BIN") or str(ROOT / ".build" / "release" / "kiosk")


def render(kiosk, folder):
    with tempfile.TemporaryDirectory() as tmp:
        config = Path(tmp) / "kiosk.toml"
        config.write_text('[shell]\nscenes = ["lander", "tiles", "exhibits"]\n'
                          f'[exhibits]\nfolder = "{ROOT / "Packaging" / "exhibits-example"}"\n')
        for name, _, options in PICTURES:
            options = [o.replace("{exhibits}", str(config)) for o in options]
            subprocess.run([kiosk, "snapshot", *options, "--out", str(folder / name)], check=True,
                           stdout=subprocess.DEVNULL)


def differences(kiosk):
    """(name, why) for each picture in docs/pictures/ that the build no longer draws."""
    from PIL import Image, ImageChops

    stale = []
    with tempfile.TemporaryDirectory() as tmp:
        render(kiosk, Path(tmp))
        for name, _, _ in PICTURES:
            kept = FOLDER / name
            if not kept.exists():
                stale.append((name, "missing: run `make pictures`"))
                continue
            new, old = Image.open(Path(tmp) / name).convert("RGB"), Image.open(kept).convert("RGB")
            if new.size != old.size:
                stale.append((name, f"{old.size} kept, {new.size} drawn"))
                continue
            # A pixel counts when any channel moved by more than 24 (font hinting jitter stays below).
            r, g, b = ImageChops.difference(new, old).split()
            diff = ImageChops.lighter(ImageChops.lighter(r, g), b).point(lambda v: 255 if v > 24 else 0)
            share = diff.histogram()[255] / (new.width * new.height)
            if share > 0.002:
                stale.append((name, f"{share:.1%} of its pixels differ from what the build draws"))
    return stale


if __name__ == "__main__":
    mode, kiosk = sys.argv[1], kiosk_binary(sys.argv[2] if len(sys.argv) > 2 else None)
    if mode == "write":
        FOLDER.mkdir(parents=True, exist_ok=True)
        render(kiosk, FOLDER)
        total = sum((FOLDER / n).stat().st_size for n, _, _ in PICTURES)
        print(f"docs/pictures: {len(PICTURES)} pictures, {total / 1024:.0f} KiB")
    else:
        stale = differences(kiosk)
        for name, why in stale:
            print(f"docs/pictures/{name}: {why} (make pictures)")
        sys.exit(1 if stale else 0)
