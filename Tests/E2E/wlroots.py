"""Test rig for the wlroots kiosk compositors Debian ships — cage 0.1.4 and sway 1.7 (Debian 12,
wlroots 0.15) from this machine; with `KIOSK_E2E_RELEASE=trixie`, cage 0.2.0 and sway 1.10
(Debian 13, wlroots 0.18) from a root of that release (release_root.py) — headless with the
pixman renderer, screenshots through screencopy (grim).

Both refuse to run as root: when the tests run as root they create (once) the unprivileged user
`kiosk-e2e` and run the compositor, the kiosk and grim as that user. Each compositor is a child of
the test process, in its own XDG_RUNTIME_DIR, and is always reaped; under cage the kiosk is cage's
own child (`cage -- kiosk`, as deployed), its exit status kept in a file.
"""
from __future__ import annotations

import os
import pwd
import re
import shutil
import signal
import subprocess
import tempfile
from pathlib import Path

from PIL import Image

import release_root
from harness import KIOSK, STRICT, stop, wait_until

USER = "kiosk-e2e"
VINPUT = STRICT.parent / "virtual-input"
NO_SCANOUT = STRICT.parent / "cage-no-scanout.so"
# The Debian release whose compositors run; None: this machine's own.
RELEASE = os.environ.get("KIOSK_E2E_RELEASE") or None
ROOT = release_root.build(RELEASE) if RELEASE else None
# cage 0.1.4 and sway 1.7 on this machine (Debian 12); cage 0.2.0 and sway 1.10 in trixie.
WLROOTS_015 = RELEASE in (None, "bookworm")


