#!/usr/bin/python3
"""Measures Kiosk's resident memory through an input storm under the strict test compositor:
random taps, drags, ten-finger mashes and scene keys in rounds, then the screensaver and a wake.
Not a test: numbers for closing notes (the target: RSS after any storm ≤ 45 MiB).

    /usr/bin/python3 Tests/E2E/tools/input_storm.py [--rounds 6] [--per-round 400]
"""
import argparse
import random
import re
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from harness import Kiosk, Strict  # noqa: E402


def rss(pid):
    t = Path(f"/proc/{pid}/status").read_text()
    return int(re.search(r"VmRSS:\s+(\d+)", t).group(1)) // 1024, int(re.search(r"VmHWM:\s+(\d+)", t).group(1)) // 1024


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=6)
    ap.add_argument("--per-round", type=int, default=400)
    ap.add_argument("--seed", type=int, default=3)
    a = ap.parse_args()
    conf = Path(tempfile.mkdtemp(prefix="kiosk-storm-")) / "kiosk.toml"
    conf.write_text("[shell]\nidle_timeout = 20\n")
    s = Strict()
    k = Kiosk(s, "--verbose", "--config", str(conf), "--scene", "touch", protocol=False)
    try:
        k.wait_for("first frame shown")
        time.sleep(1)
        print(f"start: RSS {rss(k.proc.pid)[0]} MiB")
        rnd = random.Random(a.seed)
        events = 0
        for r in range(a.rounds):
            for _ in range(a.per_round):
                act = rnd.random()
                if act < 0.5:
                    x, y = rnd.randint(0, 1919), rnd.randint(0, 1079)
                    s.send(f"down 1 {x} {y}", "frame", f"motion 1 {x + rnd.randint(-300, 300)} {y + rnd.randint(-200, 200)}",
                           "frame", "up 1", "frame")
                    events += 3
                elif act < 0.8:
                    n = rnd.randint(2, 10)
                    s.send(*[f"down {j} {rnd.randint(0, 1919)} {rnd.randint(0, 1079)}" for j in range(n)], "frame",
                           *[f"motion {j} {rnd.randint(0, 1919)} {rnd.randint(0, 1079)}" for j in range(n)], "frame",
                           *[f"up {j}" for j in range(n)], "frame")
                    events += 3 * n
                else:
                    s.send(f"key {rnd.choice([59, 60, 61, 57, 105, 106, 30])}")
                    events += 2
            time.sleep(0.5)
            now, peak = rss(k.proc.pid)
            print(f"after {events} events: RSS {now} MiB (peak {peak} MiB)")
        time.sleep(25)
        print(f"after the screensaver: RSS {rss(k.proc.pid)[0]} MiB")
        s.send("down 1 500 500", "frame", "up 1", "frame")
        time.sleep(1)
        now, peak = rss(k.proc.pid)
        print(f"woken: RSS {now} MiB (peak {peak} MiB); strict compositor violations: {len(s.violations())}")
    finally:
        k.close()
        s.close()


if __name__ == "__main__":
    main()
