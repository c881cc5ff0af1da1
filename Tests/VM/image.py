"""A bootable Debian image for the virtual-machine tests, made the way Debian makes systems: by
mmdebstrap from Debian's own packages, the kernel booted directly. The image holds a plain
system (systemd, logind, udev, an operator with sudo), the test agent, and what the kiosk
package depends on and recommends — installed, as apt would install them with it, because
unpacking and configuring ~200 packages under software emulation takes minutes a machine. The
package itself is installed by the tests with the README's `sudo apt install ./out/kiosk_….deb`:
a dependency the package forgets to declare is missing here as on a fresh machine.

An arm64 image (for the arm64 package) is made the same way from Debian's arm64 packages, its
maintainer scripts run by qemu-user through binfmt_misc (registered here if the machine has
not), and it has a render-only DRM device (vgem) as card0, its display card1, as on a Raspberry
Pi (v3d renders, vc4 drives the display).

Images are cached by what goes into them (this recipe, the agent, the suite, the architecture and
the package's dependency fields): `python3 Tests/VM/image.py DEB [SUITE]` builds one and prints
its folder."""
import fcntl
import hashlib
import shlex
import os
import shutil
import subprocess
import time
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
CACHE = Path(os.environ.get("KIOSK_VM_CACHE", ROOT / ".build" / "vm"))
MIRROR = "http://deb.debian.org/debian"
SECURITY = "http://deb.debian.org/debian-security"

# A plain booted Debian, plus what the tests use inside it: python3-evdev for the uinput
# touchscreen, procps to look, wget for the update lines of docs/updating.md (Debian's standard
# system has it). (Not libinput-tools: Debian 13's brings GTK, minutes of package
# scripts under emulation; `make vm-shell` has a network to install it.)
PACKAGES = [
    "systemd-sysv", "udev", "dbus", "kmod", "login", "passwd", "sudo",
    "procps", "python3", "python3-evdev", "e2fsprogs", "wget",
]
# Per release, what its tests use besides: wlr-randr turns cage 0.2.0's output (it has no -r).
SUITE_PACKAGES = {"trixie": ["wlr-randr"]}
# Per release and architecture: python3-dbusmock's iio-sensor-proxy on the system bus is the
# accelerometer of the Debian 13 PC's panel (not the emulated board's: its package scripts
# would run under qemu-user for a check the PC makes).
SUITE_ARCH_PACKAGES = {("trixie", "amd64"): ["python3-dbusmock"]}
# Modules the initramfs needs to find the root disk; the rest load from it.
INITRAMFS_MODULES = ["virtio_pci", "virtio_blk", "ext4"]
# Units that would wake a test machine for nothing (the idle check measures CPU).
QUIET = ["apt-daily.timer", "apt-daily-upgrade.timer", "man-db.timer", "e2scrub_all.timer",
         "fstrim.timer", "dpkg-db-backup.timer", "systemd-tmpfiles-clean.timer"]

# The serial console each architecture's machine has (vm.py): the PC's 16550, the virt board's PL011.
CONSOLE = {"amd64": "ttyS0", "arm64": "ttyAMA0"}
# A Raspberry Pi's display and render devices are two: vgem, loaded before virtio-gpu, is card0.
RENDER_ONLY_CARD0 = "softdep virtio_gpu pre: vgem\n"

AGENT_UNIT = """[Unit]
Description=Kiosk test agent (virtio serial)
DefaultDependencies=no
After=systemd-udevd.service systemd-modules-load.service
Before=sysinit.target

[Service]
ExecStartPre=/sbin/modprobe -a uinput virtio_console
ExecStart=/usr/bin/python3 /usr/local/lib/kiosk-test/agent.py
Restart=always
RestartSec=0.5

[Install]
WantedBy=sysinit.target
"""

SERIAL_AUTOLOGIN = """[Service]
ExecStart=
ExecStart=-/sbin/agetty --autologin root --keep-baud 115200,57600,38400,9600 - $TERM
"""


def dependencies(deb):
    """The package's Pre-Depends, Depends and Recommends as one `apt-get satisfy` string."""
    fields = {}
    for line in deb_fields(deb).splitlines():
        key, _, value = line.partition(": ")
        fields[key] = value
    return ", ".join(fields[k] for k in ("Pre-Depends", "Depends", "Recommends") if fields.get(k))


