"""Updates outside a booted machine (the booted ones: Tests/VM/test_booted.py): the signed
repository `make repo` writes, read by this machine's apt with the key it exports; and
kiosk-update's decisions (what is kept before an update, the trial of a new version's first
starts, the rollback) with dpkg, apt and systemctl replaced by recorders in a private folder."""
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "Tests" / "VM"))
import releases  # noqa: E402

SCRIPT = ROOT / "Packaging" / "kiosk-update"
KIOSK = Path(os.environ.get("KIOSK_BIN", ROOT / ".build" / "release" / "kiosk"))
VERSION = subprocess.run([str(KIOSK), "--version"], capture_output=True, text=True).stdout.strip()
ARCH = subprocess.run(["dpkg", "--print-architecture"], capture_output=True, text=True).stdout.strip()
DEB = ROOT / "out" / f"kiosk_{VERSION}_{ARCH}.deb"


def apt(tmp, *args, sources):
    """This machine's apt, with its own lists, cache and sources: nothing of the system's."""
    state = tmp / "apt"
    for d in ("lists/partial", "cache/archives/partial"):
        (state / d).mkdir(parents=True, exist_ok=True)
    (state / "sources.list").write_text(sources)
    options = ["-o", f"Dir::Etc::SourceList={state / 'sources.list'}", "-o", "Dir::Etc::SourceParts=/nonexistent",
               "-o", f"Dir::State::Lists={state / 'lists'}", "-o", f"Dir::Cache={state / 'cache'}",
               "-o", "APT::Sandbox::User=root"]  # a private folder _apt cannot read
    return subprocess.run([args[0], *options, *args[1:]], capture_output=True, text=True)


@pytest.fixture(scope="module")
def repo(tmp_path_factory):
    if not DEB.exists():
        pytest.skip(f"{DEB} missing: make deb builds it")
    tmp = tmp_path_factory.mktemp("repo")
    newer = releases.release(DEB, f"{VERSION}+test1", tmp / "debs")
    out, key = tmp / "repo", tmp / "key"  # a throwaway key, made by the first run
    for debs in ([DEB], [newer]):  # two runs: the pool keeps the first one's package
        r = subprocess.run([sys.executable, str(ROOT / "Packaging" / "repo.py"), "--out", str(out), "--key", str(key), *map(str, debs)],
                           capture_output=True, text=True)
        assert r.returncode == 0, r.stdout + r.stderr
    return tmp, out


def test_the_repository_is_signed_and_apt_takes_the_newest_version_from_it(repo):
    tmp, out = repo
    suite = subprocess.run(["sh", "-c", ". /etc/os-release && echo $VERSION_CODENAME"], capture_output=True, text=True).stdout.strip()
    sources = f"deb [signed-by={out / 'kiosk-archive-keyring.gpg'}] file:{out} {suite} main\n"
    r = apt(tmp, "apt-get", "update", sources=sources)
    assert r.returncode == 0 and "W:" not in r.stdout + r.stderr, r.stdout + r.stderr
    policy = apt(tmp, "apt-cache", "policy", "kiosk", sources=sources).stdout
    assert f"Candidate: {VERSION}+test1" in policy and f"     {VERSION} 500" in policy, policy
    # The newer package is the stamped one: its programs say its version.
    listed = (out / "dists" / suite / "main" / f"binary-{ARCH}" / "Packages").read_text()
    assert listed.count("Package: kiosk") == 2


