#!/usr/bin/python3
"""Launch → first frame, measured from outside: the time from starting the kiosk process to the
moment the strict test compositor receives its first commit with a buffer (its report line's
`t=`, CLOCK_MONOTONIC, as Python's time.monotonic_ns), over N runs; with the kiosk's own startup
phases (its --verbose log) and the CPU all its threads had used by its first commit as the
breakdown (on a two-core panel the start is bound by CPU: the threads overlap only as far as the
cores allow). Not a test: numbers for closing notes.

    /usr/bin/python3 Tests/E2E/tools/first_frame.py [--runs 20] [--scene touch]
"""
import argparse
import re
import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from harness import KIOSK, Strict, wait_until  # noqa: E402

PHASES = ["connected", "configured", "scene ready", "first frame drawn"]
CPU = "CPU"


def measure_first_frame(runs=20, scene="touch", binary=str(KIOSK)):
    """Starts the kiosk `runs` times; returns (launch → first commit in ms per run, the kiosk's
    own phases: name → ms after its start per run, and under `CPU` the ms of CPU all its threads
    had used by the first commit)."""
    strict = Strict()
    outside, phases = [], {p: [] for p in PHASES + ["first frame committed", CPU]}
    try:
        for _ in range(runs):
            seen = len(strict.lines())
            t0 = time.monotonic_ns()
            p = subprocess.Popen([binary, "--verbose", "--scene", scene, "--idle-timeout", "0"], env=strict.env(),
                                 stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)

            def first_commit():
                for line in strict.lines()[seen:]:
                    m = re.match(r"commit \d+ wl_buffer.* t=(\d+)$", line)
                    if m:
                        return int(m.group(1))
                return None
            t1 = wait_until(first_commit, timeout=10, interval=0.005, what="the first commit")
            outside.append((t1 - t0) / 1e6)
            p.terminate()
            err = p.communicate(timeout=5)[1]
            for ph in PHASES:
                m = re.search(rf"startup: {ph} at ([\d.]+) ms", err)
                if m:
                    phases[ph].append(float(m.group(1)))
            m = re.search(r"first frame committed: ([\d.]+) ms", err)
            if m:
                phases["first frame committed"].append(float(m.group(1)))
            m = re.search(r"([\d.]+) ms of CPU since exec", err)
            if m:
                phases[CPU].append(float(m.group(1)))
            time.sleep(0.2)
    finally:
        strict.close()
    return outside, phases


def summary(outside, phases):
    return (f"launch → first commit received by the compositor, {len(outside)} runs: median {statistics.median(outside):.1f} ms "
            f"(min {min(outside):.1f}, max {max(outside):.1f})\n"
            "the kiosk's own phases (median ms after its start): " +
            ", ".join(f"{ph} {statistics.median(v):.1f}" for ph, v in phases.items() if v and ph != CPU) +
            (f"\nCPU the kiosk had used by its first commit (all threads, from exec): median {statistics.median(phases[CPU]):.1f} ms"
             if phases[CPU] else ""))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=20)
    ap.add_argument("--scene", default="touch")
    ap.add_argument("--binary", default=str(KIOSK))
    a = ap.parse_args()
    print(summary(*measure_first_frame(a.runs, a.scene, a.binary)))


if __name__ == "__main__":
    main()
