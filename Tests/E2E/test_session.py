"""End-to-end: `kiosk session`, the main process of kiosk.service, under a headless cage run as an
unprivileged user — what systemd sees of it (READY=1, STATUS=, watchdog pings, relayed from Kiosk),
how it stops (in seconds, a hung Kiosk too, leaving nothing behind) and how it fails (fast, saying
why). The booted machine tests (Tests/VM) run it under a real systemd."""
import grp
import os
import pwd
import re
import signal
import sys
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

    def __init__(self, *args, pass_fds=(), **env):
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
                                     env=full, stdout=subprocess.DEVNULL, stderr=open(self.log, "w"), cwd="/",
                                     pass_fds=pass_fds)

    def gone(self, pids):
        """Whether none of `pids` runs any more (a zombie waiting for init counts as gone)."""
        def running(pid):
            try:
                return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
            except OSError:
                return False
        return not any(running(p) for p in pids)

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


@pytest.fixture
def ready(session):
    """A session whose Kiosk is on screen."""
    def start(*args, **kw):
        s = session(*args, **kw)
        wait_until(lambda: s.notify.times("READY=1"), timeout=10, what=lambda: f"READY=1 relayed:\n{s.log.read_text()}")
        return s
    return start


def kiosk_pid(s):
    for pid in s.user_processes():
        if Path(f"/proc/{pid}/comm").read_text().strip() == "kiosk":
            return pid
    return None


def test_kiosk_on_screen_reaches_systemd_through_the_session(session):
    s = session()
    wait_until(lambda: s.notify.times("READY=1"), timeout=10, what=lambda: f"READY=1 relayed:\n{s.log.read_text()}")
    messages = [m for _, m in s.notify.poll()]
    assert messages[0] == "STATUS=starting cage"
    assert any("STATUS=setting up the panel" in m for m in messages)  # a fresh kiosk
    assert not any("MAINPID=" in m for m in messages)
    # Kiosk pings (WATCHDOG_PID named another process: the session takes it off for Kiosk).
    wait_until(lambda: len(s.notify.times("WATCHDOG=1")) >= 2, timeout=5, what="Kiosk's watchdog pings")
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


# The root program: kiosk-session, trusting nothing from the kiosk's user.

UI_LIBRARIES = ("libwayland", "libpixman", "libfcft", "libfontconfig", "libpng", "libxkbcommon")


def linked(binary):
    return subprocess.run(["ldd", str(binary)], capture_output=True, text=True, check=True).stdout


def test_the_root_program_links_none_of_the_uis_libraries():
    kiosk = linked(kiosk_binary())
    assert all(lib in kiosk for lib in UI_LIBRARIES), kiosk  # ldd shows them where they are
    session = linked(kiosk_binary().parent / "kiosk-session")
    assert [lib for lib in UI_LIBRARIES if lib in session] == [], session


def test_a_killed_session_leaves_nothing_of_the_kiosk_user_running(ready):
    # No unit's pkill here: the death signal, set after the change of user, ends cage, and Kiosk with it.
    s = ready()
    before = s.user_processes()
    names = {Path(f"/proc/{p}/comm").read_text().strip() for p in before}
    assert {"cage", "kiosk"} <= names, names
    s.proc.kill()
    s.proc.wait()
    wait_until(lambda: s.gone(before), timeout=10, what=f"the kiosk user's processes {before} ended")


def environment(pid):
    entries = Path(f"/proc/{pid}/environ").read_bytes().split(b"\0")
    return dict(e.decode().split("=", 1) for e in entries if b"=" in e)


def test_roots_environment_stays_with_root(ready):
    s = ready(KIOSK_E2E_MARK="passed", ROOT_ONLY="secret", LD_LIBRARY_PATH="/nonexistent", MAIL="/var/mail/root",
              HOME="/root", CREDENTIALS_DIRECTORY="/run/credentials/kiosk.service", LANG="C.UTF-8")
    home = pwd.getpwnam(USER).pw_dir
    for pid in s.user_processes():
        env = environment(pid)
        leaked = {"ROOT_ONLY", "LD_LIBRARY_PATH", "MAIL", "CREDENTIALS_DIRECTORY", "RUNTIME_DIRECTORY", "WATCHDOG_PID"} & env.keys()
        assert not leaked, (pid, leaked)
        assert (env["HOME"], env["USER"], env["LOGNAME"]) == (home, USER, USER), env
        assert env["KIOSK_E2E_MARK"] == "passed" and env["LANG"] == "C.UTF-8", env  # what the unit sets for Kiosk


def test_no_descriptor_of_roots_reaches_the_users_programs(ready, tmp_path):
    # What a PAM module (or whoever started the session) leaves open without close-on-exec.
    secret = open(tmp_path / "root-only", "w")
    os.set_inheritable(secret.fileno(), True)
    try:
        s = ready(pass_fds=(secret.fileno(),))
        target = str((tmp_path / "root-only").resolve())
        assert target in [os.readlink(f) for f in Path(f"/proc/{s.proc.pid}/fd").iterdir()]  # the session had it
        for pid in s.user_processes():
            held = [os.readlink(f) for f in Path(f"/proc/{pid}/fd").iterdir()]
            assert target not in held, (pid, held)
    finally:
        secret.close()


