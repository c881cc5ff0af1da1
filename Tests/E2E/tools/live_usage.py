#!/usr/bin/python3
"""Measures Kiosk live under a headless compositor (weston 10, cage 0.1.4 or sway 1.7): CPU (% of
one core) of the kiosk, of the compositor and of both together, PSS and frame rate over a window,
after a warm-up. Not a test: numbers for closing notes and regressions (`make bench` prints a
table of them).

    /usr/bin/python3 Tests/E2E/tools/live_usage.py --scene words --speed 60 --interval 0.1
    /usr/bin/python3 Tests/E2E/tools/live_usage.py --label-size 333 --phrases 16   (the peers' job)
    /usr/bin/python3 Tests/E2E/tools/live_usage.py --compositor cage --scene words   (1280x720)
    /usr/bin/python3 Tests/E2E/tools/live_usage.py --compositor cage --cage-composites   (as on a panel)

Each measurement first waits (up to a minute) for a quiet machine, under 5 % of its CPU busy
over a second, as the peers were measured. The kiosk runs with a temporary kiosk.toml; CPU is
utime+stime from /proc/PID/stat, PSS from /proc/PID/smaps_rollup, frames from the kiosk's own
SIGUSR1 statistics line.
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


def pss_buffers_shared_kib(pid):
    """PSS with the kiosk's wl_shm buffers (its `kiosk-shm` memfds) charged half to the kiosk
    whatever the compositor holds of them. PSS splits a page among the processes that have it
    resident: weston touches the buffers it copies (each process is charged half), sway 1.7
    keeps them mapped with no page resident (the kiosk is charged all of them, 7.9 MiB for a
    1080p buffer). The same memory either way; this figure compares the compositors fairly."""
    total, mapping = pss_kib(pid), None
    for line in Path(f"/proc/{pid}/smaps").read_text().splitlines():
        if re.match(r"^[0-9a-f]+-[0-9a-f]+ ", line):
            mapping = "/memfd:kiosk-shm" in line
        elif mapping and line.startswith(("Rss:", "Pss:")):
            kib = int(line.split()[1])
            total += kib / 2 if line.startswith("Rss:") else -kib
    return total


def interval_for(words, height, speed, label_size):
    """Seconds between new words that keep `words` alive on a screen `height` points tall: a word
    falls the height plus its own (the model's `spawn`: base height 0.3 x size, scaled 1-2x, so
    1.5x on average) at `speed` (varied 0.7-1.3x, 1x on average). The same settings keep more
    words alive on a taller screen: a portrait panel (a rotated output) shows ~345 where a
    1080-point one shows ~205, so rows meant to compare the same job set the count, not the
    interval. The kiosk's statistics line says how many there were."""
    return (height + 0.3 * label_size * 1.5) / speed / words


def words_load(words, height, speed, label_size, warmup):
    """(interval, warm-up) for `words` alive on a screen `height` points tall: the screen holds
    its count once the first words have fallen all the way, so the warm-up is at least that."""
    interval = interval_for(words, height, speed, label_size)
    return interval, max(warmup, 1.1 * interval * words)


def logical_height(size="1920x1080", transform="normal", compositor="weston"):
    """The screen's height in points as the kiosk lays it out: a quarter turn of the output
    (weston's rotate-90/270, sway's 90/270) makes the panel portrait; cage's headless output is
    1280x720 whatever is asked."""
    if compositor == "cage":
        return 720
    w, h = (int(v) for v in size.split("x"))
    return w if transform in ("rotate-90", "rotate-270", "90", "270") else h


def words_config(speed, interval, label_size, phrases):
    lines = [f"speed = {speed}", f"interval = {interval}", f"size = {label_size}"]
    if phrases > 1:
        listed = ", ".join(f'"{p}"' for p in PHRASES[:phrases])
        lines.append(f"phrases = [{listed}]")
    return "[shell]\nscene_bar = false\n\n[words]\n" + "\n".join(lines) + "\n"


# Kept equal to BenchWorkloads.sixteenPhrases (Tests/KioskTests checks they agree).
PHRASES = [
    "Welcome", "Peace", "Love", "Groovy Music", "Open daily", "Touch to begin", "Hello there",
    "Discover more", "Ask our staff", "New this week", "Free entry", "Follow the signs",
    "Enjoy your visit", "Look closer", "Try it out", "Peace Love Groovy Music",
]


def cpu_busy_fraction(seconds=1.0):
    """How busy the machine's CPUs were over `seconds` (0..1), from /proc/stat."""
    def sample():
        f = [int(v) for v in Path("/proc/stat").read_text().splitlines()[0].split()[1:]]
        return sum(f), f[3] + f[4]  # total, idle + iowait
    t0, i0 = sample()
    time.sleep(seconds)
    t1, i1 = sample()
    return 1 - (i1 - i0) / max(1, t1 - t0)


def wait_for_quiet(limit=0.05, timeout=60.0):
    """Waits (up to `timeout`) until the machine is quiet: under `limit` of its CPU time busy over
    a second, so each measurement starts on a quiet machine as the peers' did. Returns how busy
    it was at the start of the measurement."""
    end = time.monotonic() + timeout
    while True:
        busy = cpu_busy_fraction()
        if busy < limit or time.monotonic() > end:
            return busy


