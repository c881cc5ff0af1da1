import CSession
import KioskCore
#if canImport(Glibc)
import Glibc
#endif

/// `kiosk audit`: for a person standing at the panel what `systemd-analyze security` is for a
/// unit — each way past the kiosk, OK or RISK with the fix, read from the running system.
/// The rules are pure (`AuditRules`); `Audit` gathers what they read.
struct AuditLine: Equatable {
    var ok: Bool
    var item: String
    var finding: String
    var fix: String?

    static func ok(_ item: String, _ finding: String) -> AuditLine { AuditLine(ok: true, item: item, finding: finding) }
    static func risk(_ item: String, _ finding: String, fix: String) -> AuditLine { AuditLine(ok: false, item: item, finding: finding, fix: fix) }

    var text: String { ok ? "OK    \(item): \(finding)" : "RISK  \(item): \(finding); fix: \(fix ?? "")" }
}

enum AuditRules {
    /// The SysRq functions a keyboard must not have: the secure attention key (it kills the
    /// console's programs), sync, remount read-only, signals, reboot and power-off.
    static let riskySysRq = 4 | 16 | 32 | 64 | 128

    static func sysrq(_ value: Int?, lockedByKiosk: Bool) -> AuditLine {
        guard let value else { return .ok("SysRq", "the kernel has no SysRq") }
        if value == 0 { return .ok("SysRq", lockedByKiosk ? "off while the kiosk runs (kernel.sysrq = 0)" : "off (kernel.sysrq = 0)") }
        if value != 1 && value & riskySysRq == 0 { return .ok("SysRq", "kernel.sysrq = \(value) allows no reboot, power-off, sync, remount or kill") }
        return .risk("SysRq", "kernel.sysrq = \(value): Alt+SysRq+B on a keyboard at the panel reboots it, +O powers it off, +U remounts its disks read-only",
                     fix: "enable the kiosk (systemctl enable --now kiosk: it turns SysRq off while it runs), or echo kernel.sysrq=0 > /etc/sysctl.d/90-kiosk.conf")
    }

    static let systemKeys = [("HandlePowerKey", "handle-power-key", "power"), ("HandleSuspendKey", "handle-suspend-key", "suspend"),
                             ("HandleHibernateKey", "handle-hibernate-key", "hibernate"), ("HandleRebootKey", "handle-reboot-key", "reboot")]

    /// `actions`: logind's Handle…Key settings by name (a key this logind does not know is
    /// absent); `blocked`: what its block inhibitors hold.
    static func systemKeys(actions: [String: String]?, blocked: Set<String>) -> AuditLine {
        guard let actions else {
            return .risk("system keys", "logind does not answer: what the power key does is not known", fix: "systemctl start systemd-logind")
        }
        let open = systemKeys.compactMap { setting, inhibit, key -> String? in
            guard let action = actions[setting], action != "ignore", !blocked.contains(inhibit) else { return nil }
            return "the \(key) key does \(action)"
        }
        guard open.isEmpty else {
            return .risk("system keys", open.joined(separator: ", "),
                         fix: "enable the kiosk (it holds logind's inhibitor of these keys while it runs), or HandlePowerKey=ignore HandleSuspendKey=ignore HandleHibernateKey=ignore HandleRebootKey=ignore in /etc/systemd/logind.conf.d/kiosk.conf")
        }
        let held = systemKeys.contains { blocked.contains($0.1) }
        return .ok("system keys", held ? "the power, suspend, hibernate and reboot keys do nothing (logind's inhibitor, held by the kiosk)" : "logind ignores the power, suspend, hibernate and reboot keys")
    }

    static func ctrlAltDel(onKeymap: Bool?, targetMasked: Bool, burstAction: String?) -> AuditLine {
        if onKeymap == false { return .ok("Ctrl+Alt+Del", "not on the console's keymap: it does nothing, also while no compositor runs") }
        if targetMasked && burstAction == "none" { return .ok("Ctrl+Alt+Del", "ctrl-alt-del.target masked, CtrlAltDelBurstAction=none") }
        let what = onKeymap == nil ? "the console's keymap cannot be read (no /dev/tty0)" : "Ctrl+Alt+Del reboots the panel whenever no compositor holds the keyboard (a crash, a restart)"
        return .risk("Ctrl+Alt+Del", what, fix: "enable the kiosk (it takes Ctrl+Alt+Del off the console's keymap while it runs), or systemctl mask ctrl-alt-del.target and CtrlAltDelBurstAction=none in /etc/systemd/system.conf.d/kiosk.conf")
    }