def test_apt_refuses_the_repository_signed_by_another_key_or_changed_after_signing(repo, tmp_path):
    tmp, out = repo
    suite = subprocess.run(["sh", "-c", ". /etc/os-release && echo $VERSION_CODENAME"], capture_output=True, text=True).stdout.strip()
    other = tmp_path / "other"
    r = subprocess.run([sys.executable, str(ROOT / "Packaging" / "repo.py"), "--out", str(tmp_path / "repo2"), "--key", str(other), str(DEB)],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    wrong = f"deb [signed-by={tmp_path / 'repo2' / 'kiosk-archive-keyring.gpg'}] file:{out} {suite} main\n"
    r = apt(tmp_path, "apt-get", "update", sources=wrong)
    assert "NO_PUBKEY" in r.stdout + r.stderr or "not signed" in r.stdout + r.stderr, r.stdout + r.stderr
    release = out / "dists" / suite / "InRelease"
    text = release.read_text()
    try:
        release.write_text(text.replace("Origin: Kiosk", "Origin: Someone else"))
        r = apt(tmp_path / "tampered", "apt-get", "update",
                sources=f"deb [signed-by={out / 'kiosk-archive-keyring.gpg'}] file:{out} {suite} main\n")
        assert "BADSIG" in r.stdout + r.stderr or "not valid" in r.stdout + r.stderr, r.stdout + r.stderr
    finally:
        release.write_text(text)


def test_each_package_is_offered_for_the_release_it_was_built_on_and_later_ones(tmp_path):
    """The amd64 package built here (Debian 12) serves Debian 12 and 13; the arm64 one, built for
    Debian 13, Debian 13 only."""
    arm64 = ROOT / "out" / f"kiosk_{VERSION}_arm64.deb"
    if not (DEB.exists() and arm64.exists()):
        pytest.skip("make deb as root builds both packages")
    r = subprocess.run([sys.executable, str(ROOT / "Packaging" / "repo.py"), "--out", str(tmp_path / "repo"), "--key", str(tmp_path / "key"),
                        str(DEB), str(arm64)], capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr
    here = subprocess.run(["sh", "-c", ". /etc/os-release && echo $VERSION_CODENAME"], capture_output=True, text=True).stdout.strip()
    def listed(suite, arch):
        return (tmp_path / "repo" / "dists" / suite / "main" / f"binary-{arch}" / "Packages").read_text()
    assert f"Architecture: {ARCH}" in listed("trixie", ARCH) and f"Architecture: {ARCH}" in listed(here, ARCH)
    assert "Architecture: arm64" in listed("trixie", "arm64")
    assert listed("bookworm", "arm64") == "", "no arm64 package is built for Debian 12"
    release = (tmp_path / "repo" / "dists" / "trixie" / "Release").read_text()
    assert "Architectures: amd64 arm64" in release and "main/binary-arm64/Packages" in release


def test_a_stamped_release_says_its_own_version(repo, tmp_path):
    made = releases.release(DEB, f"{VERSION}+test9", tmp_path)
    subprocess.run(["dpkg-deb", "-x", str(made), str(tmp_path / "x")], check=True)
    for program in ("usr/bin/kiosk", "usr/libexec/kiosk/kiosk-session"):
        said = subprocess.run([str(tmp_path / "x" / program), "--version"], capture_output=True, text=True).stdout.strip()
        assert said == f"{VERSION}+test9", program


# -- kiosk-update's decisions -------------------------------------------------------------------

RECORDER = """#!/bin/sh
echo "$(basename "$0") $*" >> "$KIOSK_TEST_CALLS"
"""


class Panel:
    """kiosk-update with a private state folder and recorders for the system's tools."""

    def __init__(self, tmp):
        self.tmp, self.dir, self.pins = tmp, tmp / "state", tmp / "preferences.d" / "kiosk-rollback"
        self.bin, self.calls = tmp / "bin", tmp / "calls"
        self.bin.mkdir()
        self.installed_version = "0.2.0"
        for tool, body in {
            "systemctl": "",
            "apt-get": 'echo "installing $*"',
            "dpkg-query": 'cat "$KIOSK_TEST_STATUS"',
            "dpkg-repack": 'v=$(cut -d" " -f1 "$KIOSK_TEST_STATUS"); echo deb > "kiosk_${v}_amd64.deb"',
            "dpkg-deb": 'basename "$2" | cut -d_ -f2',
        }.items():
            (self.bin / tool).write_text(RECORDER + body + "\n")
            (self.bin / tool).chmod(0o755)
        self.status("0.2.0 ii ")

    def status(self, text):
        (self.tmp / "status").write_text(text)

    def run(self, *args):
        env = dict(os.environ, PATH=f"{self.bin}:/usr/bin:/bin", KIOSK_UPDATE_DIR=str(self.dir), KIOSK_UPDATE_PINS=str(self.pins),
                   KIOSK_TEST_CALLS=str(self.calls), KIOSK_TEST_STATUS=str(self.tmp / "status"))
        return subprocess.run(["sh", str(SCRIPT), *args], capture_output=True, text=True, env=env, cwd=self.tmp)

    def read(self, name):
        return (self.dir / name).read_text() if (self.dir / name).exists() else None

    def called(self, tool):
        return [l for l in (self.calls.read_text().splitlines() if self.calls.exists() else []) if l.startswith(tool + " ")]


def test_the_installed_version_is_kept_once_and_an_upgrade_puts_the_new_one_on_trial(tmp_path):
    p = Panel(tmp_path)
    assert p.run("installed", "0.2.0").returncode == 0  # a first install: nothing on trial
    assert p.read("installed").split()[:2] == ["0.2.0", "-"] and p.read("trial") is None
    r = p.run("keep-installed")
    assert r.returncode == 0 and "kept kiosk 0.2.0" in r.stderr
    assert (p.dir / "previous" / "kiosk_0.2.0_amd64.deb").exists()
    p.run("keep-installed")
    assert len(p.called("dpkg-repack")) == 1, "kept once a version"
    assert p.run("installed", "0.2.1", "0.2.0").returncode == 0
    assert p.read("trial") == "0.2.1 0.2.0 0\n"
    # While 0.2.1 is on trial it is not kept: it would replace the version to go back to.
    p.status("0.2.1 ii ")
    p.run("keep-installed")
    assert len(p.called("dpkg-repack")) == 1 and (p.dir / "previous" / "kiosk_0.2.0_amd64.deb").exists()


def test_a_version_that_comes_up_is_kept(tmp_path):
    p = Panel(tmp_path)
    p.run("keep-installed")
    p.run("installed", "0.2.1", "0.2.0")
    r = p.run("start")
    assert r.returncode == 0 and "start 1 of 3" in r.stderr
    r = p.run("came-up")
    assert "kiosk 0.2.1 came up (start 1): kept" in r.stderr and p.read("trial") is None
    assert p.run("start").returncode == 0 and not p.called("systemctl")


def test_three_starts_without_a_first_frame_put_the_previous_version_back_and_pin_the_failed_one(tmp_path):
    p = Panel(tmp_path)
    p.run("keep-installed")
    p.run("installed", "0.2.1", "0.2.0")
    for n in (1, 2, 3):
        assert p.run("start").returncode == 0
    r = p.run("start")
    assert r.returncode == 1 and "kiosk 0.2.1 did not come up in 3 starts: putting 0.2.0 back" in r.stderr
    assert p.called("systemctl") == ["systemctl start kiosk-rollback.service"]
    r = p.run("roll-back")
    assert r.returncode == 0, r.stderr
    assert "kiosk 0.2.0 is back" in r.stderr
    install = p.called("apt-get")
    assert len(install) == 1 and "--allow-downgrades" in install[0] and install[0].endswith("previous/kiosk_0.2.0_amd64.deb")
    assert "Package: kiosk\nPin: version 0.2.1\nPin-Priority: -1" in p.pins.read_text()
    assert p.read("rollbacks").split()[1:] == ["0.2.1", "0.2.0"]
    assert p.read("installed").split()[:2] == ["0.2.0", "0.2.1"]
    assert p.read("installed").split()[2] == p.read("rollbacks").split()[0], "one time: the admin panel says rolled back"
    assert p.read("trial") is None and not (p.dir / "rolling-back").exists()
    assert p.run("start").returncode == 0, "the version put back starts"


def test_a_failed_reinstall_says_so_and_keeps_the_trial(tmp_path):
    p = Panel(tmp_path)
    p.run("keep-installed")
    p.run("installed", "0.2.1", "0.2.0")
    (p.bin / "apt-get").write_text(RECORDER + 'echo "E: Could not get lock"; exit 100\n')
    r = p.run("roll-back")
    assert r.returncode == 1 and "installing 0.2.0 again failed: E: Could not get lock" in r.stderr
    assert p.read("trial") is not None and not p.pins.exists() and not (p.dir / "rolling-back").exists()


def test_nothing_kept_means_nothing_on_trial(tmp_path):
    p = Panel(tmp_path)
    p.run("installed", "0.2.1", "0.2.0")  # installed with dpkg -i, apt's hook never ran
    assert p.read("trial") is None and p.run("start").returncode == 0
