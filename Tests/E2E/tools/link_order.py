#!/usr/bin/python3
"""Regenerates Packaging/link-order.txt: the functions a running kiosk executes, the ones its
screensaver runs for hours first, then the rest in the order it first executes them, which
`make build` hands the linker (`--symbol-ordering-file`) so that they share pages. Not a test:
run it when the code has moved a lot (as root, for perf; Debian package linux-perf), then commit
the list.

    /usr/bin/python3 Tests/E2E/tools/link_order.py [--rounds 4]

Why: the kernel maps a program's code 64 KiB around each page it first touches, so a function
the kiosk calls once pulls its neighbours in and keeps them resident. Each round builds the kiosk
with the current list, runs it through its scenes under headless weston (touch test, lander and
tiles with touches, the screensaver at the peers' load and at its default) while perf records the
page faults of instruction fetches (`exceptions:page_fault_user`, error code bit 0x10), and adds
the function at each faulting address (from the link map) to the list. A fault only names the
first function touched in a 64 KiB block that is not laid out yet, so a round finds what earlier
rounds' layouts uncovered; the list converges over rounds and over runs (names already listed
keep their place).

The kiosk hands its unmodified code pages back a few seconds after start-up and whenever the
screensaver starts (`FilePages`, logged at debug level with the monotonic time). What the
screensaver runs after that is its steady working set, which goes into the list's first part
("# steady"), so that what it maps back is a few dense blocks: the functions perf finds running
most often (sampled for 12 s), then the first function of each block it faults in. The faults of
start-up and of the touch scenes go into the second part ("# start-up and visitors").

Only functions that have a section of their own can move: our modules are compiled with
`-function-sections`; the prebuilt runtime (libswiftCore's main `.text`, Foundation's objects)
keeps most code in one section per object, and moving one of those would drag the whole blob
along, so functions in sections over 16 KiB are left out.
"""
import argparse
import bisect
import collections
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_table import PEERS  # noqa: E402
from harness import Kiosk, Weston  # noqa: E402
from live_usage import words_config  # noqa: E402

ROOT = Path(__file__).resolve().parents[3]
ORDER = ROOT / "Packaging" / "link-order.txt"
MAP = ROOT / ".build" / "kiosk.map"
BLOB = 16 * 1024
STEADY = "# steady: what the screensaver runs after the kiosk hands back its start-up code"
REST = "# start-up and visitors: in the order first run"
TRIM = re.compile(r"returning \d+ KiB of unmodified file pages \(monotonic (\d+) ns\)")


def build():
    subprocess.run(["make", "-C", str(ROOT), "build", f"EXTRA_LINK=-Xlinker -Map={MAP}"], check=True,
                   stdout=subprocess.DEVNULL)
    return (ROOT / ".build" / "release" / "kiosk").resolve()


