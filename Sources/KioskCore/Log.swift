import Logging
#if canImport(Glibc)
import Glibc
#endif

/// One line per message on stderr: `kiosk: warning: …`. Operators read these in the journal,
/// where timestamps are added already. When stderr is the journal's stream (systemd says so
/// in `JOURNAL_STREAM`), each line starts with its syslog priority, `<4>` for a warning, which
/// journald strips and records: `journalctl -p warning -u kiosk` then finds them.
package struct StderrLogHandler: LogHandler {
    package var metadata: Logger.Metadata = [:]
    package var logLevel: Logger.Level
    let prefixesPriority: Bool
    init(level: Logger.Level, prefixesPriority: Bool = StderrLogHandler.stderrIsJournal()) {
        logLevel = level
        self.prefixesPriority = prefixesPriority
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
    static func priority(_ level: Logger.Level) -> Int {
        switch level {
        case .trace, .debug: return 7
        case .info: return 6
        case .notice: return 5
        case .warning: return 4
        case .error: return 3
        case .critical: return 2
        }
    }
    package subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }
    package func log(event: LogEvent) {
        let level = event.level
        let prefix = prefixesPriority ? "<\(StderrLogHandler.priority(level))>" : ""
        let text = "\(prefix)kiosk: \(level == .notice ? "" : "\(level): ")\(event.message)\n"
        var bytes = Array(text.utf8)
        _ = bytes.withUnsafeMutableBytes { write(2, $0.baseAddress, $0.count) }
    }
}

package typealias KioskLog = Logger

/// A logger for this process at `verbose` (debug) or normal (notice) level.
package func makeLogger(verbose: Bool) -> Logger {
    var logger = Logger(label: "kiosk") { _ in StderrLogHandler(level: verbose ? .debug : .notice) }
    logger.logLevel = verbose ? .debug : .notice
    return logger
}