def deb_fields(deb):
    out = subprocess.run(["dpkg-deb", "-f", str(deb), "Pre-Depends", "Depends", "Recommends"],
                         capture_output=True, text=True, check=True).stdout
    return out


def deb_arch(deb):
    return subprocess.run(["dpkg-deb", "-f", str(deb), "Architecture"], capture_output=True, text=True, check=True).stdout.strip()


def image_key(deb, suite):
    h = hashlib.sha256()
    h.update(Path(__file__).read_bytes())
    h.update((HERE / "agent.py").read_bytes())
    h.update(suite.encode())
    h.update(deb_fields(deb).encode())
    arch = deb_arch(deb)
    return f"{suite}-{h.hexdigest()[:16]}" if arch == "amd64" else f"{suite}-{arch}-{h.hexdigest()[:16]}"


def foreign_binaries(arch):
    """Lets this machine run `arch`'s programs (qemu-user-static, registered with binfmt_misc's
    F flag so they run inside the image's chroot too), as mmdebstrap needs for maintainer scripts."""
    name = {"arm64": "aarch64"}[arch]
    misc = Path("/proc/sys/fs/binfmt_misc")
    if not (misc / "register").exists():
        subprocess.run(["mount", "-t", "binfmt_misc", "binfmt_misc", str(misc)], check=True)
    if not (misc / f"qemu-{name}").exists():
        (misc / "register").write_text(Path(f"/usr/lib/binfmt.d/qemu-{name}.conf").read_text().strip())


def sources(suite):
    security = f"{suite}-security"
    return "\n".join([
        f"deb {MIRROR} {suite} main",
        f"deb {MIRROR} {suite}-updates main",
        f"deb {SECURITY} {security} main",
    ])


def build(deb, suite="bookworm", log=sys.stderr):
    """The folder holding rootfs.img, vmlinuz and initrd.img for this package and suite. Another
    process building the same image (make vm starts the arm64 one early) is waited for."""
    deb = Path(deb).resolve()
    out = CACHE / image_key(deb, suite)
    if (out / "done").exists():
        return out
    if os.geteuid() != 0:
        raise PermissionError("building the VM image needs root (mmdebstrap into a folder, then mke2fs -d)")
    CACHE.mkdir(parents=True, exist_ok=True)
    with open(CACHE / f"{out.name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not (out / "done").exists():
            make(deb, suite, out)
    return out


def make(deb, suite, out):
    arch = deb_arch(deb)
    if out.exists():
        shutil.rmtree(out)
    out.mkdir(parents=True)
    if arch != "amd64":
        foreign_binaries(arch)
    tree = out / "rootfs"
    hooks = [
        # Before the kernel is installed: a small initramfs (MODULES=dep cannot see the guest's disk),
        # made once by the kernel's postinst; the trigger that would make it again is declined.
        "--essential-hook=mkdir -p \"$1/etc/initramfs-tools/conf.d\" && echo MODULES=list > \"$1/etc/initramfs-tools/conf.d/kiosk-test.conf\""
        f" && printf '%s\\n' {' '.join(INITRAMFS_MODULES)} >> \"$1/etc/initramfs-tools/modules\""
        " && echo update_initramfs=no > \"$1/etc/initramfs-tools/update-initramfs.conf\"",
        f"--customize-hook=mkdir -p \"$1/usr/local/lib/kiosk-test\"",
        f"--customize-hook=copy-in {HERE / 'agent.py'} /usr/local/lib/kiosk-test",
        # What the package depends on and recommends, as apt installs it with the package: this
        # machine's apt, as mmdebstrap's own, so that only dpkg runs emulated in a foreign image.
        "--customize-hook=APT_CONFIG=\"$MMDEBSTRAP_APT_CONFIG\" apt-get -o DPkg::Chroot-Directory=\"$1\" satisfy -y -q"
        f" -o APT::Install-Recommends=true {shlex.quote(dependencies(deb))}",
        "--customize-hook=" + customize_script(arch),
    ]
    cmd = ["mmdebstrap", "--variant=apt", f"--architectures={arch}",
           "--include=" + ",".join(PACKAGES + [f"linux-image-{arch}"] + SUITE_PACKAGES.get(suite, [])
                                   + SUITE_ARCH_PACKAGES.get((suite, arch), [])),
           "--dpkgopt=force-confold",  # the initramfs setting written before its package
           "--dpkgopt=path-exclude=/usr/share/doc/*", "--dpkgopt=path-include=/usr/share/doc/*/copyright",
           "--dpkgopt=path-exclude=/usr/share/man/*", "--dpkgopt=path-exclude=/usr/share/locale/*",
           "--skip=cleanup/apt/lists", *hooks, suite, str(tree), sources(suite)]
    with open(out / "mmdebstrap.log", "w") as f:
        # Each line stamped with the seconds since the start: where an image's build spends its time.
        start = time.monotonic()
        with subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, errors="replace") as p:
            for line in p.stdout:
                f.write(f"{time.monotonic() - start:7.1f} {line}")
        r = p
    if r.returncode != 0:
        tail = (out / "mmdebstrap.log").read_text().splitlines()[-30:]
        raise RuntimeError("mmdebstrap failed:\n" + "\n".join(tail))
    for pattern, name in (("vmlinuz-*", "vmlinuz"), ("initrd.img-*", "initrd.img")):
        found = sorted((tree / "boot").glob(pattern))
        if not found:
            raise RuntimeError(f"the image has no /boot/{pattern}")
        shutil.copy(found[-1], out / name)
    # Room for the kiosk package and its dependencies, the journal and saved state.
    used = int(subprocess.run(["du", "-sm", str(tree)], capture_output=True, text=True, check=True).stdout.split()[0])
    subprocess.run(["mke2fs", "-q", "-t", "ext4", "-L", "root", "-d", str(tree), str(out / "rootfs.img"),
                    f"{used + 2048}M"], check=True)
    shutil.rmtree(tree)
    (out / "done").write_text(f"{suite}\n")
    prune(keep=out)