def measure(scene="words", speed=60.0, interval=0.1, label_size=200.0, phrases=1, warmup=25.0, window=20.0,
            size="1920x1080", transform="normal", compositor="weston", env=(), words=None, cage_composites=False):
    """Runs one measurement; returns a dict of the numbers. `words`: keep that many alive (the
    interval follows from the panel's height) instead of using `interval`. `cage_composites`:
    cage composites the kiosk's upright buffers as on a DRM panel (`wlroots.Cage`'s shim)."""
    quiet = wait_for_quiet()
    w, h = (int(v) for v in size.split("x"))
    if words:
        interval, warmup = words_load(words, logical_height(size, transform, compositor), speed, label_size, warmup)
    config = words_config(speed, interval, label_size, phrases)
    scene_args = ["--screensaver"] if scene == "words" else ["--scene", scene]
    extra = dict(e.split("=", 1) for e in env)
    comp = kiosk = None
    try:
        if compositor == "cage":
            comp = kiosk = Cage(*scene_args, config=config, env=extra, composites=cage_composites)
            kiosk_pid = kiosk.kiosk_pid
            size = "1280x720"  # cage's headless output
        else:
            if compositor == "weston":
                comp = Weston(width=w, height=h, transform=transform)
                conf = Path(tempfile.mkdtemp(prefix="kiosk-usage-")) / "kiosk.toml"
                conf.write_text(config)
                kiosk = Kiosk(comp, "-v", "--config", str(conf), *scene_args, env=comp.env(**extra), protocol=False)
            else:
                comp = Sway(size=(w, h), transform=transform)
                conf = comp.dir / "kiosk.toml"
                conf.write_text(config)
                conf.chmod(0o644)
                kiosk = run_kiosk_as_user(comp, "--config", str(conf), *scene_args, env=comp.env(**extra))
            kiosk_pid = lambda: kiosk.proc.pid  # noqa: E731
        kiosk.wait_for("first frame shown", timeout=10)
        time.sleep(warmup)
        pid = kiosk_pid()
        os.kill(pid, signal.SIGUSR1)  # starts the statistics window
        wait_until(lambda: len(re.findall(r"stats:", kiosk.stderr)) >= 1, timeout=5, what="the first stats line")
        k0, c0, t0 = cpu_seconds(pid), cpu_seconds(comp.proc.pid), time.monotonic()
        time.sleep(window)
        k1, c1, t1 = cpu_seconds(pid), cpu_seconds(comp.proc.pid), time.monotonic()
        os.kill(pid, signal.SIGUSR1)
        wait_until(lambda: len(re.findall(r"stats:", kiosk.stderr)) >= 2, timeout=5, what="the second stats line")
        line = re.findall(r"stats: .*", kiosk.stderr)[-1]
        fps = re.search(r"\(([\d.]+) fps\)", line)
        shown = re.search(r", (\d+) words on screen", line)
        span = t1 - t0
        kiosk_cpu, comp_cpu = 100 * (k1 - k0) / span, 100 * (c1 - c0) / span
        return dict(scene=scene, size=size, transform=transform, compositor=compositor, kiosk=kiosk_cpu,
                    compositor_cpu=comp_cpu, together=kiosk_cpu + comp_cpu, pss=pss_kib(pid) / 1024,
                    pss_shared=pss_buffers_shared_kib(pid) / 1024,
                    fps=float(fps.group(1)) if fps else 0.0, words=int(shown.group(1)) if shown else None,
                    interval=interval, stats=line, busy_before=quiet)
    finally:
        if kiosk is not None and kiosk is not comp:
            kiosk.close()
        if comp is not None:
            comp.close()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--scene", default="words")
    ap.add_argument("--speed", type=float, default=60)
    ap.add_argument("--interval", type=float, default=0.1)
    ap.add_argument("--words", type=int, help="keep this many words alive (sets the interval from the panel's height)")
    ap.add_argument("--label-size", type=float, default=200, help="[words] size: the smallest label's width in points")
    ap.add_argument("--phrases", type=int, default=1, help="1: the default phrase; 16: the peers' set")
    ap.add_argument("--warmup", type=float, default=25)
    ap.add_argument("--window", type=float, default=20)
    ap.add_argument("--size", default="1920x1080")
    ap.add_argument("--transform", default="normal", help="weston's output transform, e.g. rotate-90")
    ap.add_argument("--compositor", default="weston", choices=["weston", "cage", "sway"])
    ap.add_argument("--env", action="append", default=[], help="NAME=VALUE for the kiosk (e.g. KIOSK_FLIP_BUFFERS=0)")
    ap.add_argument("--cage-composites", action="store_true",
                    help="cage composites upright buffers every frame, as on a DRM panel (a measuring shim)")
    a = ap.parse_args()
    r = measure(a.scene, a.speed, a.interval, a.label_size, a.phrases, a.warmup, a.window, a.size, a.transform,
                a.compositor, a.env, a.words, a.cage_composites)
    how = " compositing upright (shim)" if a.cage_composites else ""
    print(f"{r['scene']} at {r['size']} ({r['transform']}) under {r['compositor']}{how} {' '.join(a.env)}, speed {a.speed}, "
          f"interval {r['interval']:.3g}, label size {a.label_size:g}, {a.phrases} phrase(s): kiosk {r['kiosk']:.1f}% of one core, "
          f"{r['compositor']} {r['compositor_cpu']:.1f}%, together {r['together']:.1f}%, kiosk PSS {r['pss']:.1f} MiB "
          f"({r['pss_shared']:.1f} with its buffers charged half)")
    print(f"kiosk {r['stats']}")


if __name__ == "__main__":
    main()