    /// `loginConsoles`: the consoles (tty2…) with a running getty; `autoVTs`: logind's NAutoVTs.
    static func consoles(switchingLocked: Bool, autoVTs: Int?, loginConsoles: [String], westonSwitches: Bool) -> AuditLine {
        if westonSwitches && !switchingLocked {
            return .risk("consoles", "weston switches consoles on Ctrl+Alt+F1…F8 (/etc/kiosk/weston.ini has no vt-switching=false)",
                         fix: "vt-switching=false under [keyboard] in /etc/kiosk/weston.ini (as the package ships it)")
        }
        if switchingLocked { return .ok("consoles", "switching to another console is locked while the kiosk runs: no login prompt is reachable") }
        var prompts: [String] = []
        if !loginConsoles.isEmpty { prompts.append("a login prompt runs on \(loginConsoles.joined(separator: ", "))") }
        if let n = autoVTs, n > 0 { prompts.append("logind starts one on each of \(n) consoles switched to") }
        guard prompts.isEmpty else {
            return .risk("consoles", "\(prompts.joined(separator: "; ")) (Alt+F2 while no compositor runs)",
                         fix: "enable the kiosk (it locks console switching while it runs), or NAutoVTs=0 in /etc/systemd/logind.conf.d/kiosk.conf and systemctl mask getty@tty2.service…")
        }
        return .ok("consoles", "no login prompt on another console")
    }

    enum RootPassword: Equatable { case none, locked, set }

    /// `gettys`: each running serial getty's unit and whether it logs root in by itself.
    static func serialConsole(gettys: [(unit: String, autologinRoot: Bool)], root: RootPassword) -> AuditLine {
        guard !gettys.isEmpty else { return .ok("serial console", "no login prompt on a serial line") }
        let units = gettys.map(\.unit).joined(separator: ", ")
        let fix = "systemctl mask --now \(gettys.map(\.unit).joined(separator: " ")) (a kernel console= line starts one by itself)"
        if let auto = gettys.first(where: \.autologinRoot) {
            return .risk("serial console", "\(auto.unit) logs root in without a password", fix: fix)
        }
        switch root {
        case .locked: return .ok("serial console", "\(units) asks for a password and root's is locked")
        case .none: return .risk("serial console", "\(units): root has no password", fix: "passwd -l root, or " + fix)
        case .set: return .risk("serial console", "\(units): root logs in there with its password", fix: "passwd -l root (sudo for operators), or " + fix)
        }
    }

    /// `config`: `sshd -T`'s settings (lower-case names), nil when sshd is not running.
    static func ssh(installed: Bool, config: [String: String]?) -> AuditLine {
        guard installed, let config else { return .ok("SSH", installed ? "sshd is installed but not running" : "no SSH server") }
        let open = ["passwordauthentication", "kbdinteractiveauthentication"].filter { config[$0] == "yes" }
        guard open.isEmpty else {
            return .risk("SSH", "sshd takes passwords (\(open.joined(separator: ", ")) yes): a cable plugged into the panel's network port is a login prompt",
                         fix: "PasswordAuthentication no and KbdInteractiveAuthentication no in /etc/ssh/sshd_config.d/kiosk.conf (keys only), then systemctl reload ssh")
        }
        return .ok("SSH", "sshd takes keys only")
    }

    static func usbStorage(automounters: [String], storageBlocked: Bool) -> AuditLine {
        if storageBlocked { return .ok("USB storage", "usb-storage is blacklisted: a USB stick is not even read") }
        guard automounters.isEmpty else {
            return .risk("USB storage", "\(automounters.joined(separator: ", ")) can mount a USB stick plugged into the panel",
                         fix: "apt purge \(automounters.joined(separator: " ")), or echo blacklist usb-storage > /etc/modprobe.d/kiosk.conf")
        }
        return .ok("USB storage", "no automounter (udisks2, usbmount, autofs): a USB stick stays unmounted")
    }

    /// `devices`: the watchdogs' identities; `runtimeSeconds`: systemd's RuntimeWatchdogSec.
    static func watchdog(devices: [String], runtimeSeconds: Double?) -> AuditLine {
        guard let first = devices.first else {
            return .risk("watchdog", "no hardware watchdog: a hung kernel keeps the panel dark until someone comes",
                         fix: "a board with one (a Raspberry Pi has bcm2835-wdt), or modprobe softdog via /etc/modules-load.d/kiosk.conf, then RuntimeWatchdogSec=30")
        }
        guard let s = runtimeSeconds, s > 0 else {
            return .risk("watchdog", "\(first) is not used: a hung kernel keeps the panel dark until someone comes",
                         fix: "RuntimeWatchdogSec=30 in /etc/systemd/system.conf.d/kiosk.conf, then systemctl daemon-reexec")
        }
        return .ok("watchdog", "\(first) resets the machine when systemd has not pinged it for \(Int(s)) s")
    }

