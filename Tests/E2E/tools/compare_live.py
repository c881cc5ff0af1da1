#!/usr/bin/python3
"""Compares two kiosk binaries live: both run at once, each under its own headless weston 10
(pixman, 1920x1080), showing the falling words at the peers' label size, and their CPU (% of one
core, the kiosk's and its weston's) is read over the same windows. Not a test: a before/after
number for a change.

    /usr/bin/python3 Tests/E2E/tools/compare_live.py OLD_KIOSK NEW_KIOSK [--interval 0.5 | --words 200] [--transform rotate-90]

Why at once: this machine's speed drifts by 15-30 % within minutes (other tenants), more than
most changes are worth, so runs one after the other (live_usage.py) need many repeats; two
kiosks side by side see the same drift, and each window compares them directly. Each kiosk
with its weston takes ~10-20 % of one core, so the two pairs hardly compete for the cores; they
do compete for memory bandwidth (the westons copy most of a 1080p frame each), so the absolute
numbers run higher than live_usage.py's alone, rotated outputs most: read the difference.
"""
import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))
from harness import Kiosk, Weston  # noqa: E402
from bench_table import PEERS  # noqa: E402
from live_usage import cpu_seconds, logical_height, wait_for_quiet, words_config, words_load  # noqa: E402


def compare(binaries, interval=0.1, label_size=PEERS["label_size"], phrases=PEERS["phrases"], warmup=20.0, windows=6, window=10.0,
            transform="normal", words=None):
    """Returns {binary: [(kiosk %, weston %) per window]}."""
    wait_for_quiet()
    if words:
        # As many words alive whatever the panel's shape.
        interval, warmup = words_load(words, logical_height(transform=transform), 60, label_size, warmup)
    runs = []
    try:
        for b in binaries:
            comp = Weston(width=1920, height=1080, transform=transform)
            conf = Path(tempfile.mkdtemp(prefix="kiosk-compare-")) / "kiosk.toml"
            conf.write_text(words_config(60, interval, label_size, phrases))
            runs.append((b, comp, Kiosk(comp, "-v", "--config", str(conf), "--screensaver", env=comp.env(), protocol=False,
                                        binary=b)))
        for _, _, k in runs:
            k.wait_for("first frame shown", timeout=10)
        time.sleep(warmup)
        result = {b: [] for b in binaries}
        for _ in range(windows):
            before = [(cpu_seconds(k.proc.pid), cpu_seconds(c.proc.pid)) for _, c, k in runs]
            t0 = time.monotonic()
            time.sleep(window)
            span = time.monotonic() - t0
            for (b, c, k), (k0, c0) in zip(runs, before):
                result[b].append((100 * (cpu_seconds(k.proc.pid) - k0) / span, 100 * (cpu_seconds(c.proc.pid) - c0) / span))
        return result
    finally:
        for _, c, k in runs:
            k.close()
            c.close()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("binaries", nargs=2, help="the two kiosk executables (e.g. a copy of the old build, then .build/release/kiosk)")
    ap.add_argument("--interval", type=float, default=0.1, help="seconds between words: 0.1 keeps ~200 alive on a landscape panel, 0.5 is light load")
    ap.add_argument("--words", type=int, help="keep this many words alive instead (the interval follows from the panel's height)")
    ap.add_argument("--windows", type=int, default=6)
    ap.add_argument("--window", type=float, default=10)
    ap.add_argument("--transform", default="normal", help="weston's output transform, e.g. rotate-90")
    ap.add_argument("--label-size", type=float, default=PEERS["label_size"], help="[words] size (200: the default labels)")
    ap.add_argument("--phrases", type=int, default=PEERS["phrases"], help="16: the peers' set; 1: the default phrase")
    a = ap.parse_args()
    r = compare(a.binaries, interval=a.interval, label_size=a.label_size, phrases=a.phrases, windows=a.windows, window=a.window,
                transform=a.transform, words=a.words)
    names = [f"{i + 1}: {b}" for i, b in enumerate(a.binaries)]
    print("  ".join(names))
    for w in range(a.windows):
        print("  ".join(f"kiosk {r[b][w][0]:4.1f} %  weston {r[b][w][1]:4.1f} %" for b in a.binaries))
    for i, b in enumerate(a.binaries):
        k = statistics.median(x[0] for x in r[b])
        c = statistics.median(x[1] for x in r[b])
        print(f"median {i + 1}: kiosk {k:.2f} %, weston {c:.2f} %, together {k + c:.2f} % of one core")


if __name__ == "__main__":
    main()
