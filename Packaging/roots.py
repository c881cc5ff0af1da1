"""Debian root folders that mmdebstrap fills from Debian's own packages — another release's
compositors for the tests, the arm64 cross-building root and sysroot — cached by what goes into
them, and a command prefix that runs a program inside one. Building one needs root."""
import hashlib
import os
import shutil
import subprocess
from pathlib import Path

MIRROR = "http://deb.debian.org/debian"
# This machine's copies of the Swift packages, which /etc/gitconfig names for github.com: a
# root that builds Kiosk has both bound in where they exist.
SWIFT_PACKAGES = Path("/opt/swift-packages")


def swift_package_binds():
    return [p for p in (SWIFT_PACKAGES, Path("/etc/gitconfig")) if p.exists()]

# Runs "$@" in root $1 as uid:gid $2 with /dev, /proc, /sys and /tmp bound in, and each folder
# named in $3 (colon-separated) bound at the same path (sh -c script; unshare gives it a private
# mount namespace that ends with the process, so nothing is left mounted).
ENTER = ('r=$1; u=$2; binds=$3; shift 3; for d in dev proc sys tmp; do mount --rbind "/$d" "$r/$d" || exit 125; done; '
         'IFS=:; for d in $binds; do if [ -d "$d" ]; then mkdir -p "$r$d"; else mkdir -p "${r}${d%/*}"; touch "$r$d"; fi; '
         'mount --bind "$d" "$r$d" || exit 125; done; unset IFS; '
         'exec chroot --userspec="$u" --groups="${u#*:}" "$r" "$@"')


def prefix(root, uid=0, gid=0, binds=()):
    """The command prefix that runs a program inside `root` as uid:gid, with `binds` (folders or
    files of this machine) at the same paths inside."""
    return ["unshare", "--mount", "--propagation", "private", "--", "sh", "-c", ENTER, "sh", str(root), f"{uid}:{gid}",
            ":".join(str(b) for b in binds)]


def cached(cache, name, recipe, make):
    """The folder `cache`/`name`-<hash of recipe>, made by `make(folder)` unless a finished one is
    there; older folders of the same name go (each is hundreds of MiB)."""
    key = hashlib.sha256(recipe.encode()).hexdigest()[:16]
    out = Path(cache) / f"{name}-{key}"
    if (out / "done").exists():
        return out
    if os.geteuid() != 0:
        raise PermissionError(f"building {out.name} needs root (mmdebstrap into a folder, chroot)")
    for old in Path(cache).glob(f"{name}-*"):
        shutil.rmtree(old, ignore_errors=True)
    out.mkdir(parents=True)
    make(out)
    (out / "done").write_text(recipe)
    return out


def mmdebstrap(args, log):
    """Runs mmdebstrap with `args`, its output in `log`; a failure raises with its last lines."""
    with open(log, "w") as f:
        r = subprocess.run(["mmdebstrap", *args], stdout=f, stderr=subprocess.STDOUT)
    if r.returncode != 0:
        raise RuntimeError("mmdebstrap failed:\n" + "\n".join(Path(log).read_text().splitlines()[-30:]))
