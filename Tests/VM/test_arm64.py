"""Booted on arm64: the arm64 package, installed with the README's two lines on Debian 13 for
arm64, booted by qemu-system-aarch64 in software emulation on a Raspberry Pi 4's core
(Cortex-A72) with virtio-gpu and a uinput multi-touch touchscreen, and — as on a Pi, whose v3d
only renders while vc4 drives the display — a render-only DRM device (vgem) as card0.

The two Raspberry Pi panels: the 7" display (800×480), and Touch Display 2 (720×1280, portrait,
touch reported in that portrait frame) turned to landscape as the README tells an operator. The
Touch Display 2's board boots the 7" board's card, shut down and moved, as an operator moves an
SD card: the package is installed once.
Emulation is slow: the times recorded are what an emulated board took, not what a Pi takes.
Run with KIOSK_VM_ARCH=arm64 KIOSK_VM_SUITE=trixie (make vm does)."""
import json
import time

import pytest

from panel import (FINGER0, FINGER1, assert_snapshot, assert_the_lander_fires_while_held, booted, count_near, record,
                   show_the_tiles, shows_scene, tap_the_lander_pill_turned, wait_for,
                   wait_for_scene)

# `kiosk session` picks the card with the display, not the render-only card0, and says so.
CHOICE = "session: running cage: cage 0.2.0 drives card1 (virtio_gpu); card0 (vgem) has no display"


def bring_up(panel, deb, name):
    """The README's two lines; the unit active (READY: the first frame is on screen)."""
    start = time.monotonic()
    panel.install(deb)
    record(f"{name}: sudo apt install ./out/kiosk_…_arm64.deb", f"{time.monotonic() - start:.1f} s")
    start = time.monotonic()
    r = panel.admin("sudo systemctl enable --now kiosk", timeout=600)
    assert r["rc"] == 0, r["out"] + r["err"]
    assert panel.active(), panel.journal()
    record(f"{name}: systemctl enable --now kiosk returned, the kiosk on screen (READY)", f"{time.monotonic() - start:.1f} s")
    assert panel.unit("StatusText") == "setting up the panel"
    assert CHOICE in panel.journal(), panel.journal()
    assert panel.journal("-p", "warning") == "", "nothing needs attention on a good start"
    panel.mm = panel.edid_mm()


# The 7" board's disk once it is shut down, for Touch Display 2's board.
CARD = {}


@pytest.fixture(scope="class")
def seven_inch(vm_image, tmp_path_factory):
    machine = booted(vm_image, tmp_path_factory, "pi-7in", (800, 480), display="virtio", pointer=False)
    panel = next(machine)
    yield panel
    if panel.active():
        show_the_tiles(panel)
        time.sleep(8)  # saved: the card's next panel starts on the tiles
        panel.vm.power_off()
        CARD["disk"] = panel.vm.overlay
    machine.close()


@pytest.fixture(scope="class")
def touch_display_2(vm_image, tmp_path_factory):
    if "disk" not in CARD:
        pytest.fail("the 7\" board's card is missing (its tests failed before the kiosk ran)")
    # A Pi 4 has no real-time clock: booted offline, its clock is the one it last saved.
    yield from booted(vm_image, tmp_path_factory, "pi-td2", (720, 1280), display="virtio", pointer=False, card=CARD["disk"],
                      rtc=False)


