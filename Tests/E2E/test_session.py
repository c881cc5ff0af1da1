"""End-to-end: `kiosk session`, the main process of kiosk.service, under a headless cage run as an
unprivileged user — what systemd sees of it (READY=1, STATUS=, watchdog pings, relayed from Kiosk),
how it stops (in seconds, a hung Kiosk too, leaving nothing behind) and how it fails (fast, saying
why). The booted machine tests (Tests/VM) run it under a real systemd."""
import os
import pwd
import re
import signal
import subprocess
import tempfile
import time
from pathlib import Path

import pytest

from harness import wait_until
from test_service import NotifySocket
from wlroots import USER, _account, kiosk_binary

pytestmark = pytest.mark.skipif(os.geteuid() != 0, reason="kiosk session switches users: it runs as root")


class Session:
    """`kiosk session --compositor cage` as systemd starts it: root, a notification socket, a
    runtime folder, the journal's stream on stderr (JOURNAL_STREAM names the file)."""

    def __init__(self, *args, **env):
        uid, gid, _ = _account()
        self.dir = Path(tempfile.mkdtemp(prefix="kiosk-session-"))
        self.dir.chmod(0o755)
        state = self.dir / "state"
        state.mkdir()
        os.chown(state, uid, gid)
        self.notify = NotifySocket(self.dir / "notify")
        self.log = self.dir / "journal"
        self.log.touch()
        st = os.stat(self.log)
        full = dict(os.environ, NOTIFY_SOCKET=self.notify.path, WATCHDOG_USEC="1000000", WATCHDOG_PID="1",
                    RUNTIME_DIRECTORY=str(self.dir / "run"), XDG_STATE_HOME=str(state), WLR_BACKENDS="headless",
                    JOURNAL_STREAM=f"{st.st_dev}:{st.st_ino}")
        full.update(env)
        for k in ("WAYLAND_DISPLAY", "DISPLAY"):
            full.pop(k, None)
        self.proc = subprocess.Popen([str(kiosk_binary()), "session", "--user", USER, "--compositor", "cage", *args],
                                     env=full, stdout=subprocess.DEVNULL, stderr=open(self.log, "w"), cwd="/")

    def lines(self):
        return self.log.read_text().splitlines()

    def user_processes(self):
        """The test user's processes that this session started (its descendants)."""
        uid = pwd.getpwnam(USER).pw_uid
        found = []
        for p in Path("/proc").iterdir():
            if p.name.isdigit():
                try:
                    if p.stat().st_uid == uid and (p / "environ").read_bytes().find(str(self.dir).encode()) >= 0:
                        found.append(int(p.name))
                except OSError:
                    pass
        return found

    def close(self):
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
        for pid in self.user_processes():
            os.kill(pid, signal.SIGKILL)
        self.notify.close()


@pytest.fixture
def session():
    made = []

    def start(*args, **env):
        s = Session(*args, **env)
        made.append(s)
        return s

    yield start
    for s in made:
        s.close()


def kiosk_pid(s):
    for pid in s.user_processes():
        if Path(f"/proc/{pid}/comm").read_text().strip() == "kiosk":
            return pid
    return None


def test_kiosk_on_screen_reaches_systemd_through_the_session(session):
    s = session()
    wait_until(lambda: s.notify.times("READY=1"), timeout=10, what=f"READY=1 relayed:\n{s.log.read_text()}")
    messages = [m for _, m in s.notify.poll()]
    assert messages[0] == "STATUS=starting cage"
    assert any("STATUS=setting up the panel" in m for m in messages)  # a fresh kiosk
    assert not any("MAINPID=" in m for m in messages)
    # Kiosk pings (WATCHDOG_PID named another process: the session takes it off for Kiosk).
    time.sleep(1.6)
    assert len(s.notify.times("WATCHDOG=1")) >= 2
    # cage and Kiosk run as the kiosk's user, not as root.
    names = {Path(f"/proc/{p}/comm").read_text().strip() for p in s.user_processes()}
    assert {"cage", "kiosk"} <= names, names
    # The session's own lines carry their priority; cage's have none (the unit's SyslogLevel).
    assert any(re.match(r"<5>kiosk: session: running cage: as asked", l) for l in s.lines()), s.lines()
    # SIGTERM: Kiosk first (it saves), then cage ends with it; nothing is left.
    start = time.monotonic()
    s.proc.send_signal(signal.SIGTERM)
    assert s.proc.wait(timeout=15) == 0
    assert time.monotonic() - start < 5
    assert s.notify.times("STOPPING=1")
    assert s.user_processes() == []
    assert not any("Assertion" in l for l in s.lines()), s.lines()


def test_a_hung_kiosk_is_stopped_all_the_same(session):
    s = session()
    wait_until(lambda: s.notify.times("READY=1"), timeout=10, what="READY=1")
    os.kill(kiosk_pid(s), signal.SIGSTOP)
    s.proc.send_signal(signal.SIGTERM)
    assert s.proc.wait(timeout=20) == 0
    assert s.user_processes() == []


def test_the_watchdog_signal_stops_everything_at_once(session):
    s = session()
    wait_until(lambda: s.notify.times("READY=1"), timeout=10, what="READY=1")
    os.kill(kiosk_pid(s), signal.SIGSTOP)
    start = time.monotonic()
    s.proc.send_signal(signal.SIGABRT)  # systemd's WatchdogSignal
    s.proc.wait(timeout=10)
    assert time.monotonic() - start < 3
    assert s.user_processes() == []
    assert any("the watchdog fired" in l for l in s.lines())


def test_a_compositor_that_cannot_start_fails_at_once_and_says_why(session):
    s = session(WLR_BACKENDS="no-such-backend")
    assert s.proc.wait(timeout=10) != 0
    text = s.log.read_text()
    assert "Unable to create the wlroots backend" in text  # cage's own line
    assert re.search(r"<3>kiosk: error: session: cage exited with status 1 after [\d.]+ s, before the kiosk was on screen", text), text
    assert s.notify.times("READY=1") == []
