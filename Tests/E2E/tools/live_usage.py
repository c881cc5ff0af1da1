#!/usr/bin/python3
"""Measures Kiosk live under headless weston 10: CPU (% of one core, kiosk and weston), PSS and
frame rate over a window, after a warm-up. Not a test: numbers for closing notes and regressions.

    /usr/bin/python3 Tests/E2E/tools/live_usage.py --scene words --speed 60 --interval 0.1

The kiosk runs with a temporary kiosk.toml; CPU is utime+stime from /proc/PID/stat, PSS from
/proc/PID/smaps_rollup, frames from the kiosk's own SIGUSR1 statistics line.
"""
import argparse
import os
import re
import signal
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from harness import Kiosk, Weston  # noqa: E402

TICKS = os.sysconf("SC_CLK_TCK")


def cpu_seconds(pid):
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICKS


def pss_kib(pid):
    m = re.search(r"^Pss:\s+(\d+) kB", Path(f"/proc/{pid}/smaps_rollup").read_text(), re.M)
    return int(m.group(1))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--scene", default="words")
    ap.add_argument("--speed", type=float, default=60)
    ap.add_argument("--interval", type=float, default=0.1)
    ap.add_argument("--warmup", type=float, default=25)
    ap.add_argument("--window", type=float, default=20)
    ap.add_argument("--size", default="1920x1080")
    ap.add_argument("--transform", default="normal", help="weston's output transform, e.g. rotate-90")
    a = ap.parse_args()
    w, h = (int(v) for v in a.size.split("x"))
    conf = Path(tempfile.mkdtemp(prefix="kiosk-usage-")) / "kiosk.toml"
    conf.write_text(f"[shell]\nscene_bar = false\n\n[words]\nspeed = {a.speed}\ninterval = {a.interval}\n")
    weston = Weston(width=w, height=h, transform=a.transform)
    kiosk = None
    try:
        args = ["-v", "--config", str(conf)] + (["--screensaver"] if a.scene == "words" else ["--scene", a.scene])
        kiosk = Kiosk(weston, *args, protocol=False)
        kiosk.wait_for("first frame shown", timeout=10)
        time.sleep(a.warmup)
        kiosk.proc.send_signal(signal.SIGUSR1)  # starts the statistics window
        kiosk.wait_for(r"stats:", count=1)
        k0, w0, t0 = cpu_seconds(kiosk.proc.pid), cpu_seconds(weston.proc.pid), time.monotonic()
        time.sleep(a.window)
        k1, w1, t1 = cpu_seconds(kiosk.proc.pid), cpu_seconds(weston.proc.pid), time.monotonic()
        kiosk.proc.send_signal(signal.SIGUSR1)
        kiosk.wait_for(r"stats:", count=2)
        line = re.findall(r"stats: .*", kiosk.stderr)[-1]
        span = t1 - t0
        print(f"{a.scene} at {a.size} ({a.transform}), speed {a.speed}, interval {a.interval}: "
              f"kiosk {100 * (k1 - k0) / span:.1f}% of one core, weston {100 * (w1 - w0) / span:.1f}%, "
              f"kiosk PSS {pss_kib(kiosk.proc.pid) / 1024:.1f} MiB")
        print(f"kiosk {line}")
    finally:
        if kiosk:
            kiosk.close()
        weston.close()


if __name__ == "__main__":
    main()
