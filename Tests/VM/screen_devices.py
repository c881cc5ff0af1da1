"""Run inside the test machine as root: the kernel's own stand-ins for a monitor's DDC/CI bus
and a TV's HDMI-CEC, to check kiosk-screen@.service against them. i2c-stub answers at the
display's DDC/CI address (0x37) and keeps what is written, as SMBus registers; vivid emulates
an HDMI output and a TV's HDMI input on one CEC bus. No machine of the tests has a backlight
(its test is Tests/KioskTests/ScreenPowerTests.swift).

  screen_devices.py load          prints "I2C_DEVICE CEC_OUTPUT CEC_TV"
  screen_devices.py ddc DEVICE    prints the 6 bytes at 0x51… (the last Set VCP written)
  screen_devices.py cec-tv DEVICE SECONDS UNIT
                                  claims the TV's logical address on DEVICE, starts UNIT, and
                                  prints each message the TV receives within SECONDS as hex
"""
import ctypes
import errno
import fcntl
import glob
import os
import subprocess
import sys
import time


def ioc(direction, nr, size, kind=ord("a")):
    return direction << 30 | size << 16 | kind << 8 | nr


class CecCaps(ctypes.Structure):
    _fields_ = [("driver", ctypes.c_char * 32), ("name", ctypes.c_char * 32), ("available_log_addrs", ctypes.c_uint32),
                ("capabilities", ctypes.c_uint32), ("version", ctypes.c_uint32)]


class CecLogAddrs(ctypes.Structure):
    _fields_ = [("log_addr", ctypes.c_uint8 * 4), ("log_addr_mask", ctypes.c_uint16), ("cec_version", ctypes.c_uint8),
                ("num_log_addrs", ctypes.c_uint8), ("vendor_id", ctypes.c_uint32), ("flags", ctypes.c_uint32),
                ("osd_name", ctypes.c_char * 15), ("primary_device_type", ctypes.c_uint8 * 4),
                ("log_addr_type", ctypes.c_uint8 * 4), ("all_device_types", ctypes.c_uint8 * 4),
                ("features", (ctypes.c_uint8 * 12) * 4)]


class CecMsg(ctypes.Structure):
    _fields_ = [("tx_ts", ctypes.c_uint64), ("rx_ts", ctypes.c_uint64), ("len", ctypes.c_uint32),
                ("timeout", ctypes.c_uint32), ("sequence", ctypes.c_uint32), ("flags", ctypes.c_uint32),
                ("msg", ctypes.c_uint8 * 16), ("reply", ctypes.c_uint8), ("rx_status", ctypes.c_uint8),
                ("tx_status", ctypes.c_uint8), ("tx_arb_lost_cnt", ctypes.c_uint8), ("tx_nack_cnt", ctypes.c_uint8),
                ("tx_low_drive_cnt", ctypes.c_uint8), ("tx_error_cnt", ctypes.c_uint8)]


CEC_ADAP_G_CAPS = ioc(3, 0, ctypes.sizeof(CecCaps))
CEC_ADAP_S_LOG_ADDRS = ioc(3, 4, ctypes.sizeof(CecLogAddrs))
CEC_RECEIVE = ioc(3, 6, ctypes.sizeof(CecMsg))
CEC_S_MODE = ioc(1, 9, 4)
CEC_MODE_INITIATOR, CEC_MODE_FOLLOWER = 0x1, 0x10
I2C_SLAVE, I2C_SMBUS = 0x0703, 0x0720


class SmbusData(ctypes.Union):
    _fields_ = [("byte", ctypes.c_uint8), ("word", ctypes.c_uint16), ("block", ctypes.c_uint8 * 34)]


class SmbusIoctl(ctypes.Structure):
    _fields_ = [("read_write", ctypes.c_uint8), ("command", ctypes.c_uint8), ("size", ctypes.c_uint32),
                ("data", ctypes.POINTER(SmbusData))]


class QueryCtrl(ctypes.Structure):
    _fields_ = [("id", ctypes.c_uint32), ("type", ctypes.c_uint32), ("name", ctypes.c_char * 32),
                ("minimum", ctypes.c_int32), ("maximum", ctypes.c_int32), ("step", ctypes.c_int32),
                ("default_value", ctypes.c_int32), ("flags", ctypes.c_uint32), ("reserved", ctypes.c_uint32 * 2)]


class QueryMenu(ctypes.Structure):
    _pack_ = 1
    _fields_ = [("id", ctypes.c_uint32), ("index", ctypes.c_uint32), ("name", ctypes.c_char * 32), ("reserved", ctypes.c_uint32)]


class Control(ctypes.Structure):
    _fields_ = [("id", ctypes.c_uint32), ("value", ctypes.c_int32)]


VIDIOC_QUERYCTRL = ioc(3, 36, ctypes.sizeof(QueryCtrl), ord("V"))
VIDIOC_QUERYMENU = ioc(3, 37, ctypes.sizeof(QueryMenu), ord("V"))
VIDIOC_S_CTRL = ioc(3, 28, ctypes.sizeof(Control), ord("V"))
V4L2_CTRL_FLAG_NEXT_CTRL = 0x80000000