def customize_script(arch):
    """Shell run with the image as $1: the agent's unit, a root console on the serial line, an
    operator with sudo, fstab, a quiet system; on arm64, vgem as card0."""
    console = CONSOLE[arch]
    steps = [
        "set -e",
        "echo kiosk-vm > \"$1/etc/hostname\"",
        "printf '127.0.0.1 localhost\\n127.0.1.1 kiosk-vm\\n' > \"$1/etc/hosts\"",
        "echo '/dev/vda / ext4 defaults,errors=remount-ro 0 1' > \"$1/etc/fstab\"",
        f"cat > \"$1/etc/systemd/system/kiosk-test-agent.service\" <<'EOF'\n{AGENT_UNIT}EOF",
        "chroot \"$1\" systemctl enable kiosk-test-agent.service",
        f"mkdir -p \"$1/etc/systemd/system/serial-getty@{console}.service.d\"",
        f"cat > \"$1/etc/systemd/system/serial-getty@{console}.service.d/autologin.conf\" <<'EOF'\n{SERIAL_AUTOLOGIN}EOF",
        "chroot \"$1\" passwd -d root",
        "chroot \"$1\" useradd -m -s /bin/bash -G sudo admin",
        "echo 'admin ALL=(ALL) NOPASSWD:ALL' > \"$1/etc/sudoers.d/admin\"",
        f"chroot \"$1\" systemctl mask {' '.join(QUIET)}",
    ]
    if arch == "arm64":
        steps.append(f"printf '{RENDER_ONLY_CARD0}' > \"$1/etc/modprobe.d/kiosk-test-render-only.conf\"")
    return "\n".join(steps)


def prune(keep):
    """Older images of the same suite and architecture go: each is a few GiB."""
    kind = keep.name.rsplit("-", 1)[0]
    for d in CACHE.glob(f"{kind}-*"):
        if d.name in (keep.name, f"{keep.name}.lock") or d.name.rsplit("-", 1)[0] != kind:
            continue
        if d.is_dir():
            shutil.rmtree(d, ignore_errors=True)
        else:
            d.unlink(missing_ok=True)  # an old image's lock


if __name__ == "__main__":
    print(build(sys.argv[1], *(sys.argv[2:3] or ["bookworm"])))
