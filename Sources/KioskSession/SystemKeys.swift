import CSession
import KioskCore
#if canImport(Glibc)
import Glibc
#endif

/// What a keyboard plugged into a public panel could do to the system, taken away while the
/// kiosk runs (kiosk-keys.service: `--lock-keys`) and given back exactly as it was when it stops
/// (`--unlock-keys`, from what the lock saved). Nothing is written to the machine's own
/// configuration: the kernel's and logind's running state only.
struct SystemKeys {
    struct Paths {
        var sysrq = "/proc/sys/kernel/sysrq"
        var printk = "/proc/sys/kernel/printk"
        var cursor = "/sys/module/vt/parameters/global_cursor_default"
        var console = "/dev/tty0"
        /// The kiosk units' terminal (their `TTYPath=`).
        var kioskTerminal = "/dev/tty1"
        var saved = "/run/kiosk-keys/saved"
    }

    var paths = Paths()

    /// The locks, each said as what it takes away; a lock that cannot be taken is a warning.
    func lock(log: Logger) -> [String] {
        // An earlier lock's record holds the machine's own values: it is kept, never overwritten
        // by the locked ones.
        let earlier = readKernelFile(paths.saved).flatMap(SavedConsole.init(text:))
        var saved = earlier ?? SavedConsole()
        var locked: [String] = []
        let console = open(paths.console, O_RDWR | O_NOCTTY | O_CLOEXEC)
        defer { if console >= 0 { close(console) } }
        if console < 0 { log.warning("keys: cannot open \(paths.console) (\(String(cString: strerror(errno)))): the console's keys and switching stay as they are") }
        if earlier == nil {
            saved.sysrq = firstWord(paths.sysrq)
            saved.printk = firstWord(paths.printk)
            saved.cursor = firstWord(paths.cursor)
            if console >= 0 { saved.keymap = ConsoleKeymap.systemEntries(console) }
        }
        saved.switchingLocked = console >= 0
        guard write(saved.text, atomicallyTo: paths.saved, log: log) else { return [] }

        if let was = saved.sysrq, set(paths.sysrq, "0", log: log) { locked.append("SysRq (kernel.sysrq was \(was))") }
        if console >= 0 {
            let failed = saved.keymap.filter { kiosk_console_keymap_set(console, $0.table, $0.index, ConsoleKeymap.hole) != 0 }.count
            if failed > 0 { log.warning("keys: \(failed) of the console keymap's \(saved.keymap.count) system keys could not be taken off") }
            locked.append("Ctrl+Alt+Del and the console's own keys (\(saved.keymap.count - failed) keymap entries: console switching, scrollback, register dumps)")
            if case let r = kiosk_console_lock_switching(console, 1), r != 0 {
                log.warning("keys: console switching stays possible: VT_LOCKSWITCH: \(String(cString: strerror(-r)))")
                // The audit reads the record: it must not call the consoles locked.
                saved.switchingLocked = false
                _ = write(saved.text, atomicallyTo: paths.saved, log: log)
            } else {
                locked.append("switching to another console")
            }
        }
        if saved.printk != nil, set(paths.printk, "1", log: log) { locked.append("kernel messages on the console") }
        // The parameter is for consoles reset from now on; the one on screen hides its cursor
        // only when told (DECTCEM), else it blinks there between a crash and the restart.
        if saved.cursor != nil, set(paths.cursor, "0", log: log) { locked.append("the console's cursor") }
        if console >= 0 { showCursor(false, on: console, log: log) }
        if holdTheKiosksTerminalQuiet(log: log) { locked.append("echo and signals of keys typed at \(paths.kioskTerminal)") }
        return locked
    }

