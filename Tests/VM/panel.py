"""What the booted-machine checks share: the package under test, measurements kept for the
closing note, and a booted machine seen as its operator and its visitors see it."""
import os
import re
import subprocess
import sys
import time
from pathlib import Path

from PIL import Image, ImageChops

sys.path.insert(0, str(Path(__file__).resolve().parent))
import image  # noqa: E402
import vm  # noqa: E402
from vm import VM, wait_for  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
KIOSK = Path(os.environ.get("KIOSK_BIN", ROOT / ".build" / "release" / "kiosk")).resolve()
VERSION = subprocess.run([str(KIOSK), "--version"], capture_output=True, text=True).stdout.strip()
NATIVE = subprocess.run(["dpkg", "--print-architecture"], capture_output=True, text=True).stdout.strip()
# The package's architecture (KIOSK_VM_ARCH=arm64: the arm64 package on an emulated arm64 board).
ARCH = os.environ.get("KIOSK_VM_ARCH", NATIVE)
DEB = ROOT / "out" / f"kiosk_{VERSION}_{ARCH}.deb"
SUITE = os.environ.get("KIOSK_VM_SUITE", "bookworm")
RESULTS = image.CACHE / f"results-{SUITE}{'' if ARCH == NATIVE else '-' + ARCH}.txt"
if ARCH != NATIVE:
    # Every wait is stretched again on an emulated core (its slowness is not what is tested).
    vm.SLACK *= 4
ACCENT = (0x4F, 0xC3, 0xF7)
FINGER0, FINGER1 = (0x4F, 0xC3, 0xF7), (0xFF, 0xB7, 0x4D)



RECORDED = []


def record(what, value):
    """A measurement for the closing note and the README: kept in .build/vm/results-SUITE.txt
    and printed at the end of the run."""
    RECORDED.append(f"{what}: {value}")
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    with open(RESULTS, "a") as f:
        f.write(f"{time.strftime('%Y-%m-%d %H:%M:%S')} {SUITE} {ARCH} {what}: {value}\n")


def booted(vm_image, tmp_path_factory, name, size, **kw):
    """A class fixture's machine: booted with a display of `size`, seen as a Panel, shut down
    after the class."""
    v = VM(vm_image, tmp_path_factory.mktemp(name), arch=ARCH, size=size, **kw)
    start = time.monotonic()
    v.start()
    record(f"{name}: boot to the agent ({v.accel.split(',')[0]})", f"{time.monotonic() - start:.1f} s")
    def said(logs, what):
        for log in logs:
            record(f"{name}: the guest's kernel panicked at {what}", next((l for l in log.splitlines() if "RIP: 0010" in l), "?"))
    said(v.panics, "boot and was started again")
    at_start = len(v.panics)
    try:
        yield Panel(v, size)
    finally:
        said(v.panics[at_start:], "a reboot or reset and was reset again")
        v.close()