HOSTILE = r'''
import array, socket, sys
sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
relay = "\0" + sys.argv[1]
for _ in range(2):
    sock.sendto(b"WATCHDOG_USEC=1\nMAINPID=1\nNOTIFYACCESS=all\nEXTEND_TIMEOUT_USEC=1\nSTATUS=from the kiosk user", relay)
    with open("/dev/null") as f:
        sock.sendmsg([b"FDSTORE=1\nFDNAME=x\nBARRIER=1"], [(socket.SOL_SOCKET, socket.SCM_RIGHTS, array.array("i", [f.fileno()]))], 0, relay)
'''


def test_the_kiosk_user_cannot_speak_for_the_service(ready):
    s = ready()
    uid, gid, _ = _account()
    subprocess.run([sys.executable, "-c", HOSTILE, f"kiosk-session-{s.proc.pid}"], user=uid, group=gid, check=True)
    wait_until(lambda: any("STATUS=from the kiosk user" in m for _, m in s.notify.poll()), timeout=5, what="the status relayed")
    refused = ("MAINPID", "WATCHDOG_USEC", "NOTIFYACCESS", "EXTEND_TIMEOUT_USEC", "FDSTORE", "FDNAME", "BARRIER")
    said = [m for _, m in s.notify.poll()]
    assert not [m for m in said if any(f"{name}=" in m for name in refused)], said
    wait_until(lambda: sum("session: ignored" in l for l in s.lines()) == len(refused), timeout=5,
               what=lambda: f"each refused field named once:\n{s.log.read_text()}")
    for name in refused:
        assert [l for l in s.lines() if f"ignored {name}= from uid {uid}" in l], name
    # Still the kiosk's: its pings pass and stopping works.
    sent = time.monotonic()
    wait_until(lambda: [t for t in s.notify.times("WATCHDOG=1") if t > sent], timeout=5, what="a ping after them")
    s.proc.send_signal(signal.SIGTERM)
    assert s.proc.wait(timeout=15) == 0


def test_a_terminal_that_is_not_a_virtual_terminals_name_is_refused(session):
    s = session("--tty", "../etc/shadow")
    assert s.proc.wait(timeout=10) == 1
    assert "session: --tty ../etc/shadow: expected a virtual terminal's name, tty1 to tty63" in s.log.read_text()


# A PAM session, as weston's on Debian 12 (logind), here with cage and a service of the test's own:
# pam_group adds a group at pam_setcred, pam_exec records the session's opening and closing.

PAM_SERVICE = "kiosk-e2e-session"
PAM_GROUP = "kiosk-e2e-pam"


@pytest.fixture
def pam_session(tmp_path):
    record, slow = tmp_path / "pam-record", tmp_path / "slow"
    hook = tmp_path / "pam-hook"
    hook.write_text(f'#!/bin/sh\necho "$PAM_TYPE" >> {record}\n'
                    f'if [ "$PAM_TYPE" = open_session ] && [ -e {slow} ]; then sleep 3; fi\n')
    hook.chmod(0o755)
    subprocess.run(["groupadd", "-f", PAM_GROUP], check=True)
    service = Path("/etc/pam.d") / PAM_SERVICE
    service.write_text(f"auth optional pam_group.so\naccount required pam_permit.so\nsession required pam_exec.so {hook}\n")
    conf = Path("/etc/security/group.conf")
    original = conf.read_text() if conf.exists() else None
    conf.write_text((original or "") + f"\n{PAM_SERVICE};*;{USER};Al0000-2400;{PAM_GROUP}\n")
    try:
        yield record, slow
    finally:
        service.unlink()
        if original is None:
            conf.unlink()
        else:
            conf.write_text(original)
        subprocess.run(["groupdel", PAM_GROUP], check=False)


def groups(pid):
    line = next(l for l in Path(f"/proc/{pid}/status").read_text().splitlines() if l.startswith("Groups:"))
    return {int(g) for g in line.split()[1:]}


def test_groups_a_pam_module_adds_are_kept(ready, pam_session):
    record, _ = pam_session
    s = ready("--pam-service", PAM_SERVICE)
    gid = grp.getgrnam(PAM_GROUP).gr_gid
    users = s.user_processes()
    assert users and all(gid in groups(p) for p in users), {p: groups(p) for p in users}
    s.proc.send_signal(signal.SIGTERM)
    assert s.proc.wait(timeout=15) == 0
    wait_until(lambda: record.read_text().split() == ["open_session", "close_session"], timeout=5,
               what=lambda: f"the session closed: {record.read_text()}")


def test_a_stop_while_the_session_opens_still_closes_it(session, pam_session):
    record, slow = pam_session
    slow.touch()
    s = session("--pam-service", PAM_SERVICE)
    wait_until(lambda: record.exists() and "open_session" in record.read_text(), timeout=10, what="the session opening")
    keeper = int(Path(f"/proc/{s.proc.pid}/task/{s.proc.pid}/children").read_text().split()[0])
    os.kill(keeper, signal.SIGTERM)  # as its death signal does when the supervisor is killed
    wait_until(lambda: "close_session" in record.read_text(), timeout=15,
               what=lambda: f"the session closed after a SIGTERM while it opened: {record.read_text()}\n{s.log.read_text()}")
    s.proc.wait(timeout=15)
    assert s.user_processes() == []


