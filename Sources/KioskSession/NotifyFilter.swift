/// Which of Kiosk's notification fields the supervisor says to systemd as its own. systemd
/// believes the main process about itself (MAINPID=, WATCHDOG_USEC=, NOTIFYACCESS=,
/// EXTEND_TIMEOUT_USEC=, FDSTORE=…), so only what a running program reports about its state
/// passes; any other field is the kiosk user's to keep.
struct NotifyFilter {
    static let passed: Set = ["READY=1", "WATCHDOG=1", "WATCHDOG=trigger", "STOPPING=1", "RELOADING=1"]
    static let passedPrefixes = ["STATUS=", "ERRNO="]

    /// Field names already reported as refused (each is logged once).
    private(set) var refusedNames: Set<String> = []

    static func passes(_ line: Substring) -> Bool {
        passed.contains(String(line)) || passedPrefixes.contains { line.hasPrefix($0) }
    }

    /// The lines of `message` that pass, and the names of refused fields not seen before.
    mutating func filter(_ message: String) -> (passed: [Substring], newlyRefused: [String]) {
        var out: [Substring] = [], refused: [String] = []
        for line in message.split(separator: "\n") {
            if Self.passes(line) { out.append(line); continue }
            let name = String(String.UnicodeScalarView(line.prefix { $0 != "=" }.unicodeScalars
                .filter { $0.value > 0x20 && $0.value < 0x7f }.prefix(64)))
            if refusedNames.insert(name).inserted { refused.append(name) }
        }
        return (out, refused)
    }
}
