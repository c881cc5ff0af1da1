"""The layers are SwiftPM modules whose dependencies point down the data flow
(Core ← Render ← UI ← Scenes; Platform on Core and Render; Voice on Core; the app on all). The compiler, not a
grep, rejects an upward import: each case below adds one to a copy of the package and builds
it the way `make build` does. The unchanged copy builds, so a failure is the import's."""
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
FLAGS = ["--explicit-target-dependency-import-check", "error"]

# (module, a file in it, what it must not import)
UPWARD = [
    ("KioskCore", "Sources/KioskCore/Geometry.swift", "KioskRender"),
    ("KioskRender", "Sources/KioskRender/Canvas.swift", "KioskUI"),
    ("KioskUI", "Sources/KioskUI/View.swift", "KioskScenes"),
    ("KioskScenes", "Sources/KioskScenes/Lander/LanderModel.swift", "KioskPlatform"),
    ("KioskPlatform", "Sources/KioskPlatform/Window.swift", "KioskUI"),
    ("KioskUI", "Sources/KioskUI/View.swift", "CWayland"),
    # The voice hears text and a language, nothing of the views that said it.
    ("KioskVoice", "Sources/KioskVoice/Voice.swift", "KioskUI"),
    ("KioskUI", "Sources/KioskUI/ScreenReader.swift", "CSpeech"),
    ("KioskScenes", "Sources/KioskScenes/TouchTest/TouchTestScene.swift", "CXKBCommon"),
    # The program that runs as root keeps to libc and plain values.
    ("KioskSession", "Sources/KioskSession/SessionOptions.swift", "KioskRender"),
]


@pytest.fixture(scope="module")
def package(tmp_path_factory):
    d = tmp_path_factory.mktemp("layers")
    shutil.copy(ROOT / "Package.swift", d)
    shutil.copytree(ROOT / "Sources", d / "Sources")
    (d / "Tests/KioskTests").mkdir(parents=True)
    (d / "Tests/KioskTests/Empty.swift").write_text("import Testing\n")
    r = build(d)
    assert r.returncode == 0, "the unchanged package must build:\n" + r.stdout[-3000:]
    return d


def build(d, target=None):
    cmd = ["swift", "build", *FLAGS] + (["--target", target] if target else [])
    return subprocess.run(cmd, cwd=d, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=900)


@pytest.mark.parametrize("module,path,upper", UPWARD, ids=[f"{m}-imports-{u}" for m, _, u in UPWARD])
def test_an_upward_import_does_not_build(package, module, path, upper):
    f = package / path
    original = f.read_text()
    try:
        f.write_text(f"import {upper}\n" + original)
        r = build(package, module)
        assert r.returncode != 0, f"{module} built with `import {upper}`"
        assert (f"imports another target ({upper})" in r.stdout or f"no such module '{upper}'" in r.stdout), r.stdout[-3000:]
    finally:
        f.write_text(original)
