"""End-to-end: saved state survives `kill -9` at any moment, inside a save included."""
import json
import random
import signal
import time
from pathlib import Path

from harness import Kiosk, Strict, wait_until


def state_files(d: Path):
    return sorted(p.name for p in d.iterdir()) if d.exists() else []


def test_a_hundred_kill_9s_leave_valid_state_and_no_temporaries(tmp_path):
    """Taps with saves every 50 ms, then SIGKILL at a random moment; each time every state file
    is absent or whole, and the next start restores the last completed save (which it writes
    back unchanged on SIGTERM) and clears the temporaries a killed save left."""
    strict = Strict()
    rnd = random.Random(99)
    state = tmp_path / "state"
    folder = state / "kiosk"
    env = strict.env(XDG_STATE_HOME=str(state), KIOSK_SAVE_DELAY="0.05")
    killed_in_save = 0
    try:
        for i in range(100):
            k = Kiosk(strict, "--verbose", "--scene", "tiles", "--idle-timeout", "0", env=env, protocol=False)
            try:
                k.wait_for(r"first frame shown", timeout=10)
                deadline = time.monotonic() + rnd.uniform(0.05, 0.5)
                while time.monotonic() < deadline:
                    x, y = rnd.randint(30, 1890), rnd.randint(30, 200)
                    strict.send(f"down 0 {x} {y}", "frame", "up 0", "frame")
                    time.sleep(rnd.uniform(0, 0.03))
                if i % 2:
                    # Every other time, aim inside a save: kill the moment its temporary appears.
                    x, y = rnd.randint(30, 1890), rnd.randint(30, 200)
                    strict.send(f"down 0 {x} {y}", "frame", "up 0", "frame")
                    until = time.monotonic() + 0.5
                    while time.monotonic() < until and not any(n.startswith(".") for n in state_files(folder)):
                        pass
                k.proc.send_signal(signal.SIGKILL)
                k.proc.wait(timeout=5)
            finally:
                k.close()
            files = state_files(folder)
            if any(n.startswith(".") for n in files):
                killed_in_save += 1
            saved = {}
            for name in files:
                if name.endswith(".json"):
                    saved[name] = (folder / name).read_text()
                    json.loads(saved[name])  # whole, never half a file
            k2 = Kiosk(strict, "--verbose", "--scene", "tiles", "--idle-timeout", "0", env=env, protocol=False)
            try:
                k2.wait_for(r"first frame shown", timeout=10)
                assert not any(w in k2.stderr for w in ("damaged", "out of range", "corrupt")), k2.stderr[-1500:]
                assert not [n for n in state_files(folder) if n.startswith(".")], state_files(folder)
                k2.proc.send_signal(signal.SIGTERM)
                assert k2.wait_exit(timeout=5) == 0
                if "tiles.json" in saved:
                    assert (folder / "tiles.json").read_text() == saved["tiles.json"], f"iteration {i}: not the last save"
            finally:
                k2.close()
        strict.assert_clean()
        print(f"{killed_in_save} of 100 kills landed inside a save")
    finally:
        strict.close()
