#!/usr/bin/python3
"""What a frame costs, in counts that hold on any machine: the instructions and the allocations
(malloc, calloc, realloc, aligned) of each measured frame of `kiosk bench`, counted by
callgrind over the measuring loop only (`--toggle-collect`: the screen's filling, fonts and
start-up are not counted) — for the screensaver and the lander at the Raspberry Pi panels'
sizes, so the frame budget of a slow core can be judged without one. The instructions are this
machine's (x86-64); an arm64 build's differ, and are not counted here (no counter under
emulation). Not a test: numbers for docs/measurements.md and closing notes; `make bench` runs it.

    /usr/bin/python3 Tests/E2E/tools/frame_cost.py [--frames 120]
"""
import argparse
import re
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from harness import KIOSK  # noqa: E402

# (what, kiosk bench's arguments): the screensaver as configured by default once its screen has
# filled, and a lander flight with the engine held (the flame drawn every frame).
CASES = [
    ("screensaver", ["--scene", "words", "--items", "0"]),
    ("lander, engine held", ["--scene", "lander", "--items", "0", "--engine"]),
]
SIZES = ["800x480", "720x1280"]
ALLOCATORS = {"malloc", "calloc", "realloc", "posix_memalign", "aligned_alloc", "memalign"}
# The loops that measure frames (Headless/Bench.swift), by their mangled names' stems.
MEASURED = ["*12runIdleBench*", "*13runTouchBench*"]
# A Raspberry Pi 4's core at 1.5 GHz has 25 million cycles for each frame at 60 Hz.
PI4_CYCLES_PER_FRAME = 1.5e9 / 60


def callgrind(binary, args, frames):
    """(instructions, allocations) callgrind counted inside the measuring loop."""
    with tempfile.TemporaryDirectory() as d:
        out = Path(d) / "callgrind.out"
        cmd = ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", "--collect-atstart=no",
               *[f"--toggle-collect={m}" for m in MEASURED], str(binary), "bench", *args, "--frames", str(frames)]
        r = subprocess.run(cmd, capture_output=True, text=True)
        if r.returncode != 0:
            raise SystemExit(f"frame_cost: {' '.join(cmd)} failed:\n{r.stderr[-2000:]}")
        return parse(out.read_text(errors="replace"))


def parse(text):
    """Total instructions (the `totals:` or `summary:` line) and the calls made to an allocator,
    read from callgrind's output (names are given once with an id, then by id alone)."""
    names, instructions, allocations, callee = {}, 0, 0, None
    for line in text.splitlines():
        if line.startswith(("summary:", "totals:")):
            instructions = int(line.split()[1])
        elif line.startswith("cfn="):
            m = re.match(r"cfn=\((\d+)\)(?: (.*))?", line)
            if m.group(2):
                names[m.group(1)] = m.group(2)
            callee = names.get(m.group(1), "")
        elif line.startswith("fn="):
            m = re.match(r"fn=\((\d+)\)(?: (.*))?", line)
            if m and m.group(2):
                names[m.group(1)] = m.group(2)
        elif line.startswith("calls=") and callee is not None:
            if callee.split("'")[0] in ALLOCATORS:
                allocations += int(line.split("=")[1].split()[0])
            callee = None
    return instructions, allocations


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--frames", type=int, default=120)
    a = ap.parse_args()
    print(f"per measured frame of `kiosk bench`, counted by callgrind over {a.frames} frames ({KIOSK})")
    print(f"{'workload':<22} {'panel':>9} {'instructions':>13} {'allocations':>12} {'of a Pi 4 frame at 1 IPC':>26}")
    with tempfile.TemporaryDirectory() as d:
        # valgrind 3.19 cannot read the DWARF 5 that clang writes for Swift; the symbol table is
        # all it needs to find the measuring loop.
        binary = Path(d) / "kiosk"
        subprocess.run(["objcopy", "--strip-debug", str(KIOSK), str(binary)], check=True)
        table(binary, a.frames)


def table(binary, frames):
    for what, args in CASES:
        for size in SIZES:
            instructions, allocations = callgrind(binary, [*args, "--size", size], frames)
            per = instructions / frames
            print(f"{what:<22} {size:>9} {per:>13,.0f} {allocations / frames:>12.1f} {per / PI4_CYCLES_PER_FRAME:>25.1%}")
    exhibits(binary, frames)


# An operator's 50 exhibits, each a 4000×3000 JPEG (`kiosk bench --scene exhibits`): each part of
# a visit counted alone, by the function that does it (Headless/ExhibitsBench.swift). The
# pictures are decoded on the helper thread in the live kiosk, not in a frame.
EXHIBIT_PARTS = [
    ("board, first frame", "*ExhibitsBench*firstBoardFrame*", 1),
    # libjpeg-turbo's scaled decoding alone (the turning and fitting that follow are not in it).
    ("a picture's decoding", "kiosk_jpeg_decode", None),
    ("first page opened", "*ExhibitsBench*openPage*", 1),
    ("another page opened", "*ExhibitsBench*openAnotherPage*", 1),
    ("scrolling, a frame", "*ExhibitsBench*scrollFrames*", "frames"),
]


def exhibits(binary, frames):
    print()
    print(f"an operator's 50 exhibits of 4000×3000 JPEGs, each part of a visit counted alone ({KIOSK})")
    print(f"{'part':<22} {'panel':>9} {'instructions':>13} {'allocations':>12} {'of a Pi 4 frame at 1 IPC':>26}")
    for size in SIZES:
        for what, pattern, per in EXHIBIT_PARTS:
            with tempfile.TemporaryDirectory() as d:
                out = Path(d) / "callgrind.out"
                cmd = ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", "--collect-atstart=no",
                       f"--toggle-collect={pattern}", str(binary), "bench", "--scene", "exhibits", "--size", size,
                       "--frames", str(frames)]
                r = subprocess.run(cmd, capture_output=True, text=True)
                if r.returncode != 0:
                    raise SystemExit(f"frame_cost: {' '.join(cmd)} failed:\n{r.stderr[-2000:]}")
                instructions, allocations = parse(out.read_text(errors="replace"))
                # Each picture the visit decoded: the board's first page's, and two pages'.
                tiles = re.search(r"board's (\d+) pictures", r.stdout)
                n = frames if per == "frames" else per or (int(tiles.group(1)) + 2 if tiles else 1)
                unit = what
                i = instructions / n
                print(f"{unit:<22} {size:>9} {i:>13,.0f} {allocations / n:>12.1f} {i / PI4_CYCLES_PER_FRAME:>25.1%}")


if __name__ == "__main__":
    main()
