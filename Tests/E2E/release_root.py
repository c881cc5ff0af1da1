"""Another Debian release's kiosk compositors on this machine: a root folder that mmdebstrap
fills with that release's cage, sway, grim and wlr-randr and the libraries Kiosk links, and a
command prefix that runs a program inside it as a given user (its own mount namespace with
/dev, /proc, /sys and /tmp bound in, so sockets and files under /tmp are shared with the test).

Roots are cached in .build/e2e-roots by what goes into them; building one needs root.
`python3 Tests/E2E/release_root.py trixie` builds one and prints its folder."""
import hashlib
import os
import shutil
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
CACHE = Path(os.environ.get("KIOSK_E2E_ROOTS", HERE.parent.parent / ".build" / "e2e-roots"))
MIRROR = "http://deb.debian.org/debian"
COMPOSITORS = ["cage", "sway", "grim", "wlr-randr", "xwayland"]
# What the kiosk package depends on, by the names its Depends field uses (trixie's t64
# libraries provide them).
KIOSK_LIBRARIES = "libfcft4 (>= 3.0.1), libpixman-1-0, libpng16-16, libwayland-client0, libxkbcommon0, fonts-dejavu-core"

# Runs "$@" in root $1 as uid:gid $2 (sh -c script; unshare gives it a private mount namespace
# that ends with the process, so nothing is left mounted).
ENTER = ('r=$1; u=$2; shift 2; for d in dev proc sys tmp; do mount --rbind "/$d" "$r/$d" || exit 125; done; '
         'exec chroot --userspec="$u" --groups="${u#*:}" "$r" "$@"')


def prefix(root, uid, gid):
    """The command prefix that runs a program inside `root` as uid:gid."""
    return ["unshare", "--mount", "--propagation", "private", "--", "sh", "-c", ENTER, "sh", str(root), f"{uid}:{gid}"]


def build(suite):
    h = hashlib.sha256(Path(__file__).read_bytes() + suite.encode()).hexdigest()[:16]
    out = CACHE / f"{suite}-{h}"
    if (out / "done").exists():
        return out / "root"
    if os.geteuid() != 0:
        raise PermissionError("building another release's root needs root (mmdebstrap into a folder)")
    for old in CACHE.glob(f"{suite}-*"):
        shutil.rmtree(old, ignore_errors=True)
    out.mkdir(parents=True)
    cmd = ["mmdebstrap", "--variant=apt", "--include=" + ",".join(COMPOSITORS),
           "--dpkgopt=path-exclude=/usr/share/doc/*", "--dpkgopt=path-exclude=/usr/share/man/*",
           "--dpkgopt=path-exclude=/usr/share/locale/*",
           f"--customize-hook=chroot \"$1\" apt-get satisfy -y -q --no-install-recommends '{KIOSK_LIBRARIES}'",
           suite, str(out / "root"), f"deb {MIRROR} {suite} main"]
    with open(out / "mmdebstrap.log", "w") as f:
        r = subprocess.run(cmd, stdout=f, stderr=subprocess.STDOUT)
    if r.returncode != 0:
        raise RuntimeError("mmdebstrap failed:\n" + "\n".join((out / "mmdebstrap.log").read_text().splitlines()[-30:]))
    (out / "done").write_text(suite + "\n")
    return out / "root"


if __name__ == "__main__":
    print(build(sys.argv[1] if len(sys.argv) > 1 else "trixie"))