def controls(device):
    """Each control of a V4L2 device: (id, name, menu names or None)."""
    found = []
    with open(device, "rb", buffering=0) as f:
        q = QueryCtrl(id=V4L2_CTRL_FLAG_NEXT_CTRL)
        while True:
            try:
                fcntl.ioctl(f, VIDIOC_QUERYCTRL, q)
            except OSError:
                return found
            menu = None
            if q.type == 3:  # V4L2_CTRL_TYPE_MENU
                menu = []
                for i in range(q.minimum, q.maximum + 1):
                    m = QueryMenu(id=q.id, index=i)
                    try:
                        fcntl.ioctl(f, VIDIOC_QUERYMENU, m)
                        menu.append((i, m.name.decode()))
                    except OSError:
                        pass
            found.append((q.id, q.name.decode(), menu))
            q = QueryCtrl(id=q.id | V4L2_CTRL_FLAG_NEXT_CTRL)


def connect_vivid_outputs():
    """Newer vivid (Linux 6.9 on) starts its HDMI outputs unplugged ("HDMI Out N Connected To"
    menus): each is plugged into the HDMI output its menu offers."""
    for device in sorted(glob.glob("/dev/video*")):
        for cid, name, menu in controls(device):
            if "Connected To" in name and menu:
                choice = next((i for i, label in menu if label.startswith("Output HDMI")), None)
                if choice is not None:
                    with open(device, "rb", buffering=0) as f:
                        fcntl.ioctl(f, VIDIOC_S_CTRL, Control(cid, choice))
                print(f"{device}: {name}: {menu} -> {choice}", file=sys.stderr)


def cec_name(device):
    caps = CecCaps()
    with open(device, "rb", buffering=0) as f:
        fcntl.ioctl(f, CEC_ADAP_G_CAPS, caps)
    return caps.name.decode()


def load():
    subprocess.run(["modprobe", "i2c-dev"], check=True)
    subprocess.run(["modprobe", "i2c-stub", "chip_addr=0x37"], check=True)
    subprocess.run(["modprobe", "vivid"], check=True)
    subprocess.run(["udevadm", "settle"], check=True)
    connect_vivid_outputs()
    stub = [p.split("/")[-2] for p in glob.glob("/sys/class/i2c-dev/*/name") if open(p).read().startswith("SMBus stub")]
    cec = {cec_name(d): d for d in sorted(glob.glob("/dev/cec*"))}
    output = next((d for n, d in cec.items() if "vid-out" in n), None)
    tv = next((d for n, d in cec.items() if "vid-cap" in n), None)
    if not (stub and output and tv):
        sys.exit(f"no stand-ins: i2c-stub {stub}, CEC adapters {cec}")
    print(f"/dev/{stub[0]} {output} {tv}")


def ddc(device):
    fd = os.open(device, os.O_RDWR)
    fcntl.ioctl(fd, I2C_SLAVE, 0x37)
    out = []
    for register in range(0x51, 0x57):
        data = SmbusData()
        request = SmbusIoctl(1, register, 2, ctypes.pointer(data))  # read, byte data
        fcntl.ioctl(fd, I2C_SMBUS, request)
        out.append(data.byte)
    os.close(fd)
    print(" ".join(f"{b:02x}" for b in out))


def cec_tv(device, seconds, unit):
    fd = os.open(device, os.O_RDWR)
    addrs = CecLogAddrs(cec_version=5, num_log_addrs=1, vendor_id=0xffffffff, osd_name=b"TV")
    addrs.log_addr_type[0] = 0        # CEC_LOG_ADDR_TYPE_TV
    addrs.primary_device_type[0] = 0  # CEC_OP_PRIM_DEVTYPE_TV
    addrs.all_device_types[0] = 0x80  # CEC_OP_ALL_DEVTYPE_TV
    try:
        fcntl.ioctl(fd, CEC_ADAP_S_LOG_ADDRS, addrs)
    except OSError as e:
        if e.errno != errno.EBUSY:  # a TV already, from the check before
            raise
    fcntl.ioctl(fd, CEC_S_MODE, ctypes.c_uint32(CEC_MODE_INITIATOR | CEC_MODE_FOLLOWER))
    subprocess.run(["systemctl", "start", unit], check=True)
    deadline = time.monotonic() + float(seconds)
    while time.monotonic() < deadline:
        msg = CecMsg(timeout=200)
        try:
            fcntl.ioctl(fd, CEC_RECEIVE, msg)
        except OSError:
            continue  # ETIMEDOUT: nothing yet
        print(" ".join(f"{msg.msg[i]:02x}" for i in range(msg.len)), flush=True)
    os.close(fd)


if __name__ == "__main__":
    {"load": load, "ddc": ddc, "cec-tv": cec_tv}[sys.argv[1]](*sys.argv[2:])
