"""End-to-end: the Debian package `make deb` builds — contents, lintian, the installed units —
installed on this machine with dpkg and started once from there."""
import os
import re
import shutil
import signal
import subprocess
import time

import pytest

from harness import KIOSK, ROOT, Kiosk, Weston, wait_until

VERSION = subprocess.run([str(KIOSK), "--version"], capture_output=True, text=True).stdout.strip()
ARCH = subprocess.run(["dpkg", "--print-architecture"], capture_output=True, text=True).stdout.strip()
DEB = ROOT / "out" / f"kiosk_{VERSION}_{ARCH}.deb"

# Every file the package ships, with its mode (directories are 0755 root:root).
EXPECTED = {
    "/usr/bin/kiosk": "-rwxr-xr-x",
    "/etc/kiosk/kiosk.toml": "-rw-r--r--",
    "/etc/kiosk/weston.ini": "-rw-r--r--",
    "/etc/pam.d/kiosk": "-rw-r--r--",
    "/lib/systemd/system/kiosk.service": "-rw-r--r--",
    "/lib/systemd/system/kiosk-weston.service": "-rw-r--r--",
    "/usr/lib/tmpfiles.d/kiosk.conf": "-rw-r--r--",
    "/usr/share/kiosk/cursor-theme/default/cursors/kiosk-hidden": "-rw-r--r--",
    "/usr/share/applications/kiosk.desktop": "-rw-r--r--",
    "/usr/share/icons/hicolor/48x48/apps/kiosk.png": "-rw-r--r--",
    "/usr/share/icons/hicolor/128x128/apps/kiosk.png": "-rw-r--r--",
    "/usr/share/icons/hicolor/256x256/apps/kiosk.png": "-rw-r--r--",
    "/usr/share/icons/hicolor/scalable/apps/kiosk.svg": "-rw-r--r--",
    "/usr/share/man/man1/kiosk.1.gz": "-rw-r--r--",
    "/usr/share/man/man5/kiosk.toml.5.gz": "-rw-r--r--",
    "/usr/share/doc/kiosk/copyright": "-rw-r--r--",
    "/usr/share/doc/kiosk/changelog.gz": "-rw-r--r--",
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
    for needed in ("libwayland-client0", "fonts-dejavu-core", "cage", "xwayland", "seatd", "procps"):
        assert needed in depends, fields["Depends"]
    # weston for plain framebuffers; Noto's core fonts for phrases in most scripts (CJK and emoji
    # only suggested: large, and only where a kiosk shows them).
    assert fields["Recommends"] == "weston, fonts-noto-core"
    conffiles = run("dpkg-deb", "-I", str(DEB), "conffiles").stdout.split()
    assert sorted(conffiles) == ["/etc/kiosk/kiosk.toml", "/etc/kiosk/weston.ini", "/etc/pam.d/kiosk"]


def test_lintian_finds_nothing():
    r = run("lintian", "--pedantic", "--fail-on", "error,warning", str(DEB))
    problems = [l for l in (r.stdout + r.stderr).splitlines() if re.match(r"^[EWP]: ", l)]
    assert r.returncode == 0 and not problems, "\n".join(problems)


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
    r = run("systemd-analyze", "verify", "/lib/systemd/system/kiosk.service", "/lib/systemd/system/kiosk-weston.service")
    assert r.returncode == 0 and r.stderr.strip() == "", r.stderr
    for unit in ("kiosk", "kiosk-weston"):
        assert run("systemctl", "is-enabled", unit).stdout.strip() == "disabled"
    user = run("getent", "passwd", "kiosk").stdout
    assert user.startswith("kiosk:") and ":/var/lib/kiosk:" in user
    groups = run("id", "-nG", "kiosk").stdout.split()
    for g in ("video", "input", "render"):
        if run("getent", "group", g).returncode == 0:
            assert g in groups


def test_the_installed_kiosk_shows_its_first_frame(installed, tmp_path):
    assert run("/usr/bin/kiosk", "--version").stdout.strip() == VERSION
    assert "swift" not in run("ldd", "/usr/bin/kiosk").stdout  # the runtime is inside
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
        wait_until(lambda: n.times("READY=1"), timeout=10, what=f"READY=1 from Kiosk under weston:\n{w.log.read_text()}")
        assert any("STATUS=setting up the panel" in m for _, m in n.poll())  # a fresh kiosk: the setup
        time.sleep(1.6)
        assert len(n.times("WATCHDOG=1")) >= 2, "Kiosk must ping through weston's environment"
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
