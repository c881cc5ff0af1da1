import Foundation
import KioskCore
import Testing
@testable import Kiosk
@testable import KioskSession

/// The lock of a keyboard at the panel: which console keys reach the system, what is saved and
/// given back, the maintenance setting, and the audit's rules.
@Suite struct SystemKeysTests {
    @Test func theConsoleKeysThatReachTheSystemAreFound() {
        // Ctrl+Alt+Del (Boot), Alt+F2 (Console_2), Alt+← (Decr_Console), Shift+PgUp (Scroll_Backward), SAK.
        for value: UInt16 in [0x020C, 0x0501, 0x0510, 0x020B, 0x020F, 0x0212] {
            #expect(ConsoleKeymap.reachesTheSystem(value), "\(String(value, radix: 16))")
        }
        // A letter, Enter, F2 (a keypad's keys stay), Caps Lock, a hole.
        for value: UInt16 in [0x0061, 0x0201, 0x0101, 0x0207, 0x0200] {
            #expect(!ConsoleKeymap.reachesTheSystem(value), "\(String(value, radix: 16))")
        }
    }

    @Test func theSavedRecordReadsBackAndRefusesWhatItDidNotWrite() {
        var saved = SavedConsole()
        saved.sysrq = "438"
        saved.printk = "4"
        saved.cursor = "1"
        saved.switchingLocked = true
        saved.keymap = [.init(table: 12, index: 111, value: 0x020C), .init(table: 8, index: 60, value: 0x0501)]
        #expect(SavedConsole(text: saved.text) == saved)
        #expect(saved.text.hasPrefix("sysrq 438\nprintk 4\ncursor 1\nswitching locked\nkey 12 111 524\n"))
        #expect(SavedConsole(text: "sysrq 438\nkey 12 x 524\n") == nil)
        #expect(SavedConsole(text: "something else\n") == nil)
    }

