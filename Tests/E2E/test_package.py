"""End-to-end: the Debian packages `make deb` builds — contents, lintian, the installed units —
the amd64 one installed on this machine with dpkg and started once from there; the arm64 one
(cross-built as root) checked by Debian 13's own tools in its build root (Tests/VM boots it)."""
import os
import re
import signal
import subprocess
from pathlib import Path

import pytest

from harness import KIOSK, ROOT, Kiosk, Weston, wait_until

VERSION = subprocess.run([str(KIOSK), "--version"], capture_output=True, text=True).stdout.strip()
ARCH = subprocess.run(["dpkg", "--print-architecture"], capture_output=True, text=True).stdout.strip()
DEB = ROOT / "out" / f"kiosk_{VERSION}_{ARCH}.deb"
ARM64_DEB = ROOT / "out" / f"kiosk_{VERSION}_arm64.deb"

# Every file the package ships, with its mode (directories are 0755 root:root).
EXPECTED = {
    "/usr/bin/kiosk": "-rwxr-xr-x",
    "/usr/libexec/kiosk/kiosk-session": "-rwxr-xr-x",
    "/etc/kiosk/kiosk.toml": "-rw-r--r--",
    "/etc/kiosk/weston.ini": "-rw-r--r--",
    "/etc/pam.d/kiosk": "-rw-r--r--",
    "/lib/systemd/system/kiosk.service": "-rw-r--r--",
    "/lib/systemd/system/kiosk-weston.service": "-rw-r--r--",
    "/lib/systemd/system/kiosk-screen@.service": "-rw-r--r--",
    "/lib/systemd/system/kiosk-keys.service": "-rw-r--r--",
    # Updates: their trial and rollback, apt's hook keeping the version before, the guide.
    "/lib/systemd/system/kiosk-rollback.service": "-rw-r--r--",
    "/usr/libexec/kiosk/kiosk-update": "-rwxr-xr-x",
    "/etc/apt/apt.conf.d/50kiosk": "-rw-r--r--",
    # The system bus as the kiosk's user has it: the accelerometer and logind only.
    "/usr/share/dbus-1/system.d/kiosk.conf": "-rw-r--r--",
    "/usr/share/doc/kiosk/updating.md.gz": "-rw-r--r--",
    "/usr/lib/modules-load.d/kiosk.conf": "-rw-r--r--",
    "/usr/lib/tmpfiles.d/kiosk.conf": "-rw-r--r--",
    "/usr/share/kiosk/cursor-theme/default/cursors/kiosk-hidden": "-rw-r--r--",
    "/usr/share/kiosk/locale/ar/LC_MESSAGES/kiosk.mo": "-rw-r--r--",
    "/usr/share/kiosk/locale/de/LC_MESSAGES/kiosk.mo": "-rw-r--r--",
    "/usr/share/kiosk/locale/es/LC_MESSAGES/kiosk.mo": "-rw-r--r--",
    "/usr/share/kiosk/locale/fr/LC_MESSAGES/kiosk.mo": "-rw-r--r--",
    "/usr/share/kiosk/locale/ja/LC_MESSAGES/kiosk.mo": "-rw-r--r--",
    "/usr/share/applications/kiosk.desktop": "-rw-r--r--",
    "/usr/share/icons/hicolor/48x48/apps/kiosk.png": "-rw-r--r--",
    "/usr/share/icons/hicolor/128x128/apps/kiosk.png": "-rw-r--r--",
    "/usr/share/icons/hicolor/256x256/apps/kiosk.png": "-rw-r--r--",
    "/usr/share/icons/hicolor/scalable/apps/kiosk.svg": "-rw-r--r--",
    "/usr/share/man/man1/kiosk.1.gz": "-rw-r--r--",
    "/usr/share/man/man5/kiosk.toml.5.gz": "-rw-r--r--",
    "/usr/share/doc/kiosk/copyright": "-rw-r--r--",
    "/usr/share/doc/kiosk/changelog.gz": "-rw-r--r--",
    # The exhibits' guide and the example folder an operator copies (docs/exhibits.md).
    "/usr/share/doc/kiosk/exhibits.md.gz": "-rw-r--r--",
    **{f"/usr/share/kiosk/exhibits-example/{n}": "-rw-r--r--" for n in
       ["exhibits.toml", "moon.jpg", "earthrise.jpg", "mars.jpg", "saturn.jpg", "lunar-module.jpg", "saturn-v.jpg"]},
}


def run(*args, **kw):
    return subprocess.run(list(args), capture_output=True, text=True, timeout=120, **kw)


def as_root(*args):
    return run(*args) if os.geteuid() == 0 else run("sudo", "-n", *args)