    /// Above this `systemd-analyze security` calls a unit MEDIUM: more than the kiosk's own
    /// units ship with, so a drop-in widened it.
    static let exposureLimit = 5.0

    static func exposure(unit: String, score: Double?) -> AuditLine {
        guard let score else { return .risk(unit, "systemd-analyze security gave no score", fix: "systemctl daemon-reload, then kiosk audit again") }
        guard score <= exposureLimit else {
            return .risk(unit, "exposure \(score) (systemd-analyze security): a drop-in widened what it may do",
                         fix: "systemctl revert \(unit), or narrow the drop-in systemctl cat \(unit) shows")
        }
        return .ok(unit, "exposure \(score) (systemd-analyze security)")
    }
}

/// What the rules read, from the running system (as root).
struct Audit {
    static let units = ["kiosk.service", "kiosk-weston.service", "kiosk-keys.service", "kiosk-screen@off.service"]
    var keys = SystemKeys.Paths()

    func run() -> Int32 {
        let lines = check()
        for line in lines { print(line.text) }
        let risks = lines.filter { !$0.ok }.count
        print(risks == 0 ? "nothing at risk" : "\(risks) at risk")
        return risks == 0 ? 0 : 1
    }

    func check() -> [AuditLine] {
        let lock = readKernelFile(keys.saved).flatMap(SavedConsole.init(text:))
        var lines = [
            AuditRules.sysrq(readKernelFile(keys.sysrq).flatMap { Int(trimmed($0)) }, lockedByKiosk: lock != nil),
            AuditRules.systemKeys(actions: logindKeyActions(), blocked: Set(logind("BlockInhibited")?.split(separator: ":").map(String.init) ?? [])),
            AuditRules.ctrlAltDel(onKeymap: bootOnKeymap(), targetMasked: unitProperty("ctrl-alt-del.target", "LoadState") == "masked",
                                  burstAction: systemd("CtrlAltDelBurstAction")),
            AuditRules.consoles(switchingLocked: lock?.switchingLocked == true,
                                autoVTs: logind("NAutoVTs").flatMap { Int($0) },
                                loginConsoles: activeUnits(["getty@*", "autovt@*"]).filter { $0 != "getty@tty1.service" && $0 != "autovt@tty1.service" }
                                    .map { String($0.split(separator: "@").last!.split(separator: ".").first!) },
                                westonSwitches: westonSwitchesConsoles()),
            AuditRules.serialConsole(gettys: activeUnits(["serial-getty@*"]).map { ($0, unitProperty($0, "ExecStart")?.contains("--autologin root") == true) },
                                     root: rootPassword()),
            AuditRules.ssh(installed: access("/usr/sbin/sshd", X_OK) == 0, config: sshdConfig()),
            AuditRules.usbStorage(automounters: automounters(), storageBlocked: usbStorageBlocked()),
            AuditRules.watchdog(devices: directoryEntries("/sys/class/watchdog").map { name in
                                    let identity = readKernelFile("/sys/class/watchdog/\(name)/identity").map(trimmed) ?? ""
                                    return identity.isEmpty ? "/dev/\(name)" : "/dev/\(name) (\(identity))"
                                },
                                runtimeSeconds: systemd("RuntimeWatchdogUSec").flatMap { Double($0) }.map { $0 / 1_000_000 }),
        ]
        let scores = exposures()
        lines += Self.units.map { AuditRules.exposure(unit: $0, score: scores[$0]) }
        return lines
    }

    // MARK: What is read

    /// A D-Bus property through busctl: its value without the type letter and quotes.
    private func property(_ service: String, _ path: String, _ interface: String, _ name: String) -> String? {
        guard let (status, text) = programOutput("/usr/bin/busctl", ["get-property", service, path, interface, name]), status == 0 else { return nil }
        var words = trimmed(text).split(separator: " ", maxSplits: 1).map(String.init)
        guard words.count == 2 else { return nil }
        if words[1].hasPrefix("\""), words[1].hasSuffix("\""), words[1].count >= 2 { words[1] = String(words[1].dropFirst().dropLast()) }
        return words[1]
    }

    private func logind(_ name: String) -> String? {
        property("org.freedesktop.login1", "/org/freedesktop/login1", "org.freedesktop.login1.Manager", name)
    }

