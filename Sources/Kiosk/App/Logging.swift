import Logging
#if canImport(Glibc)
import Glibc
#endif

/// One line per message on stderr: `kiosk: warning: …`. Operators read these in the journal,
/// where timestamps are added already.
struct StderrLogHandler: LogHandler {
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level
    init(level: Logger.Level) { logLevel = level }
    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }
    func log(level: Logger.Level, message: Logger.Message, metadata: Logger.Metadata?,
             source: String, file: String, function: String, line: UInt) {
        let text = "kiosk: \(level == .notice ? "" : "\(level): ")\(message)\n"
        var bytes = Array(text.utf8)
        _ = bytes.withUnsafeMutableBytes { write(2, $0.baseAddress, $0.count) }
    }
}

typealias KioskLog = Logger

/// A logger for this process at `verbose` (debug) or normal (notice) level.
func makeLogger(verbose: Bool) -> Logger {
    var logger = Logger(label: "kiosk") { _ in StderrLogHandler(level: verbose ? .debug : .notice) }
    logger.logLevel = verbose ? .debug : .notice
    return logger
}