    /// Files standing in for /proc and /sys in a fresh folder (`console`: the name of the
    /// console's stand-in there), holding Debian's defaults; the folder is removed by `done`.
    static func machine(console: String) throws -> (paths: SystemKeys.Paths, done: () -> Void) {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("keys-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        var paths = SystemKeys.Paths()
        paths.sysrq = dir + "/sysrq"
        paths.printk = dir + "/printk"
        paths.cursor = dir + "/cursor"
        paths.console = dir + "/" + console
        paths.kioskTerminal = dir + "/no-terminal"
        paths.saved = dir + "/saved"
        for (path, value) in [(paths.sysrq, "438"), (paths.printk, "4\t4\t1\t7"), (paths.cursor, "1")] {
            try (value + "\n").write(toFile: path, atomically: true, encoding: .utf8)
        }
        return (paths, { try? FileManager.default.removeItem(atPath: dir) })
    }

    /// The lock writes the files, the unlock gives back the machine's values, a second lock
    /// keeps the first one's record.
    @Test func lockAndUnlockGiveBackWhatTheMachineHad() throws {
        let (paths, done) = try Self.machine(console: "no-console")
        defer { done() }
        let keys = SystemKeys(paths: paths)
        let log = Logger(level: .critical) // the missing console's warning is not printed

        let locked = keys.lock(log: log)
        #expect(locked == ["SysRq (kernel.sysrq was 438)", "kernel messages on the console", "the console's cursor"])
        #expect(try String(contentsOfFile: paths.sysrq, encoding: .utf8) == "0\n")
        #expect(try String(contentsOfFile: paths.cursor, encoding: .utf8) == "0\n")
        _ = keys.lock(log: log) // a restart of the lock: the machine's values stay the saved ones
        #expect(try String(contentsOfFile: paths.saved, encoding: .utf8) == "sysrq 438\nprintk 4\ncursor 1\n")

        let back = keys.unlock(log: log)
        #expect(back == ["SysRq (kernel.sysrq = 438)", "kernel messages (console loglevel 4)", "the console's cursor"])
        #expect(try String(contentsOfFile: paths.sysrq, encoding: .utf8) == "438\n")
        #expect(try String(contentsOfFile: paths.printk, encoding: .utf8) == "4\n")
        #expect(!FileManager.default.fileExists(atPath: paths.saved))
        #expect(keys.unlock(log: log).isEmpty, "nothing saved: nothing to give back")
    }

    /// The console on screen keeps the cursor it was allocated with: the lock hides it there
    /// (DECTCEM), or it blinks between a crash and the restart, and the unlock shows it again.
    @Test func theConsoleOnScreenHidesItsCursorWhileLocked() throws {
        let (paths, done) = try Self.machine(console: "console") // a plain file: the keymap's ioctls fail, the writes land
        defer { done() }
        _ = FileManager.default.createFile(atPath: paths.console, contents: nil)
        let keys = SystemKeys(paths: paths)
        let log = Logger(level: .critical)

        _ = keys.lock(log: log)
        #expect(try String(contentsOfFile: paths.console, encoding: .utf8) == "\u{1b}[?25l")
        _ = keys.unlock(log: log)
        #expect(try String(contentsOfFile: paths.console, encoding: .utf8) == "\u{1b}[?25h") // written over: a file opened anew
    }

    @Test func theMaintenanceSettingIsReadAndAWrongOneLocks() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("keys-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let file = dir + "/kiosk.toml"
        #expect(MaintenanceKeys.allowed(settings: file) == (false, nil))
        try "[shell]\nscenes = [\"tiles\"]\n[admin]\nmaintenance_keys = true\n".write(toFile: file, atomically: true, encoding: .utf8)
        #expect(MaintenanceKeys.allowed(settings: file) == (true, nil))
        try "admin.maintenance_keys = \"yes\"\n".write(toFile: file, atomically: true, encoding: .utf8)
        #expect(MaintenanceKeys.allowed(settings: file) == (false, "\(file):1:26: maintenance_keys must be true or false; the keys are locked"))
        try "[admin\nmaintenance_keys = true\n".write(toFile: file, atomically: true, encoding: .utf8)
        let broken = MaintenanceKeys.allowed(settings: file)
        #expect(broken.allowed == false && broken.problem?.hasPrefix("\(file):1:") == true && broken.problem?.hasSuffix("; the keys are locked") == true)
    }

    @Test func theKiosksOwnSettingsKnowTheMaintenanceKeys() {
        let (s, problems) = Settings.parse("[admin]\nmaintenance_keys = true\n", file: "k.toml")
        #expect(problems.isEmpty && s.maintenanceKeys)
        #expect(!Settings.parse("", file: "k.toml").0.maintenanceKeys)
    }

    @Test func sessionOptionsForTheKeysAndTheAudit() throws {
        #expect(try SessionOptions.parse(["--lock-keys", "--settings=/tmp/k.toml"]).get().keys == .lock)
        #expect(try SessionOptions.parse(["--lock-keys", "--settings=/tmp/k.toml"]).get().settings == "/tmp/k.toml")
        #expect(try SessionOptions.parse(["--unlock-keys"]).get().keys == .unlock)
        #expect(try SessionOptions.parse(["--audit"]).get().audit)
    }
}

@Suite struct AuditRuleTests {
    @Test func sysrqIsARiskUnlessItCanNeitherRebootNorSyncNorKill() {
        #expect(!AuditRules.sysrq(438, lockedByKiosk: false).ok) // Debian's default: sync, remount, reboot
        #expect(!AuditRules.sysrq(1, lockedByKiosk: false).ok)
        #expect(AuditRules.sysrq(0, lockedByKiosk: true).text == "OK    SysRq: off while the kiosk runs (kernel.sysrq = 0)")
        #expect(AuditRules.sysrq(2 | 8, lockedByKiosk: false).ok) // console log level, debug dumps
        #expect(AuditRules.sysrq(438, lockedByKiosk: false).text.hasPrefix("RISK  SysRq: kernel.sysrq = 438: Alt+SysRq+B"))
    }

    @Test func systemKeysAreOKWhenIgnoredOrBlocked() {
        let defaults = ["HandlePowerKey": "poweroff", "HandleSuspendKey": "suspend", "HandleHibernateKey": "hibernate", "HandleRebootKey": "reboot"]
        let risk = AuditRules.systemKeys(actions: defaults, blocked: [])
        #expect(!risk.ok && risk.finding == "the power key does poweroff, the suspend key does suspend, the hibernate key does hibernate, the reboot key does reboot")
        let held = AuditRules.systemKeys(actions: defaults, blocked: ["handle-power-key", "handle-suspend-key", "handle-hibernate-key", "handle-reboot-key", "sleep"])
        #expect(held.ok && held.finding.contains("held by the kiosk"))
        // Debian 12's logind knows no reboot key on an older systemd: absent is not a risk.
        #expect(AuditRules.systemKeys(actions: ["HandlePowerKey": "ignore", "HandleSuspendKey": "ignore", "HandleHibernateKey": "ignore"], blocked: []).ok)
        #expect(!AuditRules.systemKeys(actions: nil, blocked: []).ok)
    }