def scenes(binary):
    """Runs the kiosk the ways it is deployed, one process per scene; returns, for each
    screensaver run's pid, when (monotonic seconds) it last handed back its code pages."""
    def touches(weston):
        for _ in range(3):
            weston.send("down 0 400 500", "down 1 1200 600", "frame")
            for s in range(10):
                weston.send(f"motion 0 {400 + s * 20} {500 + s * 10}", f"motion 1 {1200 - s * 20} {600 - s * 5}", "frame")
                time.sleep(0.02)
            weston.send("up 0", "up 1", "frame")
            time.sleep(0.3)
        for x, y in [(300, 300), (960, 540), (1500, 800), (200, 900), (1700, 200)]:
            weston.send(f"down 0 {x} {y}", "frame", "up 0", "frame")
            time.sleep(0.3)
        weston.send("keydown 30", "keyup 30")
        time.sleep(1)

    runs = [(["--scene", s, "--idle-timeout", "0"], touches, None) for s in ("touch", "lander", "tiles")]
    runs.append((["--screensaver"], None, words_config(60, 0.1, PEERS["label_size"], PEERS["phrases"])))
    runs.append((["--screensaver"], None, None))
    trimmed, sampled = {}, collections.Counter()
    for args, act, config in runs:
        weston = Weston(width=1920, height=1080)
        extra = []
        if config:
            path = Path(tempfile.mkdtemp()) / "kiosk.toml"
            path.write_text(config)
            extra = ["--config", str(path)]
        kiosk = Kiosk(weston, "-v", *extra, *args, env=weston.env(), protocol=False, binary=binary)
        try:
            kiosk.wait_for("first frame shown", timeout=10)
            if act:
                act(weston)
            else:
                # The screensaver: once it has handed back its start-up code, what it runs.
                kiosk.wait_for(TRIM.pattern, timeout=10)
                sampled.update(hot_functions(kiosk.proc.pid, 12))
                times = [int(m.group(1)) / 1e9 for m in map(TRIM.search, kiosk.stderr.splitlines()) if m]
                if not times:
                    sys.exit("link_order.py: the screensaver never handed back its code pages (no debug line)")
                trimmed[kiosk.proc.pid] = times[-1]
            os.kill(kiosk.proc.pid, signal.SIGUSR1)  # the statistics line's code too
            time.sleep(0.3)
        finally:
            kiosk.close()
            weston.close()
    return trimmed, sampled


