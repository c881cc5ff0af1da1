"""`make test-compositors` (not in CI): Kiosk under the desktop compositors some operators run in
a kiosk mode, headless — kwin_wayland --virtual (Plasma 5.27) and mutter --headless (43).

Neither offers screencopy, so these check what can be checked from the client's side: the first
frame at the output's full size, SIGTERM → exit 0, compositor loss → exit 1. Each compositor gets
its own D-Bus session (dbus-run-session) and runs as the test user, like cage and sway.
"""
import shutil
import signal
import sys
import tempfile
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "E2E"))
from harness import wait_until  # noqa: E402
from wlroots import UserCompositor, run_kiosk_as_user  # noqa: E402

SIZE = (1280, 720)


class Desktop(UserCompositor):
    socket_name = "kiosk-desktop"

    @staticmethod
    def prepare_dir():
        d = tempfile.mkdtemp(prefix="kiosk-kwin-bin-")
        Path(d).chmod(0o755)
        return d

    def __init__(self, command):
        super().__init__()
        self.start(["dbus-run-session", "--", *command])
        wait_until(lambda: (self.runtime / self.socket_name).exists() or self.proc.poll() is not None, timeout=20,
                   what=f"{self.name}'s socket")
        if self.proc.poll() is not None:
            raise AssertionError(f"{self.name} exited at start:\n{self.log.read_text()[-3000:]}")

    @property
    def socket(self):
        return self.socket_name


class Mutter(Desktop):
    name = "mutter"

    def __init__(self):
        super().__init__(["mutter", "--headless", "--wayland", "--no-x11", "--virtual-monitor", f"{SIZE[0]}x{SIZE[1]}",
                          "--wayland-display", self.socket_name])


class Kwin(Desktop):
    name = "kwin"

    def __init__(self):
        # Debian gives kwin_wayland a file capability (cap_sys_resource) that a container's
        # bounding set may not allow: exec then fails with EPERM. A plain copy runs anywhere; it
        # must keep the name, which kwin's own Qt platform plugin checks.
        copy = Path(self.prepare_dir()) / "kwin_wayland"
        shutil.copy(shutil.which("kwin_wayland"), copy)
        copy.chmod(0o755)
        super().__init__([str(copy), "--virtual", "--no-lockscreen", "--no-global-shortcuts",
                          "--width", str(SIZE[0]), "--height", str(SIZE[1]), "--socket", self.socket_name])


@pytest.fixture(params=[Mutter, Kwin], ids=["mutter", "kwin"])
def desktop(request):
    d = request.param()
    yield d
    d.close()


def test_first_frame_fills_the_output(desktop):
    k = run_kiosk_as_user(desktop, "--scene", "tiles")
    try:
        k.wait_for(r"first frame shown", timeout=10)
        k.wait_for(rf"display: {SIZE[0]}×{SIZE[1]} pt")
    finally:
        k.close()


def test_sigterm_exits_zero_and_compositor_loss_exits_one(desktop):
    k = run_kiosk_as_user(desktop, "--scene", "lander")
    try:
        k.wait_for(r"first frame shown", timeout=10)
        k.proc.send_signal(signal.SIGTERM)
        assert k.wait_exit() == 0
    finally:
        k.close()
    k = run_kiosk_as_user(desktop, "--scene", "lander")
    try:
        k.wait_for(r"first frame shown", timeout=10)
        desktop.close()
        assert k.wait_exit(timeout=10) == 1
        assert "lost the connection to the compositor" in k.stderr.strip().splitlines()[-1]
    finally:
        k.close()
