"""A booted Debian in qemu for the tests: the image from image.py under a throwaway overlay, the
kernel booted directly, the guest's agent on a virtio serial port, QMP for screendumps and power
cuts. A PC (q35) for amd64, KVM when it really runs a guest (a /dev/kvm that opens is not
enough), software emulation otherwise; for arm64 the virt board with a Raspberry Pi 4's core
(Cortex-A72), always in software emulation."""
import array
import base64
import itertools
import json
import os
import shutil
import socket
import subprocess
import tempfile
import time
from pathlib import Path

from PIL import Image

SLACK = float(os.environ.get("KIOSK_TEST_SLACK", "3"))
QEMU = "qemu-system-x86_64"
_kvm_works = None
# What each architecture's machine differs in: qemu, the board and core, the kernel's console.
MACHINES = {
    "amd64": {"qemu": QEMU, "machine": ["-machine", "q35"], "console": "ttyS0",
              # Five-level paging off: a kiosk never has it, and it is the less-trodden path of the emulator.
              "cpu": "max,la57=off"},
    "arm64": {"qemu": "qemu-system-aarch64", "machine": ["-machine", "virt"], "console": "ttyAMA0", "cpu": "cortex-a72"},
}


def kvm_works(image):
    """Whether KVM runs this kernel: it must print its banner on the serial line within seconds."""
    global _kvm_works
    if _kvm_works is None:
        _kvm_works = False
        if os.access("/dev/kvm", os.R_OK | os.W_OK):
            with tempfile.TemporaryDirectory() as d:
                log = Path(d) / "serial.log"
                p = subprocess.Popen([QEMU, "-machine", "q35", "-accel", "kvm", "-m", "256", "-nodefaults",
                                      "-display", "none", "-kernel", str(image / "vmlinuz"),
                                      "-append", "console=ttyS0 panic=-1", "-no-reboot", "-serial", f"file:{log}"],
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
                try:
                    for _ in range(100):
                        if log.exists() and b"Linux version" in log.read_bytes():
                            _kvm_works = True
                            break
                        if p.poll() is not None:
                            break
                        time.sleep(0.1)
                finally:
                    p.kill()
                    p.wait()
    return _kvm_works


class AgentError(RuntimeError):
    pass


class GuestPanic(RuntimeError):
    """The guest's kernel panicked: it will not answer again."""


class VM:
    """One virtual machine. `display` is "virtio" (virtio-gpu: a GPU with PRIME, as most panels
    have) or "std" (qemu's standard VGA: the bochs driver, a plain framebuffer without PRIME)."""

    def __init__(self, image, workdir, display="virtio", size=(1280, 800), pointer=True, memory=2048, network=False,
                 arch="amd64", card=None, sound=False, rtc=True):
        self.image = Path(image)
        self.arch, self.machine = arch, MACHINES[arch]
        self.dir = Path(workdir)
        self.dir.mkdir(parents=True, exist_ok=True)
        self.display, self.size, self.pointer, self.memory = display, size, pointer, memory
        # An HD Audio sound card whose line out qemu records into sound.wav (44.1 kHz stereo).
        self.sound = sound
        # `rtc=False`: a board without a real-time clock, as a Raspberry Pi 4 (the virt board's
        # PL031 left without its driver, so nothing sets the system clock at boot).
        self.rtc = rtc
        # Offline unless asked (a debugging shell): the tests install from apt's cache only.
        self.network = network
        self.overlay = self.dir / "disk.qcow2"
        # `card`: another machine's disk after its power_off, as an SD card moved to another board.
        self.card = Path(card) if card else None
        self.new_overlay()
        self.accel = "kvm" if arch == "amd64" and kvm_works(self.image) else "tcg,thread=multi"
        self.proc = None
        self.qmp = None
        self.agent = None
        self.ids = itertools.count(1)
        self.boot_id = None
        self.boots = 0
        self.serial_seen = 0  # bytes of the serial log from boots before the last reset
        self.panics = []  # serial logs of first boots that panicked and were started again

    # -- life cycle ------------------------------------------------------------------------

    def command(self):
        w, h = self.size
        m = self.machine
        append = f"root=/dev/vda rw console={m['console']} quiet loglevel=4 systemd.show_status=0"
        if not self.pointer and self.arch == "amd64":
            append += " i8042.noaux=1"  # no PS/2 mouse: the machine has no pointer device
        if not self.rtc and self.arch == "arm64":
            append += " initcall_blacklist=pl031_driver_init module_blacklist=rtc_pl031"
        display = (["-device", f"virtio-gpu-pci,xres={w},yres={h}"] if self.display == "virtio"
                   else ["-device", f"VGA,xres={w},yres={h}"])
        return [m["qemu"], *m["machine"], "-accel", self.accel, "-cpu", m["cpu"], "-smp", "2", "-m", str(self.memory),
                "-nodefaults", "-display", "none", *display, *self.sound_card(),
                "-kernel", str(self.image / "vmlinuz"), "-initrd", str(self.image / "initrd.img"), "-append", append,
                "-drive", f"file={self.overlay},if=none,id=disk,format=qcow2,discard=unmap",
                "-device", "virtio-blk-pci,drive=disk",
                "-device", "virtio-rng-pci",
                *(["-nic", "user,model=virtio-net-pci"] if self.network else ["-nic", "none"]),
                "-device", "virtio-serial-pci",
                "-chardev", f"socket,id=agent,path={self.dir / 'agent.sock'},server=on,wait=off",
                "-device", "virtserialport,chardev=agent,name=org.kiosk.agent",
                "-qmp", f"unix:{self.dir / 'qmp.sock'},server=on,wait=off",
                "-serial", f"file:{self.dir / 'serial.log'}"]

    def sound_card(self):
        if not self.sound:
            return []
        return ["-audiodev", f"wav,id=snd,path={self.dir / 'sound.wav'}", "-device", "intel-hda",
                "-device", "hda-output,audiodev=snd"]

    def sound_recorded(self):
        """How many bytes of sound the line out has recorded (a mark for `sound_heard`)."""
        path = self.dir / "sound.wav"
        return path.stat().st_size if path.exists() else 0

    def sound_heard(self, since=0):
        """Seconds of the line out's recording after byte `since` that are not silence (qemu
        writes the WAV header's sizes only when it exits: the samples are read as they are)."""
        data = (self.dir / "sound.wav").read_bytes()[max(44, since):]
        samples = array.array("h", data[:len(data) // 4 * 4])
        window = 4410 * 2  # 0.1 s of stereo samples
        return 0.1 * sum(1 for i in range(0, len(samples) - window + 1, window)
                         if max(max(samples[i:i + window]), -min(samples[i:i + window])) > 1000)

    def shell(self):
        """The machine in the foreground, its serial console (root, logged in) on this terminal:
        `make vm-shell`. Ctrl-A X quits."""
        cmd = self.command()
        i = cmd.index("-serial")
        cmd[i:i + 2] = ["-serial", "mon:stdio"]
        return subprocess.call(cmd)

    def start(self, attempts=3):
        """Boots the machine. A first boot whose kernel panics (software emulation has, rarely,
        under a different host) is started again from a fresh overlay, kept in `panics`."""
        for attempt in range(attempts):
            try:
                return self._start()
            except GuestPanic as e:
                self.panics.append(str(e))
                if attempt == attempts - 1:
                    raise
                self.close()
                self.new_overlay()

    def new_overlay(self):
        """A throwaway disk over the image: what the machine writes goes here."""
        self.overlay.unlink(missing_ok=True)
        backing = ["-F", "qcow2", "-b", str(self.card)] if self.card else ["-F", "raw", "-b", str(self.image / "rootfs.img")]
        subprocess.run(["qemu-img", "create", "-q", "-f", "qcow2", *backing, str(self.overlay)], check=True)

    def _start(self):
        self.serial_seen = 0  # qemu starts the log afresh
        self.proc = subprocess.Popen(self.command(), stdout=open(self.dir / "qemu.log", "w"), stderr=subprocess.STDOUT)
        self.qmp = self._connect("qmp.sock")
        self.qmp_file = self.qmp.makefile("rwb")
        self.qmp_file.readline()  # greeting
        self._qmp("qmp_capabilities")
        self.agent = self._connect("agent.sock")
        self.agent_buffer = b""
        self.wait_booted()
        return self

    def _connect(self, name):
        path = self.dir / name
        deadline = time.monotonic() + 30
        while True:
            try:
                s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
                s.connect(str(path))
                return s
            except OSError:
                s.close()
                if self.proc.poll() is not None:
                    raise RuntimeError(f"qemu exited: {(self.dir / 'qemu.log').read_text()}")
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.1)

    def wait_booted(self, timeout=240):
        """Waits for the agent of a boot other than the last one seen; returns seconds taken."""
        start = time.monotonic()
        deadline = start + timeout * SLACK
        while time.monotonic() < deadline:
            try:
                r = self.call("ping", _timeout=3)
            except (AgentError, OSError, ValueError):
                if self.panicked():
                    raise GuestPanic(f"the guest's kernel panicked; serial log:\n{self.serial_tail()}")
                continue
            if r["boot_id"] != self.boot_id:
                self.boot_id = r["boot_id"]
                self.boots += 1
                return time.monotonic() - start
            time.sleep(1)
        raise TimeoutError(f"the guest did not boot in {timeout * SLACK:.0f} s; serial log:\n{self.serial_tail()}")

    def close(self):
        if self.proc and self.proc.poll() is None:
            try:
                self._qmp("quit")
            except OSError:
                pass
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        for s in (self.qmp, self.agent):
            if s:
                s.close()

    def power_cut(self):
        """The plug pulled: a hard reset, whatever the guest had not written is gone."""
        self._qmp("system_reset")
        return self.wait_booted_again()

    def wait_booted_again(self, attempts=3):
        """`wait_booted` after a reboot or a reset. A boot whose kernel panics early (Debian 13's
        6.12 kernel, rarely, under multi-threaded software emulation: an int3 at a code site being
        patched) is reset, as a hardware watchdog would reset a panel, and kept in `panics`;
        the seconds returned count it."""
        start = time.monotonic()
        for attempt in range(attempts):
            try:
                self.wait_booted()
                return time.monotonic() - start
            except GuestPanic as e:
                self.panics.append(str(e))
                if attempt == attempts - 1:
                    raise
                self.serial_seen = (self.dir / "serial.log").stat().st_size
                self._qmp("system_reset")

    def power_off(self):
        """`systemctl poweroff`, waited for: the disk left whole, as an operator shuts down."""
        self.run("systemctl poweroff", check=False, timeout=10)
        self.proc.wait(timeout=120 * SLACK)

    def reboot(self):
        self.run("systemctl reboot", check=False, timeout=10)
        return self.wait_booted_again()

    # -- QMP -------------------------------------------------------------------------------

    def _qmp(self, cmd, **args):
        self.qmp_file.write(json.dumps({"execute": cmd, "arguments": args}).encode() + b"\n")
        self.qmp_file.flush()
        while True:
            line = self.qmp_file.readline()
            if not line:
                raise OSError("QMP closed")
            msg = json.loads(line)
            if "return" in msg:
                return msg["return"]
            if "error" in msg:
                raise RuntimeError(f"QMP {cmd}: {msg['error']}")

    def screendump(self, path):
        """What the panel shows, exactly: the display device's scan-out, as an RGB image."""
        path = Path(path)
        self._qmp("screendump", filename=str(path), format="png")
        return Image.open(path).convert("RGB")

    def press(self, *keys, hold=0.15):
        """Keys pressed together on the machine's own keyboard (PS/2 on the PC, as a USB keyboard
        plugged into a panel reaches the kernel's input layer), QEMU's key codes: "alt", "sysrq",
        "ctrl", "delete", "f2", "power"…; released after `hold` seconds."""
        self._qmp("send-key", keys=[{"type": "qcode", "data": k} for k in keys], **{"hold-time": int(hold * 1000)})
        time.sleep(hold + 0.2)

    # -- the agent -------------------------------------------------------------------------

    def _agent_line(self, deadline):
        # A socket file object cannot be read again after a timeout: lines are cut here instead.
        while b"\n" not in self.agent_buffer:
            self.agent.settimeout(max(0.01, deadline - time.monotonic()))
            chunk = self.agent.recv(65536)
            if not chunk:
                raise AgentError("the agent's channel closed")
            self.agent_buffer += chunk
        line, self.agent_buffer = self.agent_buffer.split(b"\n", 1)
        return line

    def call(self, op, _timeout=None, **args):
        rid = next(self.ids)
        self.agent.sendall(json.dumps(dict(args, op=op, id=rid)).encode() + b"\n")
        deadline = time.monotonic() + (_timeout if _timeout is not None else 300 * SLACK)
        try:
            while True:
                line = self._agent_line(deadline)
                try:
                    reply = json.loads(line)
                except ValueError:
                    continue  # a half line from before a reboot
                if reply.get("id") != rid:
                    continue  # an answer to a request given up on
                if not reply.get("ok"):
                    raise AgentError(reply.get("error", "failed"))
                return reply
        except socket.timeout:
            raise AgentError(f"no answer to {op} in time")
        finally:
            self.agent.settimeout(None)

    def run(self, cmd, check=True, timeout=120, input="", **env):
        r = self.call("run", cmd=cmd, timeout=timeout * SLACK, env=env, input=input, _timeout=timeout * SLACK + 10)
        if check and r["rc"] != 0:
            raise AgentError(f"`{cmd}` exited {r['rc']}:\n{r['out']}{r['err']}")
        return r

    def out(self, cmd, **kw):
        return self.run(cmd, **kw)["out"].strip()

    def put(self, path, data, mode=0o644):
        for i in range(0, max(len(data), 1), 1 << 20):
            self.call("put", path=str(path), data=base64.b64encode(data[i:i + (1 << 20)]).decode(),
                      append=i > 0, mode=mode)

    def touch(self, *steps):
        self.call("touch", steps=[list(s) for s in steps])

    def panicked(self):
        """Whether the boot since the last reset panicked (the serial log after `serial_seen`)."""
        p = self.dir / "serial.log"
        return p.exists() and b"Kernel panic - not syncing" in p.read_bytes()[self.serial_seen:]

    def serial_tail(self, n=40):
        p = self.dir / "serial.log"
        return "\n".join(p.read_text(errors="replace").splitlines()[-n:]) if p.exists() else ""


def wait_for(what, predicate, timeout, interval=0.5):
    """Polls `predicate` until it returns something truthy; returns (value, seconds)."""
    start = time.monotonic()
    deadline = start + timeout * SLACK
    last = None
    while time.monotonic() < deadline:
        last = predicate()
        if last:
            return last, time.monotonic() - start
        time.sleep(interval)
    raise TimeoutError(f"{what}: not within {timeout * SLACK:.0f} s (last: {last!r})")


if __name__ == "__main__":
    # make vm-shell: the image for out/'s package, booted with a network, a shell on the console.
    import sys
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    import image
    deb = Path(sys.argv[1])
    suite = sys.argv[2] if len(sys.argv) > 2 else "bookworm"
    work = Path(tempfile.mkdtemp(prefix="kiosk-vm-shell-"))
    print(f"booting {suite} with {deb.name} in {work/'disk.qcow2'} (the package is not installed: "
          f"copy it in with the network, e.g. scp, or run the README's lines on a copy); Ctrl-A X quits")
    raise SystemExit(VM(image.build(deb, suite), work, network=True, arch=image.deb_arch(deb)).shell())
