"""The README's first command as a newcomer meets it: a fresh Debian 13 (amd64) with nothing but
apt, make, git, sudo and python3 — no Swift — a copy of the project in a user's home, and
`make run` typed by that user, who has sudo. make installs Debian's own Swift (swiftlang
6.0.3) and the -dev packages, builds, runs the kiosk in a headless weston and saves a
screenshot; the kiosk's own `kiosk snapshot` of the same scene is drawn beside it.

The fresh root is cached (.build/e2e-roots/newcomer-trixie-*) by what goes into it; each run
works on a copy, so everything `make run` installs is downloaded and installed again, as on a
newcomer's machine. This machine's copies of the Swift packages (/opt/swift-packages, which
/etc/gitconfig names for github.com) stand in for GitHub, where they exist.

make test starts a run in the background with the booted machines' images (`make vm-images`);
Tests/E2E/test_newcomer.py waits for it, or makes one if none was made for this source.
`python3 Tests/E2E/newcomer.py` makes one and prints its result. Needs root."""
import fcntl
import hashlib
import inspect
import json
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
PROJECT = HERE.parent.parent
sys.path.insert(0, str(PROJECT / "Packaging"))
import roots  # noqa: E402

SUITE = "trixie"
CACHE = Path(os.environ.get("KIOSK_E2E_ROOTS", PROJECT / ".build" / "e2e-roots"))
OUT = PROJECT / ".build" / "newcomer"
USER = "newcomer"
# What the newcomer had: apt (the variant), make, git, sudo and python3 (and passwd,
# which every installed system has, for their account).
PACKAGES = ["make", "git", "sudo", "python3", "ca-certificates", "passwd"]
# The screenshot make run saves, and what the kiosk draws of the same scene.
SHOT = OUT / "make-run.png"
SNAPSHOT = OUT / "snapshot.png"
RESULT = OUT / "result.json"
SCENE = "setup"
LOG = OUT / "make-run.log"


def fresh_root():
    def make(out):
        roots.mmdebstrap(["--variant=apt", "--include=" + ",".join(PACKAGES),
                          f"--customize-hook=chroot \"$1\" useradd --create-home --shell /bin/bash {USER}",
                          f"--customize-hook=echo '{USER} ALL=(ALL) NOPASSWD: ALL' > \"$1/etc/sudoers.d/{USER}\"",
                          SUITE, str(out / "root"), f"deb {roots.MIRROR} {SUITE} main"], out / "mmdebstrap.log")
    recipe = "\n".join([SUITE, *PACKAGES, USER, inspect.getsource(make)])
    return roots.cached(CACHE, f"newcomer-{SUITE}", recipe, make) / "root"


def tracked_files():
    """The project's tracked files, as they are in the working tree."""
    names = subprocess.run(["git", "-C", str(PROJECT), "ls-files", "-z"], capture_output=True, check=True).stdout
    return [n for n in sorted(names.decode().split("\0")) if n and (PROJECT / n).is_file()]


def source_key():
    """What identifies the project's source as it is: its tracked files' contents."""
    digest = hashlib.sha256()
    for name in tracked_files():
        digest.update(name.encode() + b"\0" + (PROJECT / name).read_bytes())
    return digest.hexdigest()[:16]


def copy_project(home, uid, gid):
    """The project's tracked files as they are here (a clone of what is committed, and of what
    is being changed), owned by the newcomer."""
    for name in tracked_files():
        dst = home / "kiosk" / name
        dst.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(PROJECT / name, dst)
    for d, _, fs in os.walk(home):
        os.chown(d, uid, gid)
        for f in fs:
            os.chown(os.path.join(d, f), uid, gid)


def downloaded_bytes(root):
    return sum(p.stat().st_size for p in (root / "var/cache/apt/archives").glob("*.deb"))


def in_root(root, uid, gid, command, timeout, log=None):
    env = ["env", "-i", f"HOME=/home/{USER}", f"USER={USER}", f"LOGNAME={USER}", "LANG=C.UTF-8",
           "PATH=/usr/local/bin:/usr/bin:/bin"]
    return subprocess.run([*roots.prefix(root, uid, gid, roots.swift_package_binds()), *env, "sh", "-c", command], timeout=timeout,
                          stdout=log or subprocess.PIPE, stderr=subprocess.STDOUT, text=True)


def make_run():
    """The whole run; its result (also written to RESULT)."""
    OUT.mkdir(parents=True, exist_ok=True)
    key = source_key()
    root = OUT / "root"
    shutil.rmtree(root, ignore_errors=True)
    subprocess.run(["cp", "-a", "--reflink=auto", str(fresh_root()), str(root)], check=True)
    shutil.copy("/etc/resolv.conf", root / "etc/resolv.conf")
    passwd = next(line.split(":") for line in (root / "etc/passwd").read_text().splitlines() if line.startswith(USER + ":"))
    uid, gid = int(passwd[2]), int(passwd[3])
    if roots.SWIFT_PACKAGES.exists():
        # The stand-in's repositories are root's; GitHub's would be nobody's concern.
        (root / "home" / USER / ".gitconfig").write_text("[safe]\n\tdirectory = *\n")
    copy_project(root / "home" / USER, uid, gid)
    start = time.monotonic()
    with open(LOG, "w") as log:
        rc = in_root(root, uid, gid, "cd ~/kiosk && make run", timeout=45 * 60, log=log).returncode
    seconds = time.monotonic() - start
    output = LOG.read_text()
    result = {"key": key, "rc": rc, "seconds": round(seconds, 1), "download_bytes": downloaded_bytes(root),
              "swift": in_root(root, uid, gid, "swift --version 2>&1 | head -1", 60).stdout.strip()}
    shot = re.search(r"Screenshot: (\S+\.png)", output)
    if rc == 0 and shot:
        shutil.copy(root / shot.group(1).lstrip("/"), SHOT)
        result["screenshot"] = str(SHOT)
        result.update(snapshot(root, uid, gid))
    shutil.rmtree(root, ignore_errors=True)  # 4 GB once installed
    RESULT.write_text(json.dumps(result, indent=2) + "\n")
    return result


def snapshot(root, uid, gid):
    """What the newcomer's kiosk draws headless of the setup (a first start's screen: nothing is
    saved yet) at headless weston's size, with the root's fonts."""
    out = f"/home/{USER}/snapshot.png"
    r = in_root(root, uid, gid, f"cd ~/kiosk && .build/release/kiosk snapshot --scene {SCENE} --size 1920x1080 --out {out}", 120)
    if r.returncode != 0:
        return {"snapshot_error": r.stdout[-2000:]}
    shutil.copy(root / out.lstrip("/"), SNAPSHOT)
    return {"scene": SCENE, "snapshot": str(SNAPSHOT)}


def result():
    """This source's result: the one a background run made (waiting for it while it runs), or a
    new one."""
    OUT.mkdir(parents=True, exist_ok=True)
    with open(OUT / "lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if RESULT.exists():
            done = json.loads(RESULT.read_text())
            if done.get("key") == source_key():
                return done
        return make_run()


if __name__ == "__main__":
    print(json.dumps(result(), indent=2))
