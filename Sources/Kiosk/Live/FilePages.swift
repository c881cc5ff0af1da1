#if canImport(Glibc)
import Glibc
#endif
import KioskCore

/// Hands back to the kernel the pages this process maps from files and has never written: the
/// code and read-only data of the kiosk's binary and of its libraries, fontconfig's caches, the
/// font files.
///
/// Why: start-up runs a lot of code once (argument parsing, the settings, fontconfig, each
/// scene's layout), and the kernel maps 64 KiB of code around every page first touched, so
/// ~3.5 MiB of code stays mapped while the screensaver, which runs for hours, maps back ~2.2.
/// Dropping the mappings costs nothing to correctness: the pages are clean copies of their
/// files, still in the page cache, and whatever runs next maps them back with a minor fault
/// (a few hundred, once). What is no longer mapped is no longer this process's memory (PSS),
/// and it is the first the kernel reclaims when the panel runs short. `Packaging/link-order.txt`
/// lays the screensaver's code out first, so that what comes back is few pages.
///
/// Only mappings that cannot have been written are dropped: not writable, and without a single
/// private page (smaps' `Anonymous: 0`); relocated read-only data (RELRO) and code a debugger
/// has patched keep their pages.
enum FilePages {
    struct Mapping: Equatable {
        let start: UInt, end: UInt
        /// Resident KiB when read.
        let residentKiB: Int
    }

    /// The mappings of `smaps` text that can be dropped.
    static func droppable(smaps: String) -> [Mapping] {
        var parser = Parser()
        for line in smaps.split(separator: "\n") { parser.feed(line) }
        return parser.found
    }

    /// Reads smaps a line at a time: the whole text is ~100 KB, which would stay in the heap.
    struct Parser {
        private(set) var found: [Mapping] = []
        private var current: (start: UInt, end: UInt)?
        private var rss = 0

        mutating func feed(_ line: Substring) {
            let fields = line.split(separator: " ", maxSplits: 5, omittingEmptySubsequences: true)
            guard let first = fields.first else { return }
            if !first.hasSuffix(":") {
                // A mapping: "start-end perms offset dev inode [path]".
                current = nil; rss = 0
                // The path follows the inode after a run of spaces (which the split keeps).
                guard fields.count == 6, fields[1].count == 4, fields[5].drop(while: { $0 == " " }).hasPrefix("/") else { return }
                let perms = Array(fields[1])
                guard perms[0] == "r", perms[1] == "-" else { return }
                let bounds = first.split(separator: "-")
                guard bounds.count == 2, let a = UInt(bounds[0], radix: 16), let b = UInt(bounds[1], radix: 16), b > a else { return }
                current = (a, b)
            } else if let c = current, fields.count >= 2 {
                if first == "Rss:" { rss = Int(fields[1]) ?? 0 }
                // Anonymous comes after Rss: the verdict is made here.
                else if first == "Anonymous:" {
                    if Int(fields[1]) == 0, rss > 0 { found.append(Mapping(start: c.start, end: c.end, residentKiB: rss)) }
                    current = nil
                }
            }
        }
    }

    /// The mappings of this process that can be dropped (none if smaps cannot be read).
    static func droppable() -> [Mapping] {
        guard let f = fopen("/proc/self/smaps", "r") else { return [] }
        defer { fclose(f) }
        var parser = Parser()
        var line = [CChar](repeating: 0, count: 1024)
        while fgets(&line, Int32(line.count), f) != nil {
            // A line longer than the buffer (a very long path) arrives in pieces: the pieces after
            // the first start neither with an address nor with a field name that matters.
            let text = String(decoding: line.prefix { $0 != 0 && $0 != 10 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            parser.feed(text[...])
        }
        return parser.found
    }

    /// Drops `mappings`' pages from this process; returns the KiB that were resident.
    @discardableResult
    static func drop(_ mappings: [Mapping]) -> Int {
        var kib = 0
        for m in mappings where madvise(UnsafeMutableRawPointer(bitPattern: m.start), Int(m.end - m.start), MADV_DONTNEED) == 0 {
            kib += m.residentKiB
        }
        return kib
    }
}

/// When unmodified file pages are next handed back (`FilePages`): after start-up, and whenever
/// the kiosk settles into the screensaver or a dark screen for what may be hours, the code it
/// ran to get there is handed back: 3 s later while frames are drawn (the screensaver's first
/// labels load fonts), at once when nothing moves. Never on a wakeup of its own: an idle kiosk
/// stays asleep.
final class FilePageTrim {
    private let log: Logger
    /// Monotonic ns.
    private var due: UInt64?

    init(log: Logger) { self.log = log }

    func request() { due = MonotonicClock.nanoseconds() + 3_000_000_000 }

    func follow(_ shell: Shell) {
        shell.showingChanged.add { [weak self, unowned shell] old in
            if shell.showing.showsScreensaverOrItsBlack && !old.showsScreensaverOrItsBlack { self?.request() }
        }
        shell.darkChanged.add { [weak self] dark in if dark { self?.request() } }
    }

    /// At the end of an event-loop pass (`animating`: frames are being drawn).
    func trimIfDue(animating: Bool) {
        guard let due, MonotonicClock.nanoseconds() >= due || !animating else { return }
        self.due = nil
        let mappings = FilePages.droppable()
        // Logged first: formatting the line runs code that is then dropped with the rest.
        log.debug("returning \(mappings.reduce(0) { $0 + $1.residentKiB }) KiB of unmodified file pages (monotonic \(MonotonicClock.nanoseconds()) ns)")
        FilePages.drop(mappings)
    }
}