    /// Gives back what the lock took, as the saved record says; the phrases of what came back.
    func unlock(log: Logger) -> [String] {
        guard let text = readKernelFile(paths.saved) else { return [] }
        guard let saved = SavedConsole(text: text) else {
            log.warning("keys: \(paths.saved) is not a record of the lock; nothing given back")
            return []
        }
        var back: [String] = []
        if let v = saved.sysrq, set(paths.sysrq, v, log: log) { back.append("SysRq (kernel.sysrq = \(v))") }
        if let v = saved.printk, set(paths.printk, v, log: log) { back.append("kernel messages (console loglevel \(v))") }
        if let v = saved.cursor, set(paths.cursor, v, log: log) { back.append("the console's cursor") }
        if !saved.keymap.isEmpty || saved.switchingLocked || saved.cursor != nil {
            let console = open(paths.console, O_RDWR | O_NOCTTY | O_CLOEXEC)
            if console >= 0 {
                let failed = saved.keymap.filter { kiosk_console_keymap_set(console, $0.table, $0.index, $0.value) != 0 }.count
                if failed > 0 { log.warning("keys: \(failed) console keymap entries could not be given back") }
                if !saved.keymap.isEmpty { back.append("the console's keymap (\(saved.keymap.count - failed) entries)") }
                if saved.switchingLocked, kiosk_console_lock_switching(console, 0) == 0 { back.append("console switching") }
                if saved.cursor != nil { showCursor(true, on: console, log: log) }
                close(console)
            } else {
                log.warning("keys: cannot open \(paths.console) (\(String(cString: strerror(errno)))): the console's keys stay locked until the next boot")
            }
        }
        unlink(paths.saved)
        return back
    }

    /// Keys typed at tty1 while no compositor holds the keyboard (a restart, a crash) would show
    /// on the panel ("^\" for Print Screen) and, were tty1 a session's terminal, signal it. A
    /// virtual terminal forgets its modes each time everyone has closed it: held open here,
    /// without close-on-exec, it keeps them quiet for as long as the lock runs (the inhibitor
    /// this process becomes keeps the descriptor); the kiosk units neither reset nor hang it up.
    private func holdTheKiosksTerminalQuiet(log: Logger) -> Bool {
        let fd = open(paths.kioskTerminal, O_RDWR | O_NOCTTY | O_NONBLOCK)
        guard fd >= 0 else {
            log.warning("keys: cannot open \(paths.kioskTerminal) (\(String(cString: strerror(errno)))): keys typed there while the kiosk restarts may show on the console")
            return false
        }
        var modes = termios()
        guard tcgetattr(fd, &modes) == 0 else { close(fd); return false } // not a terminal (the tests' stand-in)
        modes.c_lflag &= ~tcflag_t(ECHO | ECHONL | ISIG)
        guard tcsetattr(fd, TCSANOW, &modes) == 0 else {
            log.warning("keys: cannot quiet \(paths.kioskTerminal): \(String(cString: strerror(errno)))")
            close(fd)
            return false
        }
        return true // left open on purpose: the inhibitor this process becomes keeps it
    }

    private func showCursor(_ shown: Bool, on console: Int32, log: Logger) {
        let sequence = shown ? "\u{1b}[?25h" : "\u{1b}[?25l"
        if sequence.withCString({ Glibc.write(console, $0, strlen($0)) }) != sequence.utf8.count {
            log.warning("keys: cannot \(shown ? "show" : "hide") the console's cursor: \(String(cString: strerror(errno)))")
        }
    }

    private func firstWord(_ path: String) -> String? {
        readKernelFile(path)?.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\n" }).first.map(String.init)
    }

    private func set(_ path: String, _ value: String, log: Logger) -> Bool {
        let fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC) // O_TRUNC as the shell's `>`: a /proc or /sys file ignores it
        guard fd >= 0 else {
            log.warning("keys: cannot write \(path): \(String(cString: strerror(errno)))")
            return false
        }
        defer { close(fd) }
        let line = value + "\n"
        guard line.withCString({ Glibc.write(fd, $0, strlen($0)) }) == line.utf8.count else {
            log.warning("keys: cannot write \(value) to \(path): \(String(cString: strerror(errno)))")
            return false
        }
        return true
    }

    private func write(_ text: String, atomicallyTo path: String, log: Logger) -> Bool {
        let temporary = path + ".new"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        var done = fd >= 0 && text.withCString({ Glibc.write(fd, $0, strlen($0)) }) == text.utf8.count && fsync(fd) == 0
        if fd >= 0 { close(fd) }
        done = done && rename(temporary, path) == 0
        if !done { log.error("keys: cannot save what the lock changes in \(path) (\(String(cString: strerror(errno)))): nothing locked, so nothing is lost") }
        return done
    }
}