def test_the_package_holds_what_a_kiosk_needs_and_nothing_else():
    assert DEB.exists(), f"{DEB} missing: make deb builds it"
    listing = run("dpkg-deb", "-c", str(DEB)).stdout.splitlines()
    files = {}
    for line in listing:
        mode, owner, _size, _date, _time, path = line.split(None, 5)
        assert owner == "root/root", line
        path = path.lstrip(".")
        if mode.startswith("d"):
            assert mode == "drwxr-xr-x", line
        else:
            files[path] = mode
    assert files == EXPECTED
    fields = dict(l.split(": ", 1) for l in run("dpkg-deb", "-f", str(DEB), "Version", "Depends", "Recommends").stdout.splitlines())
    assert fields["Version"] == VERSION
    depends = [d.strip().split(" ")[0] for d in fields["Depends"].split(",")]
    # What kiosk.service runs: cage (which aborts without Xwayland) through seatd; weston where
    # cage cannot drive the display.
    for needed in ("libwayland-client0", "fonts-dejavu-core", "cage", "xwayland", "seatd", "libpam-systemd", "dpkg-repack"):
        assert needed in depends, fields["Depends"]
    # weston for plain framebuffers; Noto's core fonts for phrases in most scripts (CJK and emoji
    # only suggested: large, and only where a kiosk shows them).
    assert fields["Recommends"] == "weston, fonts-noto-core"
    conffiles = run("dpkg-deb", "-I", str(DEB), "conffiles").stdout.split()
    assert sorted(conffiles) == ["/etc/apt/apt.conf.d/50kiosk", "/etc/kiosk/kiosk.toml", "/etc/kiosk/weston.ini", "/etc/pam.d/kiosk"]


def test_lintian_finds_nothing():
    assert_lintian_clean(run("lintian", "--pedantic", "--fail-on", "error,warning", str(DEB)))


def assert_lintian_clean(r):
    problems = [l for l in (r.stdout + r.stderr).splitlines() if re.match(r"^[EWP]: ", l)]
    assert r.returncode == 0 and not problems, "\n".join(problems) or r.stdout + r.stderr


@pytest.fixture(scope="module")
def arm64_deb():
    if os.geteuid() != 0:
        pytest.skip("the arm64 package is cross-built as root (make deb skipped it)")
    assert ARM64_DEB.exists(), f"{ARM64_DEB} missing: make deb builds it as root"
    return ARM64_DEB


def test_the_arm64_package_is_the_same_kiosk_for_debian_13(arm64_deb):
    """The same files as the amd64 package (Debian 13's debhelper puts units under /usr/lib), an
    aarch64 kiosk with the Swift runtime inside, and trixie's arm64 library names as dependencies."""
    listing = run("dpkg-deb", "-c", str(arm64_deb)).stdout.splitlines()
    files = {l.split(None, 5)[5].lstrip("."): l.split()[0] for l in listing if not l.startswith("d")}
    assert files == {p.replace("/lib/systemd/", "/usr/lib/systemd/"): m for p, m in EXPECTED.items()}
    fields = dict(l.split(": ", 1) for l in run("dpkg-deb", "-f", str(arm64_deb), "Architecture", "Depends", "Recommends",
                                                 "Suggests").stdout.splitlines())
    assert fields["Architecture"] == "arm64"
    # Debian 13's cage drives every display: weston (and the ~130 packages libweston 14 brings)
    # only for kiosk-weston.service.
    assert fields["Recommends"] == "fonts-noto-core" and fields["Suggests"].startswith("weston, "), fields
    depends = [d.strip().split(" ")[0] for d in fields["Depends"].split(",")]
    for needed in ("libfcft4t64", "libpng16-16t64", "libwayland-client0", "cage", "xwayland", "seatd", "libpam-systemd"):
        assert needed in depends, fields["Depends"]
    with_glibc = re.search(r"libc6 \(>= 2\.(\d+)\)", fields["Depends"])
    assert with_glibc and int(with_glibc.group(1)) >= 38, fields["Depends"]  # trixie's runtime: Debian 13 only
    for name in ("kiosk", "kiosk-session"):
        header = run("readelf", "-h", "-d", str(ROOT / ".build" / "arm64" / "release" / name)).stdout
        assert "AArch64" in header, header
        needed_libs = re.findall(r"Shared library: \[([^\]]+)\]", header)
        assert needed_libs and not [n for n in needed_libs if "swift" in n or "stdc++" in n], needed_libs
        if name == "kiosk-session":  # the root program: libc only, none of the UI's libraries
            assert set(needed_libs) <= {"libc.so.6", "libm.so.6", "libgcc_s.so.1", "ld-linux-aarch64.so.1"}, needed_libs


def test_lintian_finds_nothing_in_the_arm64_package(arm64_deb):
    """Debian 13's lintian, in the root the package was built in."""
    assert_lintian_clean(run("/usr/bin/python3", str(ROOT / "Packaging" / "arm64.py"), "run",
                             "lintian", "--pedantic", "--fail-on", "error,warning", str(arm64_deb)))