    private func systemd(_ name: String) -> String? {
        property("org.freedesktop.systemd1", "/org/freedesktop/systemd1", "org.freedesktop.systemd1.Manager", name)
    }

    private func logindKeyActions() -> [String: String]? {
        var actions: [String: String] = [:]
        for (setting, _, _) in AuditRules.systemKeys {
            actions[setting] = logind(setting)
        }
        return actions.isEmpty ? nil : actions
    }

    private func unitProperty(_ unit: String, _ name: String) -> String? {
        guard let (status, text) = programOutput("/usr/bin/systemctl", ["show", "-p", name, "--value", unit]), status == 0 else { return nil }
        return trimmed(text)
    }

    private func activeUnits(_ patterns: [String]) -> [String] {
        guard let (_, text) = programOutput("/usr/bin/systemctl", ["list-units", "--type=service", "--state=active", "--plain", "--no-legend"] + patterns) else { return [] }
        return text.split(separator: "\n").compactMap { $0.split(separator: " ").first.map(String.init) }.filter { $0.hasSuffix(".service") }
    }

    private func bootOnKeymap() -> Bool? {
        let fd = open(keys.console, O_RDONLY | O_NOCTTY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        return ConsoleKeymap.systemEntries(fd).contains { $0.value == ConsoleKeymap.boot }
    }

    private func westonSwitchesConsoles() -> Bool {
        guard let text = readKernelFile("/etc/kiosk/weston.ini") else { return false }
        var section = ""
        for raw in text.split(separator: "\n") {
            let line = trimmed(String(raw))
            if line.hasPrefix("[") { section = line }
            if section == "[keyboard]", line.filter({ $0 != " " }) == "vt-switching=false" { return false }
        }
        return true
    }

    private func rootPassword() -> AuditRules.RootPassword {
        guard let shadow = readKernelFile("/etc/shadow"),
              let root = shadow.split(separator: "\n").first(where: { $0.hasPrefix("root:") }) else { return .locked }
        let field = root.split(separator: ":", omittingEmptySubsequences: false).dropFirst().first ?? ""
        if field.isEmpty { return .none }
        return field.hasPrefix("!") || field.hasPrefix("*") ? .locked : .set
    }

    private func sshdConfig() -> [String: String]? {
        guard !activeUnits(["ssh.service", "sshd.service"]).isEmpty || unitProperty("ssh.socket", "ActiveState") == "active",
              let (status, text) = programOutput("/usr/sbin/sshd", ["-T"]), status == 0 else { return nil }
        var config: [String: String] = [:]
        for line in text.split(separator: "\n") {
            let words = line.split(separator: " ", maxSplits: 1).map(String.init)
            if words.count == 2 { config[words[0]] = words[1] }
        }
        return config
    }

    private static let automounterFiles: [(name: String, files: [String])] = [
        ("udisks2", ["/usr/libexec/udisks2/udisksd", "/usr/lib/udisks2/udisksd"]),
        ("usbmount", ["/usr/share/usbmount/usbmount"]),
        ("autofs", ["/usr/sbin/automount"]),
    ]

    private func automounters() -> [String] {
        Self.automounterFiles.filter { $0.files.contains(where: { access($0, F_OK) == 0 }) }.map(\.name)
    }

    private func usbStorageBlocked() -> Bool {
        directoryEntries("/etc/modprobe.d").filter { $0.hasSuffix(".conf") }.contains { name in
            (readKernelFile("/etc/modprobe.d/\(name)") ?? "").split(separator: "\n").contains { line in
                let words = line.split(separator: " ").map { String($0.map { $0 == "-" ? "_" : $0 }) }
                return words.count >= 2 && words[1] == "usb_storage" && (words[0] == "blacklist" || words[0] == "install")
            }
        }
    }

    private func exposures() -> [String: Double] {
        guard let (_, text) = programOutput("/usr/bin/systemd-analyze", ["security", "--no-pager"] + Self.units) else { return [:] }
        var scores: [String: Double] = [:]
        for line in text.split(separator: "\n") {
            let marker = "Overall exposure level for "
            guard let start = line.indices.first(where: { line[$0...].hasPrefix(marker) }) else { continue }
            let rest = line[line.index(start, offsetBy: marker.count)...].split(separator: " ")
            guard rest.count >= 2, rest[0].hasSuffix(":"), let score = Double(rest[1]) else { continue }
            scores[String(rest[0].dropLast())] = score
        }
        return scores
    }
}

/// `s` without the spaces, tabs and line ends around it.
func trimmed(_ s: String) -> String {
    let blank: (Character) -> Bool = { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" }
    return String(s.drop(while: blank).reversed().drop(while: blank).reversed())
}
