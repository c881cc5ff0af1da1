#!/usr/bin/python3
"""Measures Kiosk live under a headless compositor (weston 10, cage 0.1.4 or sway 1.7): CPU (% of
one core, kiosk and compositor), PSS and frame rate over a window, after a warm-up. Not a test:
numbers for closing notes and regressions.

    /usr/bin/python3 Tests/E2E/tools/live_usage.py --scene words --speed 60 --interval 0.1
    /usr/bin/python3 Tests/E2E/tools/live_usage.py --compositor cage --scene words   (1280x720)

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
from harness import Kiosk, Weston, wait_until  # noqa: E402
from wlroots import Cage, Sway, run_kiosk_as_user  # noqa: E402

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
    ap.add_argument("--compositor", default="weston", choices=["weston", "cage", "sway"])
    ap.add_argument("--env", action="append", default=[], help="NAME=VALUE for the kiosk (e.g. KIOSK_FLIP_BUFFERS=0)")
    a = ap.parse_args()
    w, h = (int(v) for v in a.size.split("x"))
    config = f"[shell]\nscene_bar = false\n\n[words]\nspeed = {a.speed}\ninterval = {a.interval}\n"
    scene_args = ["--screensaver"] if a.scene == "words" else ["--scene", a.scene]
    extra = dict(e.split("=", 1) for e in a.env)
    comp = kiosk = None
    try:
        if a.compositor == "cage":
            comp = kiosk = Cage(*scene_args, config=config, env=extra)
            kiosk_pid = kiosk.kiosk_pid
            a.size = "1280x720"  # cage's headless output
        else:
            if a.compositor == "weston":
                comp = Weston(width=w, height=h, transform=a.transform)
                conf = Path(tempfile.mkdtemp(prefix="kiosk-usage-")) / "kiosk.toml"
                conf.write_text(config)
                kiosk = Kiosk(comp, "-v", "--config", str(conf), *scene_args, env=comp.env(**extra), protocol=False)
            else:
                comp = Sway(size=(w, h), transform=a.transform)
                conf = comp.dir / "kiosk.toml"
                conf.write_text(config)
                conf.chmod(0o644)
                kiosk = run_kiosk_as_user(comp, "--config", str(conf), *scene_args, env=comp.env(**extra))
            kiosk_pid = lambda: kiosk.proc.pid  # noqa: E731
        kiosk.wait_for("first frame shown", timeout=10)
        time.sleep(a.warmup)
        pid = kiosk_pid()
        os.kill(pid, signal.SIGUSR1)  # starts the statistics window
        wait_until(lambda: len(re.findall(r"stats:", kiosk.stderr)) >= 1, timeout=5, what="the first stats line")
        k0, w0, t0 = cpu_seconds(pid), cpu_seconds(comp.proc.pid), time.monotonic()
        time.sleep(a.window)
        k1, w1, t1 = cpu_seconds(pid), cpu_seconds(comp.proc.pid), time.monotonic()
        os.kill(pid, signal.SIGUSR1)
        wait_until(lambda: len(re.findall(r"stats:", kiosk.stderr)) >= 2, timeout=5, what="the second stats line")
        line = re.findall(r"stats: .*", kiosk.stderr)[-1]
        span = t1 - t0
        print(f"{a.scene} at {a.size} ({a.transform}) under {a.compositor} {' '.join(a.env)}, speed {a.speed}, "
              f"interval {a.interval}: kiosk {100 * (k1 - k0) / span:.1f}% of one core, {a.compositor} "
              f"{100 * (w1 - w0) / span:.1f}%, kiosk PSS {pss_kib(pid) / 1024:.1f} MiB")
        print(f"kiosk {line}")
    finally:
        if kiosk is not None and kiosk is not comp:
            kiosk.close()
        if comp is not None:
            comp.close()


if __name__ == "__main__":
    main()
