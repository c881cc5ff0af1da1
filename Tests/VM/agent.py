#!/usr/bin/python3
"""The guest's agent for the virtual-machine tests: runs commands as root and drives a uinput
multi-touch touchscreen, answering the host over a virtio serial port (one JSON object per line
each way). It starts early at boot, so the touchscreen exists before any compositor does."""
import base64
import json
import os
import subprocess
import sys
import time

import evdev
from evdev import AbsInfo, UInput, ecodes as e

PORT = "/dev/virtio-ports/org.kiosk.agent"
# The touchscreen reports in the physical panel's own frame, 0..SPAN on each axis, as a panel's
# controller does; the host converts pixels of the unrotated mode into this range.
SPAN = 32767
SLOTS = 10


def touchscreen():
    # ~300 mm wide: libinput wants a resolution to call it a touchscreen of a known size.
    res = SPAN // 300
    axis = AbsInfo(value=0, min=0, max=SPAN, fuzz=0, flat=0, resolution=res)
    caps = {
        e.EV_KEY: [e.BTN_TOUCH, e.BTN_TOOL_FINGER, e.BTN_TOOL_DOUBLETAP, e.BTN_TOOL_TRIPLETAP],
        e.EV_ABS: [
            (e.ABS_X, axis), (e.ABS_Y, axis),
            (e.ABS_MT_SLOT, AbsInfo(0, 0, SLOTS - 1, 0, 0, 0)),
            (e.ABS_MT_TRACKING_ID, AbsInfo(0, 0, 65535, 0, 0, 0)),
            (e.ABS_MT_POSITION_X, axis), (e.ABS_MT_POSITION_Y, axis),
        ],
    }
    return UInput(caps, name="Kiosk Test Touchscreen", vendor=0x1234, product=0x5678,
                  input_props=[e.INPUT_PROP_DIRECT])


class Touch:
    def __init__(self):
        self.ui = touchscreen()
        self.down = {}  # slot -> (x, y)
        self.next_id = 1

    def apply(self, steps):
        """Steps: ["down", slot, x, y], ["move", slot, x, y], ["up", slot], ["sync"], ["sleep", s].
        Coordinates are 0..1 of the panel's unrotated width and height."""
        for step in steps:
            op = step[0]
            if op == "sleep":
                time.sleep(step[1])
            elif op == "sync":
                self.sync()
            elif op in ("down", "move"):
                slot, x, y = step[1], round(step[2] * SPAN), round(step[3] * SPAN)
                self.ui.write(e.EV_ABS, e.ABS_MT_SLOT, slot)
                if op == "down":
                    self.ui.write(e.EV_ABS, e.ABS_MT_TRACKING_ID, self.next_id)
                    self.next_id = self.next_id % 60000 + 1
                self.ui.write(e.EV_ABS, e.ABS_MT_POSITION_X, x)
                self.ui.write(e.EV_ABS, e.ABS_MT_POSITION_Y, y)
                self.down[slot] = (x, y)
            elif op == "up":
                self.ui.write(e.EV_ABS, e.ABS_MT_SLOT, step[1])
                self.ui.write(e.EV_ABS, e.ABS_MT_TRACKING_ID, -1)
                self.down.pop(step[1], None)
            else:
                raise ValueError(f"unknown touch step {step!r}")

    def sync(self):
        n = len(self.down)
        self.ui.write(e.EV_KEY, e.BTN_TOUCH, 1 if n else 0)
        self.ui.write(e.EV_KEY, e.BTN_TOOL_FINGER, 1 if n == 1 else 0)
        self.ui.write(e.EV_KEY, e.BTN_TOOL_DOUBLETAP, 1 if n == 2 else 0)
        self.ui.write(e.EV_KEY, e.BTN_TOOL_TRIPLETAP, 1 if n >= 3 else 0)
        if self.down:
            x, y = next(iter(self.down.values()))
            self.ui.write(e.EV_ABS, e.ABS_X, x)
            self.ui.write(e.EV_ABS, e.ABS_Y, y)
        self.ui.syn()


def mouse():
    """A mouse plugged in: what many touch controllers register beside their touchscreen."""
    return UInput({e.EV_REL: [e.REL_X, e.REL_Y, e.REL_WHEEL], e.EV_KEY: [e.BTN_LEFT, e.BTN_RIGHT, e.BTN_MIDDLE]},
                  name="Kiosk Test Mouse", vendor=0x1234, product=0x5679)


MICE = []


def handle(req, touch):
    op = req.get("op")
    if op == "ping":
        with open("/proc/sys/kernel/random/boot_id") as f:
            return {"boot_id": f.read().strip()}
    if op == "run":
        r = subprocess.run(req["cmd"], shell=True, capture_output=True, timeout=req.get("timeout", 120),
                           input=req.get("input", "").encode(), env=dict(os.environ, **req.get("env", {})))
        return {"rc": r.returncode, "out": r.stdout.decode(errors="replace"), "err": r.stderr.decode(errors="replace")}
    if op == "put":
        path = req["path"]
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "ab" if req.get("append") else "wb") as f:
            f.write(base64.b64decode(req["data"]))
        os.chmod(path, req.get("mode", 0o644))
        return {}
    if op == "touch":
        touch.apply(req["steps"])
        return {}
    if op == "mouse":
        if req.get("plug", True) and not MICE:
            MICE.append(mouse())
        elif not req.get("plug", True):
            while MICE:
                MICE.pop().close()
        return {}
    raise ValueError(f"unknown op {op!r}")


def main():
    touch = Touch()
    while not os.path.exists(PORT):
        time.sleep(0.2)
    fd = os.open(PORT, os.O_RDWR)
    buf = b""
    while True:
        chunk = os.read(fd, 65536)
        if not chunk:
            time.sleep(0.1)  # no host on the other side yet
            continue
        buf += chunk
        while b"\n" in buf:
            line, buf = buf.split(b"\n", 1)
            try:
                req = json.loads(line)
            except ValueError:
                continue
            try:
                reply = dict(handle(req, touch), ok=True)
            except Exception as ex:  # every failure goes back to the host, the agent stays
                reply = {"ok": False, "error": f"{type(ex).__name__}: {ex}"}
            reply["id"] = req.get("id")
            data = (json.dumps(reply) + "\n").encode()
            while data:
                data = data[os.write(fd, data):]


if __name__ == "__main__":
    sys.exit(main())
