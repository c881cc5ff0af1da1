"""Another Debian release's kiosk compositors on this machine: a root folder that mmdebstrap
fills with that release's cage, sway, grim and wlr-randr and the libraries Kiosk links, and a
command prefix that runs a program inside it as a given user (its own mount namespace with
/dev, /proc, /sys and /tmp bound in, so sockets and files under /tmp are shared with the test).

Roots are cached in .build/e2e-roots by what goes into them (Packaging/roots.py); building one
needs root. `python3 Tests/E2E/release_root.py trixie` builds one and prints its folder."""
import os
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent.parent / "Packaging"))
import roots  # noqa: E402

CACHE = Path(os.environ.get("KIOSK_E2E_ROOTS", HERE.parent.parent / ".build" / "e2e-roots"))
COMPOSITORS = ["cage", "sway", "grim", "wlr-randr", "xwayland"]
# What the kiosk package depends on, by the names its Depends field uses (trixie's t64
# libraries provide them).
KIOSK_LIBRARIES = ("libfcft4 (>= 3.0.1), libpixman-1-0, libpng16-16, libwayland-client0, libxkbcommon0, "
                   "libespeak-ng1, libasound2, fonts-dejavu-core")


def prefix(root, uid, gid):
    """The command prefix that runs a program inside `root` as uid:gid."""
    return roots.prefix(root, uid, gid)


def build(suite):
    def make(out):
        roots.mmdebstrap(["--variant=apt", "--include=" + ",".join(COMPOSITORS),
                          "--dpkgopt=path-exclude=/usr/share/doc/*", "--dpkgopt=path-exclude=/usr/share/man/*",
                          "--dpkgopt=path-exclude=/usr/share/locale/*",
                          f"--customize-hook=chroot \"$1\" apt-get satisfy -y -q --no-install-recommends '{KIOSK_LIBRARIES}'",
                          suite, str(out / "root"), f"deb {roots.MIRROR} {suite} main"], out / "mmdebstrap.log")
    recipe = "\n".join([Path(__file__).read_text(), suite])
    return roots.cached(CACHE, suite, recipe, make) / "root"


if __name__ == "__main__":
    print(build(sys.argv[1] if len(sys.argv) > 1 else "trixie"))
