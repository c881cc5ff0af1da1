"""The README's `make run` on a fresh Debian 13 with no Swift (Tests/E2E/newcomer.py does it,
in the background during make test), and the one line Debian 12 gives when no Swift is on
PATH."""
import os
import subprocess
from pathlib import Path

import pytest
from PIL import Image, ImageChops

import newcomer

PROJECT = Path(__file__).resolve().parent.parent.parent
# The share of pixels that may differ between the screenshot and the snapshot (they are equal
# today: the same build draws both; a font hinting or rounding change may move an edge).
TOLERANCE = 0.002


def native_amd64():
    r = subprocess.run(["dpkg", "--print-architecture"], capture_output=True, text=True)
    return r.stdout.strip() == "amd64"


@pytest.mark.skipif(os.geteuid() != 0 or not native_amd64(),
                    reason="a fresh Debian 13 amd64 root needs root (mmdebstrap, chroot) on amd64")
def test_make_run_on_a_fresh_debian_13_shows_the_kiosk():
    result = newcomer.result()
    log = newcomer.LOG.read_text() if newcomer.LOG.exists() else ""
    assert result["rc"] == 0, f"make run exited {result['rc']} on a fresh Debian 13 ({newcomer.LOG}):\n{log[-4000:]}"
    assert "Debian's own Swift (swiftlang)" in log, f"make run did not install Debian's Swift:\n{log[:2000]}"
    assert result["swift"].startswith("Swift version 6.0"), result["swift"]
    assert "libweston-14" in log, "the weston module was not built against Debian 13's libweston"
    assert "screenshot" in result and "snapshot" in result, result
    with Image.open(result["screenshot"]) as shot, Image.open(result["snapshot"]) as snap:
        got, want = shot.convert("RGB"), snap.convert("RGB")
    assert got.size == want.size == (1920, 1080), (got.size, want.size)
    diff = ImageChops.difference(got, want).convert("L").point(lambda v: 255 if v > 24 else 0)
    differing = diff.histogram()[255] / (got.width * got.height)
    assert differing <= TOLERANCE, \
        f"make run's screenshot differs from kiosk snapshot --scene setup in {differing:.2%} of its pixels, within {diff.getbbox()}"


def test_debian_12_without_swift_says_what_to_install_in_one_line():
    if "bookworm" not in Path("/etc/os-release").read_text():
        pytest.skip("the line is Debian 12's")
    for target in ("run", "test"):
        r = subprocess.run(["make", "-C", str(PROJECT), "--no-print-directory", target], capture_output=True, text=True,
                           timeout=60, env={"PATH": "/usr/bin:/bin", "HOME": os.environ.get("HOME", "/root")})
        lines = (r.stdout + r.stderr).strip().splitlines()
        assert r.returncode != 0, f"make {target} without Swift exited 0"
        assert len(lines) == 1, f"make {target} without Swift said more than one line:\n" + "\n".join(lines)
        assert "swift.org toolchain for Debian 12" in lines[0] and "Debian 13" in lines[0], lines[0]


def test_a_release_the_package_lists_do_not_know_gets_one_line(tmp_path):
    os_release = tmp_path / "os-release"
    os_release.write_text("ID=debian\nVERSION_CODENAME=forky\n")
    r = subprocess.run([str(PROJECT / "Packaging/install-deps.sh"), "swift", str(PROJECT / "Packaging/packages-run.txt")],
                       capture_output=True, text=True, timeout=30, env={**os.environ, "KIOSK_OS_RELEASE": str(os_release)})
    lines = (r.stdout + r.stderr).strip().splitlines()
    assert r.returncode == 1 and len(lines) == 1, lines
    assert "'forky'" in lines[0] and "bookworm" in lines[0] and "trixie" in lines[0], lines[0]


def test_each_release_gets_its_own_names_from_the_package_lists(tmp_path):
    """What install-deps.sh would install, per release: the lists' side-by-side names."""
    for codename, weston, cxx in [("bookworm", "libweston-10-dev", "libstdc++-12-dev"),
                                  ("trixie", "libweston-14-dev", "libstdc++-14-dev")]:
        os_release = tmp_path / codename
        os_release.write_text(f"ID=debian\nVERSION_CODENAME={codename}\n")
        r = subprocess.run([str(PROJECT / "Packaging/install-deps.sh"), "--names", str(PROJECT / "Packaging/packages-run.txt")],
                           capture_output=True, text=True, timeout=30, env={**os.environ, "KIOSK_OS_RELEASE": str(os_release)})
        names = r.stdout.split()
        assert r.returncode == 0 and weston in names and cxx in names and "weston" in names, (codename, r.stdout, r.stderr)
        assert not any("=" in n or n.startswith(("libweston-1", "libstdc++-1")) and n not in (weston, cxx) for n in names), names
