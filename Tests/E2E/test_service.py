"""End-to-end: what systemd sees of Kiosk — readiness, status, watchdog, stopping — and journald
priorities, checked without systemd: the test listens on its own notification socket."""
import os
import re
import signal
import socket
import time

from harness import Kiosk, wait_until


class NotifySocket:
    """A datagram socket standing in for systemd's NOTIFY_SOCKET; messages keep their arrival time."""

    def __init__(self, path):
        self.path = str(path)
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        self.sock.bind(self.path)
        self.sock.setblocking(False)
        self.messages = []

    def poll(self):
        while True:
            try:
                data = self.sock.recv(4096)
            except BlockingIOError:
                return self.messages
            self.messages.append((time.monotonic(), data.decode()))

    def times(self, line):
        return [t for t, m in self.poll() if line in m.split("\n")]

    def close(self):
        self.sock.close()


def test_ready_status_watchdog_and_stopping(weston, tmp_path):
    n = NotifySocket(tmp_path / "notify")
    k = Kiosk(weston, "--verbose", "--scene", "tiles", "--idle-timeout", "0", protocol=False,
              env=weston.env(NOTIFY_SOCKET=n.path, WATCHDOG_USEC="1000000", XDG_STATE_HOME=str(tmp_path)))
    try:
        wait_until(lambda: n.times("READY=1"), timeout=5, what="READY=1")
        k.wait_for(r"first frame shown")  # ready means shown
        assert any("STATUS=showing tiles" in m for _, m in n.poll())
        # Pings every half of WATCHDOG_USEC from the event loop...
        time.sleep(2.2)
        pings = n.times("WATCHDOG=1")
        assert len(pings) >= 4, pings
        gaps = [b - a for a, b in zip(pings, pings[1:])]
        assert max(gaps) < 0.75, gaps
        # ...and none while the process is stopped (a hung loop must let systemd restart it).
        os.kill(k.proc.pid, signal.SIGSTOP)
        before = len(n.times("WATCHDOG=1"))
        time.sleep(1.5)
        assert len(n.times("WATCHDOG=1")) == before
        os.kill(k.proc.pid, signal.SIGCONT)
        wait_until(lambda: len(n.times("WATCHDOG=1")) > before, timeout=3, what="pings after SIGCONT")
        weston.send("key 59")  # F1: the lander, first of the visitors' scenes
        wait_until(lambda: any("STATUS=showing lander" in m for _, m in n.poll()), timeout=3, what="the new status")
        k.proc.send_signal(signal.SIGTERM)
        assert k.wait_exit(timeout=5) == 0
        assert n.times("STOPPING=1")
    finally:
        k.close()
        n.close()


def test_a_watchdog_meant_for_another_process_is_left_alone(weston, tmp_path):
    n = NotifySocket(tmp_path / "notify")
    k = Kiosk(weston, "--verbose", "--scene", "touch", protocol=False,
              env=weston.env(NOTIFY_SOCKET=n.path, WATCHDOG_USEC="400000", WATCHDOG_PID="1"))
    try:
        wait_until(lambda: n.times("READY=1"), timeout=5, what="READY=1")
        time.sleep(1)
        assert n.times("WATCHDOG=1") == []
    finally:
        k.close()
        n.close()


def test_journal_lines_carry_their_priority(weston, tmp_path):
    # systemd sets JOURNAL_STREAM to "device:inode" of the stream it connects to stderr.
    stream = tmp_path / "journal-stream"
    stream.touch()
    st = os.stat(stream)
    env = weston.env(JOURNAL_STREAM=f"{st.st_dev}:{st.st_ino}", XDG_STATE_HOME=str(tmp_path))
    k = Kiosk(weston, "--verbose", "--scene", "touch", "--config", str(tmp_path / "missing.toml"),
              env=env, protocol=False, stderr_path=stream)
    try:
        k.wait_for(r"first frame shown")
        lines = k.stderr.splitlines()
        assert lines and all(re.match(r"<[2-7]>kiosk: ", l) for l in lines), lines[:5]
        assert any(l.startswith("<6>kiosk: info: first frame shown") for l in lines)
        assert any(l.startswith("<4>kiosk: warning: ") and "missing.toml" in l for l in lines)
        assert any(l.startswith("<7>kiosk: debug: ") for l in lines)
    finally:
        k.close()
    # Without it (a terminal, a file), no prefixes.
    plain = Kiosk(weston, "--verbose", "--scene", "touch", protocol=False)
    try:
        plain.wait_for(r"first frame shown")
        assert all(l.startswith("kiosk: ") for l in plain.stderr.splitlines())
    finally:
        plain.close()
