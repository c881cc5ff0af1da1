#!/usr/bin/python3
"""`make bench`: the whole-system cost table for Kiosk — the kiosk's and the compositor's CPU
(% of one core) and the kiosk's PSS, live under headless compositors, after a warm-up — and the
launch → first frame time under the strict compositor (the Makefile adds the headless frame
timings). Not a test: numbers to compare before and after a change, on one machine in one run.
The falling words run as the peers measured them: 200 words alive (speed 60; a word every ~0.1 s
on a 1080-point-tall screen, less often on a taller one, more often on a shorter one: see
`live_usage.interval_for`) with labels of about 28 kpx of ink (`[words] size = 333`, sixteen
phrases). The words column is what the kiosk reported on screen at the end of the window.

    /usr/bin/python3 Tests/E2E/tools/bench_table.py [--runs 3] [--quick]
"""
import argparse
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from live_usage import measure  # noqa: E402
from first_frame import measure_first_frame, summary  # noqa: E402

PEERS = dict(label_size=333, phrases=16)

ROWS = [
    ("200 words, peers' labels", dict(speed=60, words=200, **PEERS)),
    ("200 words, peers' labels, output rotated 90°", dict(speed=60, words=200, transform="rotate-90", **PEERS)),
    ("a word every 0.5 s, peers' labels", dict(speed=60, interval=0.5, **PEERS)),
    ("200 words, default labels", dict(speed=60, words=200)),
    ("idle (touch test)", dict(scene="touch")),
    ("200 words, peers' labels, sway", dict(speed=60, words=200, compositor="sway", **PEERS)),
    ("200 words, peers' labels, cage (1280×720)", dict(speed=60, words=200, compositor="cage", **PEERS)),
    # Headless, cage composites the kiosk through a flip (Quirks.flipsBuffers: without it
    # screenshots break), ~3× a plain copy's cost a pixel. A DRM panel composites the upright
    # buffer: the measuring shim Tests/E2E/cage-no-scanout makes the headless cage do the same.
    ("the same, cage compositing upright as on a panel (shim)", dict(speed=60, words=200, compositor="cage",
                                                                     cage_composites=True, **PEERS)),
]


def words(results):
    """The words on screen the runs reported ("-" for a scene without them)."""
    counts = [r["words"] for r in results if r["words"] is not None]
    return "-" if not counts else "–".join(str(c) for c in sorted({min(counts), max(counts)}))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=3, help="runs per row; the median is shown")
    # The warm-up is the time a word takes to fall (~19 s at the rows' speed): before it, the
    # screen has not filled and every row reads low (an 8-s one showed the rotated row at
    # 16 % where the filled screen costs 24 %).
    ap.add_argument("--quick", action="store_true", help="one run, 20 s warm-up, 10 s window")
    a = ap.parse_args()
    runs, warmup, window = (1, 20, 10) if a.quick else (a.runs, 20, 30)
    print(f"| load (weston 10 headless, pixman, 1920×1080 unless said) | kiosk CPU | compositor CPU | together | kiosk PSS | PSS, buffers halved | fps | words |")
    print("|---|---|---|---|---|---|---|---|")
    busiest = 0.0
    for name, kw in ROWS:
        results = [measure(warmup=warmup, window=window, **kw) for _ in range(runs)]
        busiest = max([busiest] + [r["busy_before"] for r in results])
        med = lambda k: statistics.median(r[k] for r in results)  # noqa: E731
        print(f"| {name} | {med('kiosk'):.1f} % | {med('compositor_cpu'):.1f} % | {med('together'):.1f} % | "
              f"{med('pss'):.1f} MiB | {med('pss_shared'):.1f} MiB | {med('fps'):.1f} | {words(results)} |", flush=True)
    print(f"(each run waited for a quiet machine: at most {busiest * 100:.0f} % of its CPU busy in the second before;")
    print(" 'buffers halved': the kiosk's shm buffers charged half to it, as PSS does when the compositor touches them")
    print(" (weston); sway keeps them mapped but not resident, and PSS then charges them all to the kiosk)")
    # Launch → first frame, from outside, under the strict compositor (20 starts; 5 with --quick).
    print()
    print(summary(*measure_first_frame(runs=5 if a.quick else 20)), flush=True)


if __name__ == "__main__":
    main()
