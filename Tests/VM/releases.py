"""Other releases of this build, for the update tests: the same package stamped with a newer
version (its programs' own `--version` too: CVersion's `.kiosk_version` section, rewritten by
objcopy), or a broken one whose kiosk exits before its first frame, as one linked against a
library the panel lacks does."""
import hashlib
import subprocess
from pathlib import Path

# What a kiosk built against a missing library prints before it exits 127, in the broken release.
BROKEN_KIOSK = """#!/bin/sh
echo "kiosk: error while loading shared libraries: libfcft.so.99: cannot open shared object file: No such file or directory" >&2
exit 127
"""


def stamp(binary, version):
    data = version.encode()
    assert len(data) < 32, version
    section = binary.with_suffix(".stamp")
    section.write_bytes(data + b"\0" * (32 - len(data)))
    subprocess.run(["objcopy", "--update-section", f".kiosk_version={section}", str(binary)], check=True)
    section.unlink()


def release(deb, version, out, broken=False):
    """`deb` as `version` in folder `out`: control, programs and md5sums agree on it."""
    out.mkdir(parents=True, exist_ok=True)
    tree = out / f"tree-{version}"
    subprocess.run(["dpkg-deb", "-R", str(deb), str(tree)], check=True)
    control = tree / "DEBIAN" / "control"
    old = next(l for l in control.read_text().splitlines() if l.startswith("Version: "))
    control.write_text(control.read_text().replace(old + "\n", f"Version: {version}\n"))
    stamp(tree / "usr/libexec/kiosk/kiosk-session", version)
    kiosk = tree / "usr/bin/kiosk"
    if broken:
        kiosk.write_text(BROKEN_KIOSK)
    else:
        stamp(kiosk, version)
    kiosk.chmod(0o755)
    sums = []
    for line in (tree / "DEBIAN" / "md5sums").read_text().splitlines():
        digest, path = line.split(None, 1)
        sums.append(f"{hashlib.md5((tree / path).read_bytes()).hexdigest()}  {path}")
    (tree / "DEBIAN" / "md5sums").write_text("\n".join(sums) + "\n")
    arch = subprocess.run(["dpkg-deb", "-f", str(deb), "Architecture"], capture_output=True, text=True, check=True).stdout.strip()
    made = out / f"kiosk_{version}_{arch}.deb"
    subprocess.run(["dpkg-deb", "--root-owner-group", "-Zgzip", "-b", str(tree), str(made)], check=True, capture_output=True)
    subprocess.run(["rm", "-rf", str(tree)], check=True)
    return made
