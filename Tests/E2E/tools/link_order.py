#!/usr/bin/python3
"""Regenerates Packaging/link-order.txt: the functions a running kiosk executes, in the order it
first executes them, which `make build` hands the linker (`--symbol-ordering-file`) so that they
share pages. Not a test: run it when the code has moved a lot (as root, for perf; Debian package
linux-perf), then commit the list.

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

Only functions that have a section of their own can move: our modules are compiled with
`-function-sections`; the prebuilt runtime (libswiftCore's main `.text`, Foundation's objects)
keeps most code in one section per object, and moving one of those would drag the whole blob
along, so functions in sections over 16 KiB are left out.
"""
import argparse
import bisect
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


def build():
    subprocess.run(["make", "-C", str(ROOT), "build", f"EXTRA_LINK=-Xlinker -Map={MAP}"], check=True,
                   stdout=subprocess.DEVNULL)
    return (ROOT / ".build" / "release" / "kiosk").resolve()


def scenes(binary):
    """Runs the kiosk the ways it is deployed, one process per scene."""
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
    runs.append((["--screensaver"], lambda w: time.sleep(15), words_config(60, 0.1, PEERS["label_size"], PEERS["phrases"])))
    runs.append((["--screensaver"], lambda w: time.sleep(5), None))
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
            act(weston)
            os.kill(kiosk.proc.pid, signal.SIGUSR1)  # the statistics line's code too
            time.sleep(0.3)
        finally:
            kiosk.close()
            weston.close()


def faulting_addresses(binary, data):
    """(pid, address in the binary's file) of every instruction-fetch fault in its code."""
    out = subprocess.run(["perf", "script", "-i", data, "--show-mmap-events", "-F", "comm,pid,trace"],
                         capture_output=True, text=True, check=True).stdout
    code, found = {}, []
    for line in out.splitlines():
        m = re.search(r"(\d+)/\d+: \[0x([0-9a-f]+)\(0x([0-9a-f]+)\) @ 0x([0-9a-f]+) .*\]: r-xp (\S+)$", line)
        if m and Path(m.group(5)).resolve() == binary:
            code[int(m.group(1))] = (int(m.group(2), 16), int(m.group(3), 16), int(m.group(4), 16))
            continue
        m = re.search(r"^\s*\S+\s+(\d+)\s+address=0x([0-9a-f]+) ip=0x[0-9a-f]+ error_code=0x([0-9a-f]+)", line)
        if m and int(m.group(3), 16) & 0x10 and int(m.group(1)) in code:
            start, size, offset = code[int(m.group(1))]
            address = int(m.group(2), 16)
            if start <= address < start + size:
                found.append(address - start + offset)
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


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=4)
    a = ap.parse_args()
    if not shutil.which("perf"):
        sys.exit("link_order.py: perf not found (Debian package linux-perf)")
    order = [s for s in ORDER.read_text().split("\n") if s] if ORDER.exists() else []
    data = str(Path(tempfile.mkdtemp()) / "faults.data")
    for r in range(a.rounds):
        binary = build()
        perf = subprocess.Popen(["perf", "record", "-q", "-a", "-m", "4096", "-e", "exceptions:page_fault_user", "-o", data],
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        time.sleep(1.5)
        try:
            scenes(binary)
        finally:
            perf.send_signal(signal.SIGINT)
            perf.wait()
        sections, symbols = link_map(binary)
        starts = [s for s, _ in sections]
        by_address = sorted((addr, name) for name, addr in symbols.items())
        addresses = [addr for addr, _ in by_address]
        delta = file_to_address(binary)

        def movable(addr):
            i = bisect.bisect_right(starts, addr) - 1
            return i >= 0 and addr < starts[i] + sections[i][1] and sections[i][1] <= BLOB

        faults = faulting_addresses(binary, data)
        new = []
        for offset in faults:
            i = bisect.bisect_right(addresses, offset + delta) - 1
            if i >= 0:
                new.append(by_address[i][1])
        kept = [s for s in order if s in symbols and movable(symbols[s])]
        listed = set(kept)
        added = [s for s in dict.fromkeys(new) if s not in listed and movable(symbols[s])]
        order = kept + added
        ORDER.write_text("".join(s + "\n" for s in order))
        print(f"round {r + 1}: {len(faults)} instruction faults in the kiosk's code, "
              f"{len(added)} functions added, {len(order)} listed", flush=True)
    subprocess.run(["make", "-C", str(ROOT), "build"], check=True, stdout=subprocess.DEVNULL)


if __name__ == "__main__":
    main()
