"""The layers are SwiftPM modules whose dependencies point down the data flow
(Core ← Render ← UI ← Scenes; Platform on Core and Render; Voice on Core; the app on all). Two
facts keep it so, each checked here once: the package's dependency graph (as SwiftPM reads it)
has no upward edge, and every build of the project passes the flag with which the compiler
rejects an import of a module a target does not depend on (else a module reached through
another's dependencies imports fine) — shown rejecting one, in a package of three modules."""
import json
import re
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
FLAGS = ["--explicit-target-dependency-import-check", "error"]

# What each layer may depend on; a module missing here may depend on nothing of the project's.
ALLOWED = {
    # The version is a stamped C string (CVersion), the one C the plain values read.
    "KioskCore": {"CVersion"},
    "KioskRender": {"KioskCore", "CPixman", "CFcft", "CPNG", "CJPEG", "CRender", "CFontconfig"},
    "KioskUI": {"KioskCore", "KioskRender"},
    "KioskScenes": {"KioskCore", "KioskRender", "KioskUI"},
    "KioskPlatform": {"KioskCore", "KioskRender", "CWayland", "CXKBCommon", "CPixman"},
    # The voice hears text and a language, nothing of the views that said it.
    "KioskVoice": {"KioskCore", "CSpeech"},
    # The program that runs as root keeps to libc and plain values.
    "KioskSession": {"KioskCore", "CSession"},
}


def described():
    r = subprocess.run(["swift", "package", "describe", "--type", "json"], cwd=ROOT,
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=600)
    assert r.returncode == 0, r.stderr[-3000:]
    return json.loads(r.stdout[r.stdout.index("{"):])


def test_no_layer_depends_on_one_above_it():
    targets = {t["name"]: t for t in described()["targets"]}
    assert set(ALLOWED) <= set(targets), "a layer is gone from Package.swift"
    for name, allowed in ALLOWED.items():
        uses = set(targets[name].get("target_dependencies", [])) | set(targets[name].get("product_dependencies", []))
        assert uses <= allowed, f"{name} depends on {sorted(uses - allowed)}"


def test_every_build_of_the_project_checks_its_imports():
    makefile = (ROOT / "Makefile").read_text()
    assert re.search(r"^LAYERS := " + re.escape(" ".join(FLAGS)) + "$", makefile, re.M)
    recipes = [line.strip() for line in makefile.splitlines() if re.search(r"\$\(SWIFT\) (build|test)\b|arm64\.py build", line)]
    assert recipes, "no swift build in the Makefile"
    for line in recipes:
        assert "$(LAYERS)" in line, f"a build without the import check: {line}"


def test_the_compiler_rejects_an_import_a_target_does_not_depend_on(tmp_path):
    """Other imports Upper, built before it but not among its dependencies: it builds without
    the flag (a layer could reach a sibling so) and not with it."""
    (tmp_path / "Package.swift").write_text(
        '// swift-tools-version:5.9\nimport PackageDescription\n'
        'let package = Package(name: "Layers", targets: [\n'
        '    .target(name: "Lower"), .target(name: "Upper", dependencies: ["Lower"]),\n'
        '    .target(name: "Other", dependencies: ["Lower"])])\n')
    for name, text in {"Lower": "public let lower = 1\n", "Upper": "import Lower\npublic let upper = lower\n",
                       "Other": "import Lower\nimport Upper\npublic let other = upper + lower\n"}.items():
        (tmp_path / "Sources" / name).mkdir(parents=True)
        (tmp_path / "Sources" / name / f"{name}.swift").write_text(text)

    def build(scratch, target, *flags):
        return subprocess.run(["swift", "build", "--scratch-path", str(tmp_path / scratch), "--target", target, *flags],
                              cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=900)
    for scratch in (".without", ".with"):
        assert build(scratch, "Upper").returncode == 0
    assert build(".without", "Other").returncode == 0, "without the flag the undeclared import builds"
    r = build(".with", "Other", *FLAGS)
    assert r.returncode != 0, "Other built with an import it does not declare"
    assert "Target Other imports another target (Upper)" in r.stdout, r.stdout[-3000:]
