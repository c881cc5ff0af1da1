"""A panel's accelerometer without the panel, the way Debian's own tests fake one: a private
system bus (dbus-daemon, a system bus's policy, any user may connect) with python3-dbusmock's
`iio-sensors-proxy` template on it. The kiosk finds it through DBUS_SYSTEM_BUS_ADDRESS; the
test turns the "panel" with the mock's SetInternalProperty, as iio-sensor-proxy would report it."""
from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path

import dbus

from harness import stop, wait_until

PROXY = "net.hadess.SensorProxy"
PATH = "/net/hadess/SensorProxy"
CONFIG = """<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <type>system</type>
  <listen>unix:path={socket}</listen>
  <auth>EXTERNAL</auth>
  <policy context="default">
    <allow user="*"/>
    <allow own="*"/>
    <allow send_destination="*"/>
    <allow receive_sender="*"/>
  </policy>
</busconfig>
"""


class SensorBus:
    """A system bus of its own; `proxy=True` puts the mock iio-sensor-proxy on it (with an
    accelerometer when `accelerometer`, reading `orientation`)."""

    def __init__(self, proxy=True, accelerometer=True, orientation="normal"):
        self.dir = Path(tempfile.mkdtemp(prefix="kiosk-bus-"))
        self.dir.chmod(0o755)
        self.socket = self.dir / "system_bus_socket"
        config = self.dir / "system.conf"
        config.write_text(CONFIG.format(socket=self.socket))
        self.daemon = subprocess.Popen(["dbus-daemon", f"--config-file={config}", "--nofork", "--nopidfile"],
                                       stdout=subprocess.DEVNULL, stderr=open(self.dir / "daemon.log", "w"))
        wait_until(lambda: self.socket.exists() or self.daemon.poll() is not None, timeout=10, what="the bus's socket")
        self.socket.chmod(0o777)
        self.address = f"unix:path={self.socket}"
        self.mock = None
        if proxy:
            self.start_proxy(accelerometer, orientation)

    @property
    def env(self) -> dict:
        return {"DBUS_SYSTEM_BUS_ADDRESS": self.address}

    def start_proxy(self, accelerometer=True, orientation="normal"):
        params = f'{{"has_accelerometer": {str(accelerometer).lower()}, "accelerometer_orientation": "{orientation}"}}'
        self.mock = subprocess.Popen([sys.executable, "-m", "dbusmock", "--system", "--template", "iio-sensors-proxy",
                                      "--parameters", params],
                                     env=dict(os.environ, DBUS_SYSTEM_BUS_ADDRESS=self.address),
                                     stdout=subprocess.DEVNULL, stderr=open(self.dir / "mock.log", "w"))
        wait_until(lambda: self._owned() or self.mock.poll() is not None, timeout=15, what="the mock iio-sensor-proxy on the bus")

    def _bus(self):
        return dbus.bus.BusConnection(self.address)

    def _owned(self) -> bool:
        try:
            return bool(self._bus().name_has_owner(PROXY))
        except dbus.DBusException:
            return False

    def turn(self, orientation: str):
        """The panel turned: the proxy reports `orientation` (normal, left-up, right-up,
        bottom-up, undefined) to whoever claimed the accelerometer."""
        proxy = self._bus().get_object(PROXY, PATH)
        proxy.SetInternalProperty(PROXY, "AccelerometerOrientation", orientation, dbus_interface="org.freedesktop.DBus.Mock")

    def claimants(self) -> list[str]:
        proxy = self._bus().get_object(PROXY, PATH)
        return list(proxy.GetInternalProperty("AccelerometerOwners", dbus_interface="org.freedesktop.DBus.Mock"))

    def close(self):
        for p in (self.mock, self.daemon):
            if p is not None:
                stop(p)