def hot_functions(pid, seconds):
    """How often each of the kiosk's functions was found running, sampled for `seconds`."""
    data = str(Path(tempfile.mkdtemp()) / "samples.data")
    subprocess.run(["perf", "record", "-q", "-F", "5000", "-p", str(pid), "-o", data, "--", "sleep", str(seconds)],
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    out = subprocess.run(["perf", "script", "-i", data, "-F", "ip,sym,dso"], capture_output=True, text=True, check=True).stdout
    found = collections.Counter()
    for line in out.splitlines():
        parts = line.split()
        # "ip symbol (dso)": only the kiosk's own code (its symbols are mangled, without spaces).
        if len(parts) == 3 and parts[2].startswith("(") and Path(parts[2][1:-1]).name == "kiosk":
            found[parts[1]] += 1
    return found


def faulting_addresses(binary, data):
    """(pid, monotonic seconds, address in the binary's file) of every instruction-fetch fault
    in its code."""
    out = subprocess.run(["perf", "script", "-i", data, "--show-mmap-events", "-F", "comm,pid,time,trace"],
                         capture_output=True, text=True, check=True).stdout
    code, found = {}, []
    for line in out.splitlines():
        m = re.search(r"(\d+)/\d+: \[0x([0-9a-f]+)\(0x([0-9a-f]+)\) @ 0x([0-9a-f]+) .*\]: r-xp (\S+)$", line)
        if m and Path(m.group(5)).resolve() == binary:
            code[int(m.group(1))] = (int(m.group(2), 16), int(m.group(3), 16), int(m.group(4), 16))
            continue
        m = re.search(r"^\s*\S+\s+(\d+)\s+([\d.]+):\s+address=0x([0-9a-f]+) ip=0x[0-9a-f]+ error_code=0x([0-9a-f]+)", line)
        if m and int(m.group(4), 16) & 0x10 and int(m.group(1)) in code:
            pid = int(m.group(1))
            start, size, offset = code[pid]
            address = int(m.group(3), 16)
            if start <= address < start + size:
                found.append((pid, float(m.group(2)), address - start + offset))
    return found


def link_map(binary):
    """The link map's code: (address, size, input section) sorted, and symbol → address."""
    sections, symbols, in_text = [], {}, False
    row = re.compile(r"\s*([0-9a-f]+)\s+[0-9a-f]+\s+([0-9a-f]+)\s+\d+ (\s*)(\S.*)$")
    for line in MAP.read_text(errors="replace").splitlines():
        m = row.match(line)
        if not m:
            continue
        depth = len(m.group(3))
        if depth == 0:
            in_text = m.group(4) == ".text"
        elif in_text and depth == 8:
            sections.append((int(m.group(1), 16), int(m.group(2), 16)))
    sections.sort()
    nm = subprocess.run(["nm", "--defined-only", "-n", str(binary)],
                        capture_output=True, text=True, check=True).stdout
    for line in nm.splitlines():
        parts = line.split(None, 2)
        if len(parts) == 3 and parts[1] in "tTwW":
            symbols.setdefault(parts[2], int(parts[0], 16))
    return sections, symbols


def file_to_address(binary):
    out = subprocess.run(["readelf", "-lW", str(binary)], capture_output=True, text=True, check=True).stdout
    m = re.search(r"LOAD\s+0x([0-9a-f]+) 0x([0-9a-f]+) \S+ \S+ \S+ R E", out)
    return int(m.group(2), 16) - int(m.group(1), 16)


def read_order():
    """The list's two parts, steady and the rest (a list without the headers is all rest)."""
    steady, rest, part = [], [], None
    for line in (ORDER.read_text().split("\n") if ORDER.exists() else []):
        line = line.strip()
        if line.startswith("#"):
            part = steady if line == STEADY else rest if line == REST else part
        elif line:
            (part if part is not None else rest).append(line)
    return steady, rest


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=4)
    a = ap.parse_args()
    if not shutil.which("perf"):
        sys.exit("link_order.py: perf not found (Debian package linux-perf)")
    steady, rest = read_order()
    data = str(Path(tempfile.mkdtemp()) / "faults.data")
    for r in range(a.rounds):
        binary = build()
        # Monotonic timestamps, to compare with the kiosk's own log line.
        perf = subprocess.Popen(["perf", "record", "-q", "-a", "-k", "CLOCK_MONOTONIC", "-m", "4096",
                                 "-e", "exceptions:page_fault_user", "-o", data],
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        time.sleep(1.5)
        try:
            trimmed, sampled = scenes(binary)
        finally:
            perf.send_signal(signal.SIGINT)
            perf.wait()
        sections, symbols = link_map(binary)
        starts = [s for s, _ in sections]
        by_address = sorted((addr, name) for name, addr in symbols.items())
        addresses = [addr for addr, _ in by_address]
        delta = file_to_address(binary)

        def movable(name):
            addr = symbols[name]
            i = bisect.bisect_right(starts, addr) - 1
            return i >= 0 and addr < starts[i] + sections[i][1] and sections[i][1] <= BLOB

        faults = faulting_addresses(binary, data)
        # What the screensaver runs most, then the first function of each block it maps back.
        new_steady, new_rest = [name for name, _ in sampled.most_common() if name in symbols], []
        for pid, when, offset in faults:
            i = bisect.bisect_right(addresses, offset + delta) - 1
            if i >= 0:
                (new_steady if pid in trimmed and when > trimmed[pid] else new_rest).append(by_address[i][1])
        steady = [s for s in steady if s in symbols and movable(s)]
        in_steady = set(steady)
        added_steady = [s for s in dict.fromkeys(new_steady) if s not in in_steady and movable(s)]
        steady += added_steady
        in_steady.update(added_steady)
        rest = [s for s in rest if s in symbols and movable(s) and s not in in_steady]
        in_rest = set(rest)
        added_rest = [s for s in dict.fromkeys(new_rest) if s not in in_steady and s not in in_rest and movable(s)]
        rest += added_rest
        ORDER.write_text("\n".join([STEADY, *steady, REST, *rest]) + "\n")
        print(f"round {r + 1}: {len(faults)} instruction faults in the kiosk's code, {len(added_steady)} functions "
              f"added to the steady part ({len(steady)}), {len(added_rest)} to the rest ({len(rest)})", flush=True)
    subprocess.run(["make", "-C", str(ROOT), "build"], check=True, stdout=subprocess.DEVNULL)


if __name__ == "__main__":
    main()
