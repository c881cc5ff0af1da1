#!/usr/bin/python3
"""`make repo`: a signed apt repository of the kiosk's packages, in a folder that any static web
server (or a folder on the panel, `file:`) serves, made with Debian's own tools: apt-ftparchive
writes the indices, gpg signs them (InRelease, Release.gpg).

    Packaging/repo.py [--out out/repo] [--key DIR] [DEB...]

Each package (by default this build's, out/kiosk_<version>_<arch>.deb) is added to pool/, where
the packages of earlier runs stay (apt picks the newest; a panel that went back keeps finding the
one it runs). A package is offered for the Debian release it was built on (its changelog's
distribution) and the releases after it that have no package of their own for its architecture:
Debian's libraries keep their names and versions from one release to the next.

The signing key is made once, in DIR (a GnuPG home: --key, or $KIOSK_REPO_KEY, by default
~/.local/share/kiosk/repo-key), and never goes into the repository: keep it safe and back it
up. Its public part is written beside the indices as kiosk-archive-keyring.gpg, the file the
README's lines install for apt's `signed-by`."""
import argparse
import gzip
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# The Debian releases the kiosk is built for, oldest first.
SUITES = ["bookworm", "trixie"]
ARCHITECTURES = ["amd64", "arm64"]
KEY_NAME = "Kiosk packages <packages@kiosk.example.org>"
KEYRING = "kiosk-archive-keyring.gpg"


def gpg(home, *args, **kw):
    return subprocess.run(["gpg", "--homedir", str(home), "--batch", "--quiet", *args], check=True, **kw)


def signing_key(home):
    """The key's fingerprint, the key made first if `home` has none."""
    home.mkdir(parents=True, exist_ok=True, mode=0o700)
    os.chmod(home, 0o700)
    def secret():
        out = gpg(home, "--with-colons", "--list-secret-keys", capture_output=True, text=True).stdout
        return next((l.split(":")[9] for l in out.splitlines() if l.startswith("fpr:")), None)
    fingerprint = secret()
    if fingerprint is None:
        gpg(home, "--passphrase", "", "--quick-generate-key", KEY_NAME, "ed25519", "sign", "never")
        fingerprint = secret()
        print(f"repo: made a signing key in {home} ({fingerprint}); keep that folder safe, and out of the repository")
    return fingerprint


def field(deb, name):
    return subprocess.run(["dpkg-deb", "-f", str(deb), name], capture_output=True, text=True, check=True).stdout.strip()


def built_for(deb):
    """The release a package was built on: the distribution of its changelog's first entry."""
    tar = subprocess.run(["dpkg-deb", "--fsys-tarfile", str(deb)], capture_output=True, check=True).stdout
    with tempfile.TemporaryDirectory() as t:
        # changelog.gz for a native version (0.2.0), changelog.Debian.gz for a Debian revision.
        subprocess.run(["tar", "-x", "-C", t, "--wildcards", "./usr/share/doc/kiosk/changelog*.gz"], input=tar, check=True)
        first = gzip.open(next((Path(t) / "usr/share/doc/kiosk").glob("changelog*.gz")), "rt").readline()
    suite = first.split(")")[1].split(";")[0].strip()
    if suite not in SUITES:
        raise SystemExit(f"repo: {deb} was built for {suite!r}, not one of {', '.join(SUITES)}")
    return suite


def offered(pool):
    """For each release and architecture, the packages offered there: each package for the
    release it was built on and the later ones without a package of their own."""
    built = {}
    for deb in sorted(pool.glob("*.deb")):
        built.setdefault((field(deb, "Architecture"), built_for(deb)), []).append(deb)
    out = {}
    for arch in ARCHITECTURES:
        current = []
        for suite in SUITES:
            current = built.get((arch, suite), current)
            out[(suite, arch)] = current
    return out