/// The console keymap's entries that reach past the kiosk: Ctrl+Alt+Del (Boot), the console
/// switches (Alt+F1…, Alt+←/→, Last_Console, Spawn_Console), the secure attention key, the
/// scrollback and the register, memory and state dumps. Only a text console reads them: between
/// a compositor's end and the kiosk's restart, and before the first start.
enum ConsoleKeymap {
    struct Entry: Equatable {
        var table: UInt8
        var index: UInt8
        var value: UInt16
    }

    static let hole: UInt16 = 0x0200
    static let boot: UInt16 = 0x020C
    static let noSuchMap: UInt16 = 0x027F
    private static let consoleType: UInt16 = 5
    private static let specialType: UInt16 = 2
    /// KT_SPEC values: show registers, memory, state; last console; scroll forward, back; boot;
    /// SAK; previous, next, spawn console (linux/keyboard.h).
    private static let systemSpecials: Set<UInt16> = [2, 3, 4, 6, 10, 11, 12, 15, 16, 17, 18]

    static func reachesTheSystem(_ value: UInt16) -> Bool {
        let type = value >> 8, v = value & 0xff
        return type == consoleType || (type == specialType && systemSpecials.contains(v))
    }

    /// Every entry of the console's keymap that reaches the system (an unallocated modifier
    /// table answers "no such map" at its first key, and is skipped).
    static func systemEntries(_ fd: Int32) -> [Entry] {
        var found: [Entry] = []
        for table in 0...255 {
            for index in 0...255 {
                var value: UInt16 = 0
                guard kiosk_console_keymap_get(fd, UInt8(table), UInt8(index), &value) == 0 else { break }
                if index == 0 && value == noSuchMap { break }
                if reachesTheSystem(value) { found.append(Entry(table: UInt8(table), index: UInt8(index), value: value)) }
            }
        }
        return found
    }
}

/// What the lock changed, as the machine had it, in /run (gone at the next boot, when the kernel
/// starts from its own defaults again). One line a value: `sysrq 438`, `key 12 111 524`.
struct SavedConsole: Equatable {
    var sysrq: String?
    var printk: String?
    var cursor: String?
    var switchingLocked = false
    var keymap: [ConsoleKeymap.Entry] = []

    init() {}

    init?(text: String) {
        for line in text.split(separator: "\n") {
            let words = line.split(separator: " ").map(String.init)
            switch (words.first, words.count) {
            case ("sysrq", 2): sysrq = words[1]
            case ("printk", 2): printk = words[1]
            case ("cursor", 2): cursor = words[1]
            case ("switching", 2) where words[1] == "locked": switchingLocked = true
            case ("key", 4):
                guard let t = UInt8(words[1]), let i = UInt8(words[2]), let v = UInt16(words[3]) else { return nil }
                keymap.append(.init(table: t, index: i, value: v))
            default: return nil
            }
        }
    }

    var text: String {
        var lines: [String] = []
        if let sysrq { lines.append("sysrq \(sysrq)") }
        if let printk { lines.append("printk \(printk)") }
        if let cursor { lines.append("cursor \(cursor)") }
        if switchingLocked { lines.append("switching locked") }
        lines += keymap.map { "key \($0.table) \($0.index) \($0.value)" }
        return lines.map { $0 + "\n" }.joined()
    }
}

/// `[admin] maintenance_keys` in the kiosk's settings file: whether a keyboard at the panel may
/// reach the system (for maintenance). Unreadable or wrong, the keys stay locked.
enum MaintenanceKeys {
    static func allowed(settings path: String) -> (allowed: Bool, problem: String?) {
        let bytes: [UInt8]
        switch readRegularFile(path, limit: TOML.Limits().maxBytes) {
        case .success(let b): bytes = b
        case .failure(.cannotOpen(ENOENT)): return (false, nil)
        case .failure(let e): return (false, "\(path): \(e); the keys are locked")
        }
        do throws(TOML.ParseError) {
            guard let node = try TOML.parse(bytes)["admin"]?.table?["maintenance_keys"] else { return (false, nil) }
            guard let allowed = node.bool else {
                return (false, "\(path):\(node.position): maintenance_keys must be true or false; the keys are locked")
            }
            return (allowed, nil)
        } catch {
            return (false, "\(path):\(error); the keys are locked")
        }
    }
}