class Panel:
    """A booted machine seen as its operator and its visitors see it."""

    def __init__(self, vm, size):
        self.vm, self.size = vm, size
        self.shots = 0

    # -- the operator ----------------------------------------------------------------------

    def install(self, deb):
        """The README's two lines, typed by an operator with sudo in a folder holding out/."""
        self.vm.run("mkdir -p /home/admin/out")
        self.vm.put(f"/home/admin/out/{deb.name}", deb.read_bytes())
        self.vm.run("chown -R admin: /home/admin/out")
        r = self.admin(f"sudo apt install ./out/{deb.name}", input="Y\n", timeout=600)
        assert r["rc"] == 0, r["out"] + r["err"]
        return r

    def admin(self, cmd, input="", timeout=120):
        return self.vm.run(f"cd /home/admin && su admin -c {shell_quote(cmd)}", check=False, input=input, timeout=timeout)

    def unit(self, prop, unit="kiosk"):
        return self.vm.out(f"systemctl show {unit} -p {prop} --value")

    def active(self, unit="kiosk"):
        return self.unit("ActiveState", unit) == "active"

    def kiosk_pid(self):
        out = self.vm.out("pgrep -x kiosk -u kiosk || true")
        return int(out.split()[0]) if out else None

    def wait_kiosk(self, timeout=120, unit="kiosk", other_than=None):
        """Waits for the unit to be active (READY: Kiosk's first frame shown) with a Kiosk other
        than `other_than`; returns the seconds taken."""
        def up():
            pid = self.kiosk_pid()
            return pid and pid != other_than and self.active(unit) and pid
        _, secs = wait_for(f"{unit} active with a new kiosk", up, timeout=timeout)
        return secs

    def ready_after_boot(self, unit="kiosk"):
        """Seconds from the kernel's start to the unit becoming active (READY=1)."""
        return int(self.unit("ActiveEnterTimestampMonotonic", unit)) / 1e6

    def journal(self, *args):
        return self.vm.out(f"journalctl -b -u kiosk -o cat --no-pager {' '.join(args)}", check=False)

    def edid_mm(self):
        """The panel's size in millimetres as its EDID tells the kernel (centimetres × 10): the
        one connector of whichever card has the display."""
        raw = bytes.fromhex(self.vm.out("od -An -tx1 -v $(ls /sys/class/drm/card*-*/edid | head -1) | tr -d ' \\n'"))
        return raw[21] * 10, raw[22] * 10

    def kiosk_wayland(self, cmd):
        """A Wayland client run as the kiosk's user against its compositor (wlr-randr, say)."""
        r = self.vm.run(f"runuser -u kiosk -- env XDG_RUNTIME_DIR=/run/kiosk WAYLAND_DISPLAY=wayland-0 {cmd}", check=False)
        if r["rc"] != 0:
            # What the runtime folder and the unit said: which compositor's socket was there.
            seen = self.vm.out("ls -la /run/kiosk; systemctl status kiosk --no-pager -n 0; journalctl -b -u kiosk -o short-monotonic --no-pager -n 40", check=False)
            raise AssertionError(f"`{cmd}` as the kiosk's user exited {r['rc']}: {r['out']}{r['err']}\n{seen}")
        return r["out"]

    def drop_in(self, name, text):
        """What `systemctl edit kiosk` writes, then a restart."""
        self.vm.run(f"mkdir -p /etc/systemd/system/kiosk.service.d && cat > /etc/systemd/system/kiosk.service.d/{name}.conf "
                    f"<<'EOF'\n{text}\nEOF\nsystemctl daemon-reload")

    def remove_drop_ins(self):
        self.vm.run("rm -rf /etc/systemd/system/kiosk.service.d && systemctl daemon-reload")

    def set_up_already(self, timeout=120):
        """The setup's choices kept, as its "Start the kiosk" keeps them (none but that it was
        done): the visitors' scenes from the next start on."""
        self.vm.run("systemctl stop kiosk && printf '{\"done\": true}' > /var/lib/kiosk/setup.json && systemctl start kiosk",
                    timeout=timeout)
        self.wait_kiosk(timeout=timeout)

    def restart(self):
        """`systemctl restart kiosk` until the new Kiosk is on screen; the seconds it took."""
        old = self.kiosk_pid()
        start = time.monotonic()
        self.vm.run("systemctl restart kiosk", timeout=180)
        self.wait_kiosk(other_than=old)
        return time.monotonic() - start

    # -- the visitor -----------------------------------------------------------------------

    def screen(self, name):
        self.shots += 1
        return self.vm.screendump(self.vm.dir / f"{self.shots:02d}-{name}.png")

    def tap(self, x, y):
        """A tap at panel pixel (x, y) of the unrotated mode."""
        w, h = self.size
        self.vm.touch(["down", 0, x / w, y / h], ["sync"], ["sleep", 0.08], ["up", 0], ["sync"])

    def snapshot(self, scene, size=None, mm=None, scene_bar=True, extra=(), name=None):
        size = size or self.size
        path = self.vm.dir / f"snapshot-{name or scene}-{size[0]}x{size[1]}.png"
        args = [str(KIOSK), "snapshot", "--scene", scene, "--size", f"{size[0]}x{size[1]}", "--out", str(path), *extra]
        if mm:
            args += ["--panel-mm", f"{mm[0]}x{mm[1]}"]
        if scene_bar and scene != "setup":  # the setup screen has the whole screen
            args.append("--scene-bar")
        r = subprocess.run(args, check=True, capture_output=True, text=True)
        self.views = {m.group(1): tuple(float(v) for v in m.groups()[1:])
                      for m in re.finditer(r"view: (.+) at ([-\d.]+),([-\d.]+) size ([\d.]+)x([\d.]+)", r.stdout)}
        return Image.open(path).convert("RGB")


def shell_quote(s):
    return "'" + s.replace("'", "'\"'\"'") + "'"


def differing(a, b, threshold=24):
    """Share of pixels whose channels differ by more than `threshold`."""
    assert a.size == b.size, f"{a.size} vs {b.size}"
    d = ImageChops.difference(a, b).convert("L").point(lambda v: 255 if v > threshold else 0)
    return d.histogram()[255] / (a.width * a.height), d.getbbox()


def accent_box(img, bar_height=50):
    """The highlighted pill of the scene bar (its accent colour) in the top `bar_height` rows
    (the pills end above 50 pt on these panels; the lander's help button starts below)."""
    top = img.crop((0, 0, img.width, bar_height))
    mask = Image.new("L", top.size)
    mask.putdata([255 if all(abs(c - t) < 40 for c, t in zip(p, ACCENT)) else 0 for p in top.getdata()])
    return mask.getbbox()


def box_centre(box):
    return ((box[0] + box[2]) / 2, (box[1] + box[3]) / 2)


def count_near(img, centre, colour, radius=40, tol=40):
    x, y = centre
    crop = img.crop((int(x - radius), int(y - radius), int(x + radius), int(y + radius)))
    return sum(1 for p in crop.getdata() if all(abs(c - t) < tol for c, t in zip(p, colour)))


# -- what the scenes draw where, seen from outside ---------------------------------------------