class TestSevenInchDisplay:
    """The official 7" display, 800×480, on an emulated Pi 4 core."""

    def test_the_readme_lines_bring_up_the_setup_exactly(self, seven_inch, deb):
        bring_up(seven_inch, deb, "pi-7in")
        assert_snapshot(seven_inch, seven_inch.screen("first"), "setup", "the first screen", mm=seven_inch.mm)

    def test_two_held_fingers_show_two_markers_while_held(self, seven_inch):
        w, h = seven_inch.size
        seven_inch.vm.touch(["down", 0, 0.3, 0.5], ["down", 1, 0.6, 0.6], ["sync"])
        try:
            wait_for("two markers under held fingers",
                     lambda: (lambda i: count_near(i, (0.3 * w, 0.5 * h), FINGER0) > 100
                              and count_near(i, (0.6 * w, 0.6 * h), FINGER1) > 100)(seven_inch.screen("held")), timeout=10)
        finally:
            seven_inch.vm.touch(["up", 0], ["up", 1], ["sync"])

    def test_the_lander_thrusts_while_its_button_is_held(self, seven_inch):
        seven_inch.set_up_already(timeout=300)
        wait_for("the lander", lambda: shows_scene(seven_inch, seven_inch.screen("lander"), "lander", mm=seven_inch.mm), timeout=15)
        assert_the_lander_fires_while_held(seven_inch, "lander")

    def test_a_power_cut_mid_flight_comes_back_with_the_flight(self, seven_inch):
        time.sleep(8)  # the kiosk saves a few seconds after input
        start = time.monotonic()
        seven_inch.vm.power_cut()
        seven_inch.wait_kiosk(timeout=600)
        record("pi-7in: power cut → kiosk on screen (READY)", f"{time.monotonic() - start:.1f} s, "
               f"{seven_inch.ready_after_boot():.1f} s of it after the kernel started")
        saved = json.loads(seven_inch.vm.out("cat /var/lib/kiosk/lander.json"))
        assert saved["flight"]["fuel"] < 100, saved
        wait_for_scene(seven_inch, "lander", "after-power-cut")
        assert CHOICE in seven_inch.journal()
        # The emulated board loads its display's driver well after the kiosk starts, as a slow
        # board may: the session waits for it, so the boot logs no error and no restart.
        assert seven_inch.journal("-p", "warning") == "", seven_inch.journal()
        assert seven_inch.unit("NRestarts") == "0", seven_inch.journal()
        waited = [l for l in seven_inch.journal().splitlines() if "the display device is there" in l]
        record("pi-7in: after the power cut, the session waited for the display's driver", waited[0] if waited else "no (it was there)")
        # And for the touchscreen, which udev may still be busy with: cage exits without one.
        touch = [l for l in seven_inch.journal().splitlines() if "an input device is there" in l]
        record("pi-7in: after the power cut, the session waited for an input device", touch[0] if touch else "no (it was there)")

    def test_kill_9_brings_the_kiosk_back(self, seven_inch):
        pid = seven_inch.kiosk_pid()
        start = time.monotonic()
        seven_inch.vm.run(f"kill -9 {pid}")
        seven_inch.wait_kiosk(other_than=pid, timeout=30)
        record("pi-7in: kill -9 of Kiosk → back on screen (READY)", f"{time.monotonic() - start:.1f} s")

    def test_a_hung_kiosk_is_restarted_by_the_watchdog(self, seven_inch):
        pid = seven_inch.kiosk_pid()
        start = time.monotonic()
        seven_inch.vm.run(f"kill -STOP {pid}")
        seven_inch.wait_kiosk(other_than=pid, timeout=90)
        record("pi-7in: SIGSTOP of Kiosk → restarted by the watchdog, back on screen (WatchdogSec=20)",
               f"{time.monotonic() - start:.1f} s")
        assert "Watchdog timeout" in seven_inch.journal()