@pytest.fixture(scope="module")
def installed():
    if os.geteuid() != 0 and run("sudo", "-n", "true").returncode != 0:
        pytest.skip("installing the package needs root or passwordless sudo")
    was_installed = run("dpkg-query", "-W", "-f=${Status}", "kiosk").stdout.startswith("install ok installed")
    r = as_root("dpkg", "-i", str(DEB))
    assert r.returncode == 0, r.stdout + r.stderr
    yield True
    # Leave the machine as it was: the package's /etc/kiosk/kiosk.toml would otherwise become
    # the settings file of every kiosk the later tests start without --config.
    if not was_installed:
        assert as_root("dpkg", "--purge", "kiosk").returncode == 0


def test_installed_units_verify_and_ship_disabled(installed):
    r = run("systemd-analyze", "verify", "/lib/systemd/system/kiosk.service", "/lib/systemd/system/kiosk-weston.service",
            "/lib/systemd/system/kiosk-screen@off.service", "/lib/systemd/system/kiosk-keys.service",
            "/lib/systemd/system/kiosk-rollback.service")
    assert r.returncode == 0 and r.stderr.strip() == "", r.stderr
    for unit in ("kiosk", "kiosk-weston"):
        assert run("systemctl", "is-enabled", unit).stdout.strip() == "disabled"
    user = run("getent", "passwd", "kiosk").stdout
    assert user.startswith("kiosk:") and ":/var/lib/kiosk:" in user
    groups = run("id", "-nG", "kiosk").stdout.split()
    for g in ("video", "input", "render"):
        if run("getent", "group", g).returncode == 0:
            assert g in groups


def confinement(unit):
    """The unit's confinement block: from its heading comment to [Install]."""
    text = Path(f"/lib/systemd/system/{unit}.service").read_text()
    return text[text.index("# Confinement:"):text.index("[Install]")]


def test_both_units_are_confined_alike_and_rated_safe(installed):
    assert confinement("kiosk") == confinement("kiosk-weston")
    for unit in ("kiosk", "kiosk-weston"):
        r = run("systemd-analyze", "security", "--offline=true", f"/lib/systemd/system/{unit}.service")
        score = float(re.search(r"Overall exposure level for .*: ([\d.]+)", r.stdout).group(1))
        assert score <= 4.5, r.stdout[-3000:]


def test_the_installed_kiosk_shows_its_first_frame(installed, tmp_path):
    assert run("/usr/bin/kiosk", "--version").stdout.strip() == VERSION
    assert "swift" not in run("ldd", "/usr/bin/kiosk").stdout  # the runtime is inside
    session = run("ldd", "/usr/libexec/kiosk/kiosk-session").stdout
    assert "libc.so" in session and not re.search(r"wayland|pixman|fcft|fontconfig|png|xkbcommon|swift", session), session
    w = Weston()
    try:
        k = Kiosk(w, "--verbose", "--config", "/etc/kiosk/kiosk.toml", env=w.env(XDG_STATE_HOME=str(tmp_path)),
                  protocol=False, binary="/usr/bin/kiosk")
        try:
            k.wait_for(r"first frame shown")
            assert "warning" not in k.stderr, k.stderr  # the shipped settings file is clean
        finally:
            k.close()
    finally:
        w.close()


def test_the_installed_weston_setup_starts_kiosk_and_quits_with_it(installed, tmp_path):
    # `kiosk session --compositor weston`: weston with /etc/kiosk/weston.ini, whose [autolaunch]
    # starts Kiosk as weston's child and whose watch=true ends weston with it. (The session's
    # logind part needs a booted machine: Tests/VM.)
    from test_service import NotifySocket
    n = NotifySocket(tmp_path / "notify")
    w = Weston(config="/etc/kiosk/weston.ini",
               extra_env={"NOTIFY_SOCKET": n.path, "WATCHDOG_USEC": "1000000", "XDG_STATE_HOME": str(tmp_path)})
    try:
        wait_until(lambda: n.times("READY=1"), timeout=10, what=lambda: f"READY=1 from Kiosk under weston:\n{w.log.read_text()}")
        assert any("STATUS=setting up the panel" in m for _, m in n.poll())  # a fresh kiosk: the setup
        wait_until(lambda: len(n.times("WATCHDOG=1")) >= 2, timeout=5, what="Kiosk's pings through weston's environment")
        # What a visitor sees: Kiosk, not weston's empty background.
        shot = w.screenshot()
        assert len(set(shot.resize((64, 36)).getdata())) > 8
        # Kiosk gone, weston quits ([autolaunch] watch=true) and systemd restarts the unit.
        kiosk = run("pgrep", "-P", str(w.proc.pid), "-x", "kiosk").stdout.split()
        assert len(kiosk) == 1, kiosk
        os.kill(int(kiosk[0]), signal.SIGKILL)
        w.proc.wait(timeout=10)
    finally:
        w.close()
        n.close()
