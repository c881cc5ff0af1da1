"""Compositor test rigs: weston 10 (headless, pixman, kiosk-shell) plus Kiosk's own input module,
and Kiosk's strict test compositor (Tests/E2E/strict-compositor).

Each compositor is a child of the test process, in its own XDG_RUNTIME_DIR, and is always reaped.
Input goes through a FIFO; every command is acknowledged before the helper returns, so a test
never races the compositor.
"""
from __future__ import annotations

import glob
import os
import re
import signal
import subprocess
import tempfile
import time
from pathlib import Path

from PIL import Image

ROOT = Path(__file__).resolve().parents[2]
MODULE = Path(os.environ.get("KIOSK_TEST_MODULE", ROOT / ".build" / "e2e" / "kiosk-test-input.so")).resolve()
KIOSK = Path(os.environ.get("KIOSK_BIN", ROOT / ".build" / "release" / "kiosk")).resolve()
STRICT = Path(os.environ.get("KIOSK_STRICT", ROOT / ".build" / "e2e" / "strict-compositor")).resolve()
BAD_CLIENT = STRICT.parent / "bad-client"


def stop(proc: subprocess.Popen):
    """Ends a child process: SIGTERM, then SIGKILL after 5 s; always reaped."""
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


# Every limit a test waits under is stretched by this factor: a wait ends as soon as its
# condition holds, so a longer limit costs a passing test nothing, and a loaded CI machine (which
# once drew the screensaver at 28 fps where this one draws 37) must not fail a test for being
# slow. KIOSK_TEST_SLACK=1 gives the limits as written.
SLACK = float(os.environ.get("KIOSK_TEST_SLACK", "3"))


def wait_until(predicate, timeout=5.0, interval=0.02, what="condition"):
    """`what` may be a function: then it says, at the timeout, what the log holds by then."""
    timeout *= SLACK
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout}s waiting for {what() if callable(what) else what}")
        time.sleep(interval)


# A person's quickest tap lasts tens of milliseconds (the booted tests hold 50-80 ms); Kiosk
# ignores a contact that lifts within 4 ms of touching down (docs/touch.md: Touch Display 2's
# phantom taps have no duration). A script's "down N ..." then "up N" are sent this far apart.
PERSON_TAP = 0.04


def person_paced(commands):
    """`commands` cut before each `up N` whose `down N` is in the same send: the parts go
    PERSON_TAP apart, so a tap lasts as long as a person's."""
    parts, part, down = [], [], set()
    for c in commands:
        words = c.split()
        if words[:1] == ["up"] and len(words) > 1 and words[1] in down:
            parts.append(part)
            part, down = [], set()
        if words[:1] == ["down"] and len(words) > 1:
            down.add(words[1])
        part.append(c)
    return [p for p in parts + [part] if p]


class ScriptedCompositor:
    """A compositor scripted through a FIFO of line commands, in its own runtime folder.
    `send` paces taps as a person makes them (`person_paced`); `send_at_once` sends
    everything in one go, as a faulty controller does."""

    def send(self, *commands):
        for i, part in enumerate(person_paced(commands)):
            if i:
                time.sleep(PERSON_TAP)
            self.send_at_once(*part)

    def __init__(self, prefix, socket):
        self.dir = Path(tempfile.mkdtemp(prefix=prefix))
        self.runtime = self.dir / "runtime"
        self.runtime.mkdir(mode=0o700)
        self.fifo = self.dir / "control.fifo"
        os.mkfifo(self.fifo)
        self.socket = socket
        self.sent = 0
        self.proc: subprocess.Popen | None = None

    def open_fifo(self):
        # Opened read-write so the open never blocks, with or without the compositor reading it.
        self.fifo_fd = os.open(self.fifo, os.O_RDWR)

    def env(self, **extra):
        env = dict(os.environ, XDG_RUNTIME_DIR=str(self.runtime), WAYLAND_DISPLAY=self.socket)
        env.update(extra)
        return env

    def kill(self, sig=signal.SIGKILL):
        if self.proc.poll() is None:
            self.proc.send_signal(sig)
        self.proc.wait(timeout=10)

    def close(self):
        try:
            os.close(self.fifo_fd)
        except (OSError, AttributeError):
            pass
        if self.proc:
            stop(self.proc)