def _account():
    """(uid, gid, home) of the user the compositors run as."""
    if os.geteuid() != 0:
        return os.getuid(), os.getgid(), Path.home()
    # cage starts Xwayland, whose socket folder must be root's (sticky, world-writable, as
    # systemd-tmpfiles makes it); one left behind by another user stops cage at start.
    x11 = Path("/tmp/.X11-unix")
    x11.mkdir(exist_ok=True)
    os.chown(x11, 0, 0)
    x11.chmod(0o1777)
    try:
        pw = pwd.getpwnam(USER)
    except KeyError:
        subprocess.run(["useradd", "--create-home", "--shell", "/usr/sbin/nologin", USER], check=True,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        pw = pwd.getpwnam(USER)
    return pw.pw_uid, pw.pw_gid, Path(pw.pw_dir)


_copies: dict[Path, Path] = {}


def _user_copy(path: Path) -> Path:
    """`path` copied where the test user can read and run it (the checkout may sit under /root)."""
    copy = _copies.get(path)
    if copy is None or not copy.exists():
        top = Path(tempfile.mkdtemp(prefix="kiosk-e2e-bin-"))
        top.chmod(0o755)
        d = top / "bin"
        d.mkdir(mode=0o755)
        copy = d / path.name
        shutil.copy2(path, copy)
        copy.chmod(0o755)
        _copies[path] = copy
    return copy


def kiosk_binary() -> Path:
    """The kiosk binary where the test user can run it, kiosk-session beside it (where
    `kiosk session` looks first) and its languages at ../share/kiosk/locale, as installed."""
    copy = _user_copy(KIOSK)
    session = KIOSK.parent / "kiosk-session"
    if session.exists() and not (copy.parent / session.name).exists():
        shutil.copy2(session, copy.parent / session.name)
    locale = KIOSK.resolve().parent.parent / "share" / "kiosk" / "locale"
    if locale.is_dir() and not (copy.parent.parent / "share" / "kiosk" / "locale").exists():
        shutil.copytree(locale, copy.parent.parent / "share" / "kiosk" / "locale")
        for d in [copy.parent.parent / "share", *(copy.parent.parent / "share").rglob("*")]:
            d.chmod(0o755 if d.is_dir() else 0o644)
    if ROOT is not None:
        _check_libraries(copy)
    return copy


def _check_libraries(binary: Path):
    """One clear failure, not a dozen timeouts, when the release's root lacks a library the
    kiosk links (release_root.KIOSK_LIBRARIES names what goes in)."""
    out = subprocess.run([*release_root.prefix(ROOT, 0, 0), "ldd", str(binary)], capture_output=True,
                         text=True, timeout=30).stdout
    missing = [line.split()[0] for line in out.splitlines() if "not found" in line]
    assert not missing, f"{RELEASE}'s root lacks {', '.join(missing)}: add its package to KIOSK_LIBRARIES"


class UserCompositor:
    """A headless compositor run as the test user. Subclasses say how to start it."""

    name = "compositor"
    extra_env: dict = {}

    def __init__(self):
        self.uid, self.gid, self.home = _account()
        self.dir = Path(tempfile.mkdtemp(prefix=f"kiosk-{self.name}-"))
        self.dir.chmod(0o755)
        self.runtime = self.dir / "runtime"
        self.runtime.mkdir(mode=0o700)
        self.state = self.dir / "state"
        self.state.mkdir()
        # The user writes here: screenshots, the kiosk's log and exit status, saved state.
        for p in (self.dir, self.runtime, self.state):
            os.chown(p, self.uid, self.gid)
        self.log = self.dir / "compositor.log"
        self.proc: subprocess.Popen | None = None
        self.shots = 0

    def base_env(self):
        env = {k: v for k, v in os.environ.items() if k not in ("WAYLAND_DISPLAY", "DISPLAY", "SWAYSOCK")}
        env.update(HOME=str(self.dir if ROOT else self.home), USER=USER if os.geteuid() == 0 else env.get("USER", ""),
                   XDG_RUNTIME_DIR=str(self.runtime), XDG_STATE_HOME=str(self.state), **self.extra_env)
        return env

    def as_user(self):
        """Popen arguments that run a child as the test user."""
        if os.geteuid() != 0:
            return {}
        return dict(user=self.uid, group=self.gid, extra_groups=[])

    def user_command(self, args):
        """Popen's arguments and options that run `args` as the test user, inside the release's
        root when one is set."""
        if ROOT is not None:
            return [*release_root.prefix(ROOT, self.uid, self.gid), *map(str, args)], {}
        return list(args), self.as_user()

    def start(self, args, env=None):
        args, user = self.user_command(args)
        with open(self.log, "w") as log:
            self.proc = subprocess.Popen(args, env=env or self.base_env(), stdout=log, stderr=subprocess.STDOUT,
                                         start_new_session=True, **user)

    @property
    def socket(self) -> str | None:
        found = sorted(p.name for p in self.runtime.glob("wayland-*") if not p.name.endswith(".lock"))
        return found[0] if found else None

    def env(self, **extra):
        env = self.base_env()
        env["WAYLAND_DISPLAY"] = self.socket or ""
        env.update(extra)
        return env

    def run(self, *args) -> str:
        """A client of the compositor (swaymsg, wlr-randr) run to its end as the test user."""
        command, user = self.user_command(args)
        return subprocess.run(command, env=self.env(), check=True, timeout=10, capture_output=True,
                              text=True, **user).stdout

    def screenshot(self) -> Image.Image:
        """The output as the compositor composites it (screencopy); grim turns a rotated output
        upright, so this is what a person in front of the panel sees."""
        self.shots += 1
        path = self.dir / f"shot-{self.shots}.png"
        args, user = self.user_command(["grim", str(path)])
        r = subprocess.run(args, env=self.env(), timeout=10, cwd=self.dir,
                           stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, **user)
        assert r.returncode == 0, f"grim failed: {r.stderr.strip()}"
        with Image.open(path) as im:
            return im.convert("RGB")

    def kill(self, sig=signal.SIGKILL):
        if self.proc and self.proc.poll() is None:
            self.proc.send_signal(sig)
        if self.proc:
            self.proc.wait(timeout=10)

    def close(self):
        if self.proc:
            stop(self.proc)
            # Whatever the compositor left in its session (a kiosk that outlived it) goes too.
            try:
                os.killpg(self.proc.pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass


class Wlroots(UserCompositor):
    """wlroots's headless backend with the pixman renderer and no input devices."""

    name = "wlroots"
    extra_env = dict(WLR_BACKENDS="headless", WLR_RENDERER="pixman", WLR_LIBINPUT_NO_DEVICES="1")
    input: subprocess.Popen | None = None

    def send(self, *commands):
        """Input through the virtual pointer and keyboard; returns once the compositor has handled it
        (sway; cage from 0.2.0: 0.1.4 offers neither protocol)."""
        if self.input is None:
            args, user = self.user_command([_user_copy(VINPUT)])
            self.input = subprocess.Popen(args, env=self.env(), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                          stderr=subprocess.PIPE, text=True, **user)
            first = self.input.stdout.readline().strip()
            assert first == "ready", f"virtual-input: {first} {self.input.stderr.read() if not first else ''}"
        for c in commands:
            self.input.stdin.write(c + "\n")
            self.input.stdin.flush()
            answer = self.input.stdout.readline().strip()
            assert answer.startswith("ok"), f"virtual-input refused {c!r}: {answer}"

    def close(self):
        if self.input:
            self.input.stdin.close()
            stop(self.input)
        super().close()


class Cage(Wlroots):
    """`cage -- kiosk ARGS` (cage's headless output is 1280×720). The kiosk's stderr and exit
    status land in files: it is cage's child, not the test's."""

    name = "cage"
    size = (1280, 720)

    def __init__(self, *kiosk_args, config=None, rotate=0, env=None, as_the_unit=False, composites=False):
        """`as_the_unit`: started the way kiosk.service starts it — `cage -d -- kiosk`, Kiosk
        cage's own child (its stderr then goes to cage's log), and WATCHDOG_PID naming cage as
        systemd names the unit's main process. `composites`: cage composites the kiosk's plain
        (unflipped) buffers every frame, as on a DRM panel, where headless it would scan them
        out (the measuring shim Tests/E2E/cage-no-scanout, preloaded into cage alone)."""
        super().__init__()
        if config is not None:
            path = self.dir / "kiosk.toml"
            path.write_text(config)
            path.chmod(0o644)
            kiosk_args = ("--config", str(path), *kiosk_args)
        self.kiosk_log = self.dir / "kiosk.log"
        self.exit_file = self.dir / "kiosk.exit"
        # The shim is cage's, not the kiosk's: the wrapper drops it before starting the kiosk.
        drop = "unset LD_PRELOAD; " if composites else ""
        wrapper = drop + '"$0" "$@" 2>>"$KIOSK_LOG"; echo $? >"$KIOSK_EXIT"'
        e = self.base_env()
        e.update(KIOSK_LOG=str(self.kiosk_log), KIOSK_EXIT=str(self.exit_file))
        if composites:
            assert not as_the_unit, "the shim would reach the kiosk: cage execs it directly as the unit"
            e.update(LD_PRELOAD=str(_user_copy(NO_SCANOUT)), KIOSK_FLIP_BUFFERS="0")
        e.update(env or {})
        self.kiosk_log.touch()
        os.chown(self.kiosk_log, self.uid, self.gid)
        if as_the_unit:
            self.kiosk_log = self.log
            # The shell's pid is cage's once it execs: WATCHDOG_PID names the main process.
            self.start(["sh", "-c", 'WATCHDOG_PID=$$ exec cage -d -- "$@"', "sh", str(kiosk_binary()), "--verbose", *kiosk_args],
                       env=e)
        else:
            self.start(["cage", *(["-r"] * rotate), "--", "sh", "-c", wrapper, str(kiosk_binary()), "--verbose", *kiosk_args],
                       env=e)
        wait_until(lambda: self.socket or self.proc.poll() is not None, timeout=10, what="cage's socket")
        if self.proc.poll() is not None:
            raise RuntimeError(f"cage exited at start:\n{self.log.read_text()}")

    @property
    def stderr(self) -> str:
        return self.kiosk_log.read_text(errors="replace")

    def wait_for(self, pattern, timeout=5.0):
        rx = re.compile(pattern)
        return wait_until(lambda: rx.search(self.stderr), timeout=timeout,
                          what=f"/{pattern}/ in the kiosk's stderr under cage:\n{self.stderr[-2000:]}")

    def kiosk_pid(self) -> int:
        out = subprocess.run(["pgrep", "-s", str(self.proc.pid), "-x", "kiosk"], capture_output=True, text=True)
        pids = [int(p) for p in out.stdout.split()]
        assert pids, "no kiosk process under cage"
        return pids[0]

    def kiosk_exit(self, timeout=5.0) -> int:
        wait_until(lambda: self.exit_file.exists() and self.exit_file.read_text().strip(), timeout=timeout,
                   what="the kiosk to exit under cage")
        return int(self.exit_file.read_text())


class Sway(Wlroots):
    """sway 1.7 with one headless output of `size` and no borders; the kiosk is a client of it.
    Input comes from `virtual-input` (a pointer and keyboard that stay plugged in)."""

    name = "sway"

    def __init__(self, size=(1920, 1080), transform="normal"):
        super().__init__()
        self.size = size
        config = self.dir / "config"
        config.write_text(f"output HEADLESS-1 mode {size[0]}x{size[1]} transform {transform}\n"
                          "default_border none\nfocus_follows_mouse no\n")
        self.start(["sway", "--config", str(config)])
        wait_until(lambda: self.socket and list(self.runtime.glob("sway-ipc.*.sock")) or self.proc.poll() is not None,
                   timeout=10, what="sway's sockets")
        if self.proc.poll() is not None:
            raise RuntimeError(f"sway exited at start:\n{self.log.read_text()}")
        self.input: subprocess.Popen | None = None
        self.sent = 0
        # Plugged in before any client connects: a device that appears mid-test races the
        # client binding its wl_pointer, and input sent in between goes to no one.
        try:
            self.send()
        except BaseException:
            self.close()
            raise

    def env(self, **extra):
        env = super().env(**extra)
        socks = list(self.runtime.glob("sway-ipc.*.sock"))
        if socks:
            env["SWAYSOCK"] = str(socks[0])
        return env

    def swaymsg(self, *args):
        return self.run("swaymsg", *args)


def run_kiosk_as_user(compositor: UserCompositor, *args, env=None):
    """A kiosk client of `compositor`, run as the compositor's user (harness.Kiosk-like)."""
    from harness import Kiosk

    class UserKiosk(Kiosk):
        def __init__(self):
            self.dir = Path(tempfile.mkdtemp(prefix="kiosk-run-"))
            self.dir.chmod(0o755)
            self.stderr_path = self.dir / "stderr"
            import time
            self.started_ns = time.monotonic_ns()
            self.stderr_file = open(self.stderr_path, "w")
            command, user = compositor.user_command([kiosk_binary(), "--verbose", *args])
            self.proc = subprocess.Popen(command, env=env or compositor.env(),
                                         stdout=subprocess.DEVNULL, stderr=self.stderr_file, **user)

    return UserKiosk()