def stanzas(repo, pool):
    """apt-ftparchive's Packages entry for each package in `pool`, by its path under `repo`."""
    with tempfile.TemporaryDirectory() as t:
        override = Path(t) / "override"
        override.write_text("")
        text = subprocess.run(["apt-ftparchive", "packages", str(pool.relative_to(repo)), str(override)], cwd=repo,
                              capture_output=True, text=True, check=True).stdout
    entries = {}
    for stanza in text.strip().split("\n\n"):
        name = next((l.split(": ", 1)[1] for l in stanza.splitlines() if l.startswith("Filename: ")), None)
        if name:
            entries[name] = stanza
    return entries


def make(out, key, debs):
    fingerprint = signing_key(key)
    pool = out / "pool" / "main" / "k" / "kiosk"
    pool.mkdir(parents=True, exist_ok=True)
    for deb in debs:
        shutil.copy2(deb, pool / deb.name)
    entries = stanzas(out, pool)
    for (suite, arch), listed in offered(pool).items():
        binary = out / "dists" / suite / "main" / f"binary-{arch}"
        binary.mkdir(parents=True, exist_ok=True)
        text = "".join(entries[str(d.relative_to(out))] + "\n\n" for d in listed).rstrip("\n") + ("\n" if listed else "")
        (binary / "Packages").write_text(text)
        with gzip.open(binary / "Packages.gz", "wt") as f:
            f.write(text)
    for suite in SUITES:
        dist = out / "dists" / suite
        for old in ("Release", "InRelease", "Release.gpg"):
            (dist / old).unlink(missing_ok=True)
        release = subprocess.run(
            ["apt-ftparchive", "-o", "APT::FTPArchive::Release::Origin=Kiosk", "-o", "APT::FTPArchive::Release::Label=Kiosk",
             "-o", f"APT::FTPArchive::Release::Suite={suite}", "-o", f"APT::FTPArchive::Release::Codename={suite}",
             "-o", f"APT::FTPArchive::Release::Architectures={' '.join(ARCHITECTURES)}",
             "-o", "APT::FTPArchive::Release::Components=main",
             "-o", "APT::FTPArchive::Release::Description=Kiosk, the touch panel's packages", "release", "."],
            cwd=dist, capture_output=True, text=True, check=True).stdout
        (dist / "Release").write_text(release)
        gpg(key, "--yes", "--local-user", fingerprint, "--clearsign", "--output", str(dist / "InRelease"), str(dist / "Release"))
        gpg(key, "--yes", "--local-user", fingerprint, "--armor", "--detach-sign", "--output", str(dist / "Release.gpg"), str(dist / "Release"))
    gpg(key, "--yes", "--output", str(out / KEYRING), "--export", fingerprint)
    for suite in SUITES:
        for arch in ARCHITECTURES:
            listed = [l.split(": ", 1)[1] for l in (out / "dists" / suite / "main" / f"binary-{arch}" / "Packages").read_text().splitlines()
                      if l.startswith("Version: ")]
            print(f"repo: {suite} {arch}: kiosk {', '.join(listed) or '(none)'}")
    print(f"repo: {out} signed by {fingerprint}; its key for apt: {out / KEYRING}")


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--out", type=Path, default=ROOT / "out" / "repo")
    p.add_argument("--key", type=Path, default=Path(os.environ.get("KIOSK_REPO_KEY", Path.home() / ".local/share/kiosk/repo-key")))
    p.add_argument("debs", nargs="*", type=Path)
    a = p.parse_args()
    debs = a.debs
    if not debs:
        version = subprocess.run([str(ROOT / ".build/release/kiosk"), "--version"], capture_output=True, text=True, check=True).stdout.strip()
        debs = sorted((ROOT / "out").glob(f"kiosk_{version}_*.deb"))
        if not debs:
            raise SystemExit(f"repo: no out/kiosk_{version}_*.deb: make deb builds them")
    if a.key.resolve().is_relative_to(ROOT):
        raise SystemExit(f"repo: the signing key {a.key} is inside the project: keep it outside (--key or KIOSK_REPO_KEY)")
    make(a.out.resolve(), a.key.resolve(), [d.resolve() for d in debs])


if __name__ == "__main__":
    sys.exit(main())