class Weston(ScriptedCompositor):
    def __init__(self, width=1920, height=1080, transform="normal", scale=1, shell="kiosk-shell.so", seat=True,
                 config=None, extra_env=None):
        """`config`: a weston.ini (e.g. the packaged one, whose [autolaunch] starts Kiosk); weston
        then runs the way kiosk-weston.service runs it, WATCHDOG_PID naming weston as systemd
        names the unit's main process. `extra_env`: more environment for weston and its clients."""
        super().__init__("kiosk-e2e-", "kiosk-e2e")
        extra_env = extra_env or {}
        self.acks = self.dir / "acks"
        self.acks.touch()
        self.log = self.dir / "weston.log"
        env = dict(os.environ, XDG_RUNTIME_DIR=str(self.runtime), KIOSK_TEST_FIFO=str(self.fifo),
                   KIOSK_TEST_ACKS=str(self.acks))
        env.pop("WAYLAND_DISPLAY", None)
        env.pop("DISPLAY", None)
        env.update(extra_env)
        args = ["weston", "--backend=headless-backend.so", "--use-pixman", f"--shell={shell}",
                "--debug", f"--socket={self.socket}", f"--width={width}", f"--height={height}",
                "--idle-time=0", f"--scale={scale}"]
        if seat:
            args.append(f"--modules={MODULE}")
        if transform != "normal":
            args.append(f"--transform={transform}")
        if config is not None:
            # The shell's pid is weston's once it execs.
            args = ["sh", "-c", 'WATCHDOG_PID=$$ exec "$@"', "sh", *args, f"--config={config}"]
        self.seat = seat
        with open(self.log, "w") as log:
            self.proc = subprocess.Popen(args, env=env, stdout=log, stderr=subprocess.STDOUT)
        wait_until(lambda: (self.runtime / self.socket).exists() or self.proc.poll() is not None,
                   timeout=10, what="weston's socket")
        if self.proc.poll() is not None:
            raise RuntimeError(f"weston exited at start:\n{self.log.read_text()}")
        if seat:
            wait_until(lambda: "seat ready" in self.log.read_text(), timeout=5, what="the test module")
        self.open_fifo()

    def send_at_once(self, *commands):
        """Sends commands to the input module and waits until weston has processed them all."""
        os.write(self.fifo_fd, "".join(c + "\n" for c in commands).encode())
        self.sent += len(commands)
        want = self.sent
        wait_until(lambda: len(self.acks.read_text().splitlines()) >= want, timeout=5, what=f"acks for {commands}")
        errors = [l for l in self.acks.read_text().splitlines() if l.startswith("error")]
        assert not errors, f"the input module rejected: {errors}"

    def screenshot(self) -> Image.Image:
        """The output as weston composites it, in the panel's physical orientation."""
        shots = self.dir / "shots"
        shots.mkdir(exist_ok=True)
        for old in shots.glob("*.png"):
            old.unlink()
        subprocess.run(["weston-screenshooter"], cwd=shots, env=self.env(), check=True, timeout=10,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        path = glob.glob(str(shots / "*.png"))[0]
        with Image.open(path) as im:
            # weston copies the unused byte of an XRGB buffer into its framebuffer and the
            # screenshooter writes it as alpha, un-premultiplying the colour; a display ignores
            # that byte, which compositing over black reproduces.
            im = im.convert("RGBA")
            return Image.alpha_composite(Image.new("RGBA", im.size, (0, 0, 0, 255)), im).convert("RGB")


class Strict(ScriptedCompositor):
    """The strict test compositor: checks every request the client makes (see its header) and
    reports each breach as a `violation:` line; scripted through control commands."""

    def __init__(self, outputs=("STRICT-1:1920x1080",), first_configure="output", caps=None,
                 configure_timeout=1000, refresh=60):
        super().__init__("kiosk-strict-", "kiosk-strict")
        self.report = self.dir / "report"
        self.report.touch()
        args = [str(STRICT), "--socket", self.socket, "--control", str(self.fifo), "--report", str(self.report),
                "--first-configure", first_configure, "--configure-timeout", str(configure_timeout),
                "--refresh", str(refresh)]
        for o in outputs:
            args += ["--output", o]
        if caps is not None:
            args += ["--caps", caps]
        env = dict(os.environ, XDG_RUNTIME_DIR=str(self.runtime))
        env.pop("WAYLAND_DISPLAY", None)
        self.log = self.dir / "stderr"
        with open(self.log, "w") as log:
            self.proc = subprocess.Popen(args, env=env, stdout=log, stderr=subprocess.STDOUT)
        wait_until(lambda: "ready" in self.report.read_text() or self.proc.poll() is not None, timeout=10,
                   what="the strict compositor")
        if self.proc.poll() is not None:
            raise RuntimeError(f"strict-compositor exited at start:\n{self.log.read_text()}")
        self.open_fifo()

    def lines(self):
        return self.report.read_text(errors="replace").splitlines()

    def send_at_once(self, *commands):
        """Sends control commands and waits until the compositor has carried them all out."""
        os.write(self.fifo_fd, "".join(c + "\n" for c in commands).encode())
        first, self.sent = self.sent + 1, self.sent + len(commands)
        rx = re.compile(r"^(ok|error) (\d+) ")
        done = lambda: [l for l in self.lines() if (m := rx.match(l)) and int(m.group(2)) >= first]
        answers = wait_until(lambda: len(done()) >= len(commands) and done(), timeout=5, what=f"answers to {commands}")
        errors = [l for l in answers if l.startswith("error")]
        assert not errors, f"the strict compositor refused: {errors}"

    def violations(self):
        return [l[len("violation: "):] for l in self.lines() if l.startswith("violation: ")]

    def assert_clean(self):
        v = self.violations()
        assert not v, f"{len(v)} violation(s) under the strict compositor:\n" + "\n".join(v[:20])

    def commits(self, pattern=r"^commit \d+ wl_buffer"):
        rx = re.compile(pattern)
        return [l for l in self.lines() if rx.search(l)]

    def status(self) -> dict:
        self.send("status")
        line = [l for l in self.lines() if l.startswith("status ")][-1]
        return {k: int(v) for k, v in (kv.split("=") for kv in line.split()[1:])}

    def picture(self) -> Image.Image:
        """The toplevel's picture as the compositor holds it, upright (in surface orientation)."""
        path = self.dir / f"picture-{self.sent}.ppm"
        self.send(f"dump {path}")
        with Image.open(path) as im:
            return im.convert("RGB")



class Kiosk:
    """A kiosk process under `weston`, with its protocol traffic (WAYLAND_DEBUG) captured."""

    def __init__(self, weston: Weston | None, *args, env=None, protocol=True, stderr_path=None, binary=None):
        self.dir = Path(tempfile.mkdtemp(prefix="kiosk-run-"))
        self.stderr_path = Path(stderr_path) if stderr_path else self.dir / "stderr"
        env = dict(env if env is not None else weston.env())
        # Each run keeps its saved state to itself unless the test shares a folder on purpose.
        env.setdefault("XDG_STATE_HOME", str(self.dir / "state"))
        if protocol:
            env = dict(env, WAYLAND_DEBUG="client")
        self.started_ns = time.monotonic_ns()
        self.stderr_file = open(self.stderr_path, "w")
        self.proc = subprocess.Popen([str(binary or KIOSK), *args], env=env, stdout=subprocess.DEVNULL,
                                     stderr=self.stderr_file)

    @property
    def stderr(self) -> str:
        return self.stderr_path.read_text(errors="replace")

    def requests(self, name: str):
        """Client requests whose `interface.request` matches `name`, with their argument text."""
        pat = re.compile(r"-> (\w+)@(\d+)\." + re.escape(name.split(".")[-1]) + r"\((.*)\)$")
        iface = name.split(".")[0] if "." in name else None
        out = []
        for line in self.stderr.splitlines():
            m = pat.search(line)
            if m and (iface is None or m.group(1) == iface):
                out.append(m.group(3))
        return out

    def wait_for(self, pattern: str, timeout=5.0, count=1):
        rx = re.compile(pattern)
        return wait_until(lambda: len(rx.findall(self.stderr)) >= count, timeout=timeout,
                          what=f"/{pattern}/ in kiosk's stderr:\n{self.stderr[-3000:]}")

    def wait_exit(self, timeout=5.0) -> int:
        return self.proc.wait(timeout=timeout * SLACK)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def close(self):
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
        self.stderr_file.close()


def to_logical(img: Image.Image, transform: str) -> Image.Image:
    """Turns a physical-orientation screenshot into what the app laid out (logical orientation)."""
    return {
        "normal": img,
        "rotate-90": img.transpose(Image.Transpose.ROTATE_270),
        "rotate-180": img.transpose(Image.Transpose.ROTATE_180),
        "rotate-270": img.transpose(Image.Transpose.ROTATE_90),
    }[transform]


def color_near(c, target, tol=40):
    return all(abs(a - b) <= tol for a, b in zip(c, target))


def count_color(img: Image.Image, box, target, tol=40) -> int:
    x0, y0, x1, y1 = [int(v) for v in box]
    crop = img.crop((max(0, x0), max(0, y0), min(img.width, x1), min(img.height, y1)))
    return sum(1 for px in getattr(crop, "get_flattened_data", crop.getdata)() if color_near(px, target, tol))


def rgb(hexval: int):
    return ((hexval >> 16) & 0xFF, (hexval >> 8) & 0xFF, hexval & 0xFF)


def views(k, since=None):
    """Where the kiosk's labelled controls are, as its debug log last said (`view: …`, scene
    points): label → (x, y, w, h); with `since`, only what it logged after the last line
    containing that text."""
    rx = re.compile(r"view: (.+) at ([-\d.]+),([-\d.]+) size ([\d.]+)x([\d.]+)")
    lines = k.stderr.splitlines()
    if since:
        marks = [i for i, line in enumerate(lines) if since in line]
        lines = lines[marks[-1]:] if marks else []
    found = {}
    for line in lines:
        if m := rx.search(line):
            found[m.group(1)] = tuple(float(v) for v in m.groups()[1:])
    return found