def thrust_button(size, mm):
    """The centre of the lander's engine button (ControlPad.layout, right corner, 24 pt margins)."""
    ppm = max(size) / max(mm)
    side, gap, grip = max(64, 16 * ppm), max(8, 2.5 * ppm), max(34, 9 * ppm)
    width, height = 3 * side + 2 * gap, grip + gap + side
    x0, y0 = size[0] - 24 - width, size[1] - 24 - height
    return x0 + side + gap + side / 2, y0 + grip + gap + side / 2


def ship_bottom(img):
    """The lowest row of the white rocket in the middle of the sky, or None. The readout's light
    text lies above the ship (on a 480-pixel panel, within a few rows of it): a ship that climbs
    past it leaves the readout's bottom row, higher still."""
    x0, x1, y0, y1 = int(img.width * 0.35), int(img.width * 0.65), int(img.height * 0.05), int(img.height * 0.6)
    px = img.load()
    for y in range(y1, y0, -2):
        for x in range(x0, x1, 3):
            r, g, b = px[x, y]
            if r > 200 and g > 200 and b > 200:
                return y
    return None


def assert_the_lander_fires_while_held(panel, what):
    """A double tap in the sky starts a new flight, high up (a flight may be over); then the ship
    climbs while a finger holds the engine button."""
    tap = [["down", 0, 0.5, 0.3], ["sync"], ["sleep", 0.05], ["up", 0], ["sync"]]
    panel.vm.touch(*tap, ["sleep", 0.1], *tap)
    time.sleep(0.5 * vm.SLACK / 3)
    before = ship_bottom(panel.screen(f"{what}-before"))
    assert before is not None
    x, y = thrust_button(panel.size, panel.mm)
    w, h = panel.size
    panel.vm.touch(["down", 0, x / w, y / h], ["sync"])
    try:
        wait_for("the ship climbing while the engine button is held",
                 lambda: (ship_bottom(panel.screen(f"{what}-thrust")) or before) < before - 10, timeout=10)
    finally:
        panel.vm.touch(["up", 0], ["sync"])


def shows_scene(panel, img, scene, size=None, mm=None):
    """Whether the scene bar highlights `scene`'s pill (where the snapshot has it)."""
    want = accent_box(panel.snapshot(scene, size=size, mm=mm))
    got = accent_box(img)
    return got is not None and want is not None and abs(box_centre(got)[0] - box_centre(want)[0]) < 8


def wait_for_scene(panel, scene, name, timeout=30):
    """Waits for `scene`'s pill to be lit on screen. READY follows the compositor's frame callback,
    which may come before the emulated display scans the frame out; failing, says what the unit
    says it shows."""
    try:
        wait_for(f"{scene} on screen", lambda: shows_scene(panel, panel.screen(name), scene, mm=panel.mm), timeout=timeout)
    except TimeoutError as e:
        raise AssertionError(f"{e}; the unit says {panel.unit('StatusText')!r}; "
                             f"the screen is {panel.vm.dir}/{panel.shots:02d}-{name}.png") from None


def assert_snapshot(panel, img, scene, what, size=None, mm=None, rotate=0):
    want = panel.snapshot(scene, size=size, mm=mm)
    if rotate:
        want = want.rotate(rotate, expand=True)
    share, box = differing(img, want)
    assert share < 0.002, f"{what}: {share:.2%} of the screen differs from `kiosk snapshot` within {box}"


def show_the_lander(panel):
    panel.tap(*box_centre(accent_box(panel.snapshot("lander", mm=panel.mm))))
    wait_for("the lander", lambda: shows_scene(panel, panel.screen("lander"), "lander", mm=panel.mm), timeout=10)


def show_the_tiles(panel):
    panel.tap(*box_centre(accent_box(panel.snapshot("tiles", mm=panel.mm))))
    wait_for("the tiles", lambda: shows_scene(panel, panel.screen("tiles"), "tiles", mm=panel.mm), timeout=10)


def tap_the_lander_pill_turned(panel, quarter_turns, what):
    """The tiles (shown before the turn) turned onto the landscape panel by `quarter_turns`
    (counter-clockwise, as PIL turns) exactly as `kiosk snapshot` draws them in portrait; then a
    tap where that picture has the Lander pill must show the lander."""
    w, h = panel.size
    portrait = (h, w)
    turned = panel.snapshot("tiles", size=portrait, mm=panel.mm).rotate(90 * quarter_turns, expand=True)
    wait_for("the tiles turned", lambda: differing(panel.screen("turning"), turned)[0] < 0.002, timeout=30)
    x, y = box_centre(accent_box(panel.snapshot("lander", size=portrait, mm=panel.mm)))
    # Portrait point (x, y) on the panel: a quarter turn counter-clockwise puts it at (y, h' − x),
    # clockwise at (w' − y, x), where (w', h') is the portrait size.
    panel.tap(*((y, portrait[0] - x) if quarter_turns == 1 else (portrait[1] - y, x)))
    wait_for(f"the lander, {what}", lambda: panel.unit("StatusText") == "showing lander", timeout=15)