    @Test func ctrlAltDelIsOKOffTheKeymapOrMaskedWithoutItsBurst() {
        #expect(AuditRules.ctrlAltDel(onKeymap: false, targetMasked: false, burstAction: "reboot-force").ok)
        // Masked but seven presses in two seconds still force a reboot.
        #expect(!AuditRules.ctrlAltDel(onKeymap: true, targetMasked: true, burstAction: "reboot-force").ok)
        #expect(AuditRules.ctrlAltDel(onKeymap: true, targetMasked: true, burstAction: "none").ok)
        #expect(!AuditRules.ctrlAltDel(onKeymap: nil, targetMasked: false, burstAction: nil).ok)
    }

    @Test func consolesAreOKLockedOrWithoutPrompts() {
        #expect(AuditRules.consoles(switchingLocked: true, autoVTs: 6, loginConsoles: ["tty2"], westonSwitches: false).ok)
        let open = AuditRules.consoles(switchingLocked: false, autoVTs: 6, loginConsoles: ["tty2"], westonSwitches: false)
        #expect(!open.ok && open.finding == "a login prompt runs on tty2; logind starts one on each of 6 consoles switched to (Alt+F2 while no compositor runs)")
        #expect(AuditRules.consoles(switchingLocked: false, autoVTs: 0, loginConsoles: [], westonSwitches: false).ok)
        #expect(!AuditRules.consoles(switchingLocked: false, autoVTs: 0, loginConsoles: [], westonSwitches: true).ok)
    }

    @Test func aSerialConsoleIsARiskWhereRootCanLogIn() {
        #expect(AuditRules.serialConsole(gettys: [], root: .set).ok)
        #expect(!AuditRules.serialConsole(gettys: [("serial-getty@ttyS0.service", true)], root: .locked).ok)
        #expect(AuditRules.serialConsole(gettys: [("serial-getty@ttyS0.service", false)], root: .locked).ok)
        #expect(!AuditRules.serialConsole(gettys: [("serial-getty@ttyS0.service", false)], root: .none).ok)
        #expect(AuditRules.serialConsole(gettys: [("serial-getty@ttyS0.service", true)], root: .locked).fix?.hasPrefix("systemctl mask --now serial-getty@ttyS0.service") == true)
    }

    @Test func sshUSBAndTheWatchdog() {
        #expect(AuditRules.ssh(installed: false, config: nil).ok)
        #expect(!AuditRules.ssh(installed: true, config: ["passwordauthentication": "yes", "kbdinteractiveauthentication": "no"]).ok)
        #expect(AuditRules.ssh(installed: true, config: ["passwordauthentication": "no", "kbdinteractiveauthentication": "no"]).ok)
        #expect(!AuditRules.usbStorage(automounters: ["udisks2"], storageBlocked: false).ok)
        #expect(AuditRules.usbStorage(automounters: ["udisks2"], storageBlocked: true).ok)
        #expect(!AuditRules.watchdog(devices: [], runtimeSeconds: 30).ok)
        #expect(!AuditRules.watchdog(devices: ["/dev/watchdog0 (i6300ESB timer)"], runtimeSeconds: 0).ok)
        #expect(AuditRules.watchdog(devices: ["/dev/watchdog0 (i6300ESB timer)"], runtimeSeconds: 30).text
            == "OK    watchdog: /dev/watchdog0 (i6300ESB timer) resets the machine when systemd has not pinged it for 30 s")
    }

    @Test func aWidenedUnitIsARisk() {
        #expect(AuditRules.exposure(unit: "kiosk.service", score: 2.6).ok)
        #expect(!AuditRules.exposure(unit: "kiosk.service", score: 7.9).ok)
        #expect(!AuditRules.exposure(unit: "kiosk.service", score: nil).ok)
    }
}

@Suite struct InputDeviceTests {
    /// Only what udev has finished with counts: libinput skips the rest, and cage would exit.
    @Test func onlyDevicesUdevHasFinishedWithCount() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("input-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let paths = InputDevices.Paths(classes: dir + "/class", udevData: dir + "/udev")
        for (name, number) in [("event0", "13:64"), ("event1", "13:65"), ("mouse0", "13:32")] {
            try FileManager.default.createDirectory(atPath: "\(paths.classes)/\(name)", withIntermediateDirectories: true)
            try "\(number)\n".write(toFile: "\(paths.classes)/\(name)/dev", atomically: true, encoding: .utf8)
        }
        try FileManager.default.createDirectory(atPath: paths.udevData, withIntermediateDirectories: true)
        #expect(InputDevices.initialised(paths).isEmpty, "nothing in udev's database yet")
        try "I:123\nE:ID_INPUT=1\nE:ID_INPUT_TOUCHSCREEN=1\n".write(toFile: paths.udevData + "/c13:65", atomically: true, encoding: .utf8)
        try "I:124\n".write(toFile: paths.udevData + "/c13:64", atomically: true, encoding: .utf8)
        #expect(InputDevices.initialised(paths) == ["event1"])
    }
}