class TestTouchDisplay2:
    """Touch Display 2: a 720×1280 portrait panel whose touch controller reports in that
    portrait frame, turned to landscape by `rotate = 90` in /etc/kiosk/kiosk.toml."""

    def test_the_moved_card_boots_into_the_kiosk_in_portrait(self, touch_display_2):
        """The 7" board's card, its kiosk last on the tiles: on this panel the tiles laid out in
        portrait, as `kiosk snapshot` draws them at 720×1280 — no setting changed."""
        panel = touch_display_2
        panel.wait_kiosk(timeout=600)
        record("pi-td2: boot → kiosk on screen (READY)", f"{panel.ready_after_boot():.1f} s after the kernel started")
        waited = [l for l in panel.journal().splitlines() if "the display device is there" in l]
        record("pi-td2: at boot the session waited for the display's driver", f"{waited[0] if waited else 'no (it was there)'}; "
               f"restarts: {panel.unit('NRestarts')}")
        assert CHOICE in panel.journal(), panel.journal()
        panel.mm = panel.edid_mm()
        wait_for("the portrait tiles", lambda: shows_scene(panel, panel.screen("portrait"), "tiles", mm=panel.mm), timeout=30)
        assert_snapshot(panel, panel.screen("portrait-tiles"), "tiles", "the portrait tiles", mm=panel.mm)

    def test_rotate_90_turns_the_picture_and_touch_to_landscape(self, touch_display_2):
        """The README's way on any compositor: `rotate = 90` saved in kiosk.toml applies at once.
        The tiles, shown upright first, come back turned exactly as `kiosk snapshot` draws them
        in landscape, and a tap where that picture has the Lander pill shows the lander."""
        show_the_tiles(touch_display_2)
        touch_display_2.vm.run("sed -i 's/^# rotate = 0 /rotate = 90 /' /etc/kiosk/kiosk.toml")
        tap_the_lander_pill_turned(touch_display_2, quarter_turns=-1, what="Touch Display 2 turned by rotate = 90")


    def test_phantom_taps_every_12_864_s_neither_keep_the_screensaver_away_nor_the_panel_lit(self, touch_display_2):
        """Touch Display 2's own fault (raspberrypi/linux#7638), sent by the uinput touchscreen as
        its controller sends it: a down and an up with nothing between, every 12.864 s. The
        screensaver still comes at idle_timeout, blank_delay later the connector goes off, and a
        person's tap turns it on. The board has no RTC and no network: the kiosk says its clock
        is not synchronised and keeps the panel open through hours that would close it."""
        panel = touch_display_2
        connector = panel.vm.out("ls -d /sys/class/drm/card*-*/ | head -1").strip()
        state = lambda: panel.vm.out(f"cat {connector}enabled").strip()
        assert state() == "enabled"
        reloads, ended = panel.journal().count("settings reloaded"), panel.journal().count("screensaver ended")
        panel.vm.run("sed -i -e 's/^idle_timeout = [0-9]* /idle_timeout = 30 /' -e 's/^blank_delay = 0 /blank_delay = 20 /' "
                     "-e 's/^# hours = .*/hours = \"Mon-Sun 00:00-00:01\"/' /etc/kiosk/kiosk.toml")
        wait_for("the settings reloaded", lambda: panel.journal().count("settings reloaded") > reloads, timeout=30)
        assert "opening hours: not applied while the system clock is not synchronised" in panel.journal(), panel.journal()
        start = time.monotonic()
        beats = 0
        while state() != "disabled":
            assert time.monotonic() - start < 240, f"the connector still on after {beats} phantom taps:\n{panel.journal()}"
            panel.vm.touch(["down", 0, 0.6, 0.015], ["sync"], ["up", 0], ["sync"])
            beats += 1
            while time.monotonic() < start + beats * 12.864 and state() != "disabled":
                time.sleep(1)
        record("pi-td2: phantom taps every 12.864 s → the connector off (idle_timeout 30 + blank_delay 20)",
               f"{time.monotonic() - start:.1f} s, {beats} phantom taps")
        journal = panel.journal()
        assert "screensaver started" in journal and journal.count("screensaver ended") == ended, journal
        assert "the screen goes off" in journal and "turning the screen off" in journal
        assert "(no duration): ignored" in journal, journal
        assert "opening hours: closed" not in journal
        panel.tap(panel.size[0] // 2, panel.size[1] // 2)
        wait_for("the connector on for a person's tap", lambda: state() == "enabled", timeout=30)
