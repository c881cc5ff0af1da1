import CVersion
#if canImport(Glibc)
import Glibc
#endif

/// One line per message on stderr: `kiosk: warning: …`. Operators read these in the journal,
/// where timestamps are added already. When stderr is the journal's stream (systemd says so
/// in `JOURNAL_STREAM`), each line starts with its syslog priority, `<4>` for a warning, which
/// journald strips and records: `journalctl -p warning -u kiosk` then finds them.
///
/// The kiosk's own, not swift-log's: the arm64 package is built by Debian's Swift 6.0, which
/// cannot build swift-log 1.16 (docs/cross-building.md).
package struct Logger: Sendable {
    /// swift-log's and syslog's levels, least severe first.
    package enum Level: Int, Comparable, Sendable, CustomStringConvertible {
        case trace, debug, info, notice, warning, error, critical

        package static func < (a: Level, b: Level) -> Bool { a.rawValue < b.rawValue }

        package var description: String {
            switch self {
            case .trace: return "trace"
            case .debug: return "debug"
            case .info: return "info"
            case .notice: return "notice"
            case .warning: return "warning"
            case .error: return "error"
            case .critical: return "critical"
            }
        }
    }

    /// Messages below this level are not even formatted.
    package var logLevel: Level
    let prefixesPriority: Bool

    package init(level: Level, prefixesPriority: Bool = Logger.stderrIsJournal()) {
        logLevel = level
        self.prefixesPriority = prefixesPriority
    }

    package func trace(_ message: @autoclosure () -> String) { log(.trace, message) }
    package func debug(_ message: @autoclosure () -> String) { log(.debug, message) }
    package func info(_ message: @autoclosure () -> String) { log(.info, message) }
    package func notice(_ message: @autoclosure () -> String) { log(.notice, message) }
    package func warning(_ message: @autoclosure () -> String) { log(.warning, message) }
    package func error(_ message: @autoclosure () -> String) { log(.error, message) }
    package func critical(_ message: @autoclosure () -> String) { log(.critical, message) }

    package func log(_ level: Level, _ message: () -> String) {
        guard level >= logLevel else { return }
        var bytes = Array(Logger.line(level, message(), prefixesPriority: prefixesPriority).utf8)
        _ = bytes.withUnsafeMutableBytes { write(2, $0.baseAddress, $0.count) }
    }

    /// The line as written: notices (the kiosk's ordinary news) carry no level word.
    static func line(_ level: Level, _ message: String, prefixesPriority: Bool) -> String {
        let prefix = prefixesPriority ? "<\(priority(level))>" : ""
        return "\(prefix)kiosk: \(level == .notice ? "" : "\(level): ")\(message)\n"
    }

    /// Whether `JOURNAL_STREAM` ("device:inode") names the file stderr is.
    static func stderrIsJournal(_ value: String? = getenv("JOURNAL_STREAM").map { String(cString: $0) }) -> Bool {
        guard let value else { return false }
        let parts = value.split(separator: ":")
        guard parts.count == 2, let dev = UInt64(parts[0]), let ino = UInt64(parts[1]) else { return false }
        var st = stat()
        return fstat(2, &st) == 0 && UInt64(st.st_dev) == dev && UInt64(st.st_ino) == ino
    }

    /// syslog priorities (sd-daemon.h's SD_ERR and friends).
    static func priority(_ level: Level) -> Int {
        switch level {
        case .trace, .debug: return 7
        case .info: return 6
        case .notice: return 5
        case .warning: return 4
        case .error: return 3
        case .critical: return 2
        }
    }
}

package typealias KioskLog = Logger

/// A logger for this process at `verbose` (debug) or normal (notice) level.
package func makeLogger(verbose: Bool) -> Logger {
    Logger(level: verbose ? .debug : .notice)
}

/// The version this binary was built (or stamped) as: written once, in CVersion's version.c.
package let kioskVersion = String(cString: kiosk_version())