def test_closing_time_asks_the_session_to_turn_the_screen_off_where_cage_cannot(session):
    """Debian 12's cage 0.1.4 offers no output protocol: at closing Kiosk asks kiosk-session
    (KIOSK_SCREEN=off, never passed to systemd), which runs the screen's helper (in the unit:
    kiosk-screen@off.service, the backlight, DDC/CI or HDMI-CEC); a session that ends with the
    screen off turns it on again."""
    from test_hours import closing_soon
    from wlroots import WLROOTS_015

    if not WLROOTS_015:
        pytest.skip("cage 0.2.0 turns its output off itself (test_hours.py)")
    tmp_path = Path(tempfile.mkdtemp(prefix="kiosk-screen-"))  # the kiosk's user reads the settings
    calls = tmp_path / "calls"
    helper = tmp_path / "screen-helper"
    helper.write_text(f"#!/bin/sh\necho \"$1 $(id -u)\" >> {calls}\n")
    helper.chmod(0o755)
    config = tmp_path / "kiosk.toml"
    config.write_text(f'[shell]\nhours = "{closing_soon(3)}"\nafter_hours_wake = 4\n')
    config.chmod(0o644)
    tmp_path.chmod(0o755)
    # The compositor runs "kiosk": a wrapper of that name gives it the settings.
    wrapper = tmp_path / "bin" / "kiosk"
    wrapper.parent.mkdir()
    wrapper.write_text(f"#!/bin/sh\nexec {kiosk_binary()} --config {config} --scene tiles\n")
    wrapper.chmod(0o755)
    s = session("--kiosk", str(wrapper), "--screen-helper", str(helper))
    wait_until(lambda: s.notify.times("READY=1"), timeout=10, what=lambda: f"READY=1 relayed:\n{s.log.read_text()}")
    wait_until(lambda: any("turning the screen off (kiosk-session)" in l for l in s.lines()), timeout=10,
               what=lambda: f"the kiosk's request:\n{s.log.read_text()}")
    assert any("screen power: by kiosk-session (the backlight, a monitor's DDC/CI or a TV's HDMI-CEC" in l for l in s.lines())
    wait_until(lambda: calls.exists() and calls.read_text() == "off 0\n", timeout=5, what="the helper run as root with off")
    assert not any("KIOSK_SCREEN" in m for _, m in s.notify.poll()), "the session's own field reached systemd"
    assert not any("ignored KIOSK_SCREEN" in l for l in s.lines())
    s.proc.send_signal(signal.SIGTERM)
    assert s.proc.wait(timeout=15) == 0
    assert calls.read_text() == "off 0\non 0\n", "the screen left off by a stopped kiosk"


def test_a_session_not_run_as_root_leaves_the_screen_lit_and_says_why():
    """`kiosk session` run by a user (a developer's desktop): at closing there is nothing it may
    start to turn the screen off (kiosk-screen@.service is root's), so it says so and tries nothing."""
    from test_hours import closing_soon
    from wlroots import WLROOTS_015

    if not WLROOTS_015:
        pytest.skip("cage 0.2.0 turns its output off itself (test_hours.py)")
    uid, gid, _ = _account()
    home = Path(tempfile.mkdtemp(prefix="kiosk-session-user-"))
    for d in (home, home / "run", home / "state"):
        d.mkdir(exist_ok=True)
        os.chown(d, uid, gid)
        d.chmod(0o700)
    config = home / "kiosk.toml"
    config.write_text(f'[shell]\nhours = "{closing_soon(3)}"\n')
    wrapper = home / "kiosk"
    wrapper.write_text(f"#!/bin/sh\nexec {kiosk_binary()} --config {config} --scene tiles\n")
    wrapper.chmod(0o755)
    log = home / "journal"
    env = {"PATH": os.environ["PATH"], "HOME": str(home), "XDG_RUNTIME_DIR": str(home / "run"),
           "XDG_STATE_HOME": str(home / "state"), "WLR_BACKENDS": "headless",
           "KIOSK_CLOCK_SYNCHRONIZED": os.environ["KIOSK_CLOCK_SYNCHRONIZED"]}  # conftest.py: this clock
    proc = subprocess.Popen([str(kiosk_binary()), "session", "--compositor", "cage", "--kiosk", str(wrapper)],
                            env=env, user=uid, group=gid, extra_groups=[], cwd="/",
                            stdout=subprocess.DEVNULL, stderr=open(log, "w"))
    try:
        wait_until(lambda: "the screen stays lit: only kiosk-session started as root" in log.read_text(), timeout=20,
                   what=lambda: f"the session's word at closing:\n{log.read_text()}")
        assert "turning the screen off (kiosk-session)" in log.read_text()
        assert "helper" not in log.read_text() and "systemctl" not in log.read_text(), log.read_text()
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=15)
