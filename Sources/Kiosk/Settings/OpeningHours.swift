#if canImport(Glibc)
import Glibc
#endif

/// `[shell] hours`: when the kiosk is open, in the machine's local time zone — for example
/// `"Mon-Fri 08:00-20:00, Sat 10:00-16:00"` or a list of such entries. Each entry is a day or a
/// range of days (`Mon`, `Mon-Fri`, `Fri-Mon` wraps round the week, `daily`; a bare time range
/// means every day) and one time range; a range that closes at or before it opens runs past
/// midnight into the next day (`Fri-Sat 18:00-02:00`), `24:00` is the end of the day; times may
/// carry seconds (`17:59:30`). Days not named are closed; no entries at all means always open.
struct OpeningHours: Equatable {
    struct Rule: Equatable {
        /// Days the range opens on, as `tm_wday` (0 is Sunday).
        var days: Set<Int>
        /// Seconds after midnight; `close <= open` closes on the next day.
        var open: Int, close: Int
    }
    var rules: [Rule] = []
    var isAlwaysOpen: Bool { rules.isEmpty }

    /// What is wrong with a spec, and where: a UTF-8 offset into the text.
    struct SpecError: Error, Equatable {
        var offset: Int
        var message: String
    }

    private static let dayNames = ["sun", "mon", "tue", "wed", "thu", "fri", "sat"]

    /// Entries separated by commas or semicolons.
    static func parse(_ text: String) throws(SpecError) -> OpeningHours {
        var hours = OpeningHours()
        guard !text.allSatisfy(\.isWhitespace) else { return hours }
        let bytes = Array(text.utf8)
        var start = 0
        for i in 0...bytes.count where i == bytes.count || bytes[i] == UInt8(ascii: ",") || bytes[i] == UInt8(ascii: ";") {
            let part = String(decoding: bytes[start..<i], as: UTF8.self)
            // A comma after the last entry is forgiven; an empty entry elsewhere is not.
            if !(i == bytes.count && part.allSatisfy(\.isWhitespace)) {
                hours.rules.append(try parseEntry(part, at: start))
            }
            start = i + 1
        }
        return hours
    }

    /// One entry, which starts at `base` in the whole text.
    static func parseEntry(_ entry: String, at base: Int) throws(SpecError) -> Rule {
        // Words and where each starts.
        var words: [(text: String, offset: Int)] = []
        var offset = 0, current = "", currentStart = 0
        for ch in entry {
            if ch.isWhitespace {
                if !current.isEmpty { words.append((current, base + currentStart)); current = "" }
            } else {
                if current.isEmpty { currentStart = offset }
                current.append(ch)
            }
            offset += ch.utf8.count
        }
        if !current.isEmpty { words.append((current, base + currentStart)) }
        guard !words.isEmpty else { throw SpecError(offset: base, message: "an empty entry (expected e.g. \"Mon-Fri 08:00-20:00\")") }
        guard words.count <= 2 else { throw SpecError(offset: words[2].offset, message: "'\(words[2].text)': one day range and one time range per entry; separate entries with commas") }
        let days = words.count == 2 ? try parseDays(words[0].text, at: words[0].offset) : Set(0..<7)
        let times = words[words.count - 1]
        let (open, close) = try parseTimes(times.text, at: times.offset)
        return Rule(days: days, open: open, close: close)
    }

    private static func parseDays(_ text: String, at offset: Int) throws(SpecError) -> Set<Int> {
        let lower = text.lowercased()
        if lower == "daily" || lower == "everyday" { return Set(0..<7) }
        let ends = lower.split(separator: "-", omittingEmptySubsequences: false).map(String.init)
        guard ends.count <= 2 else { throw SpecError(offset: offset, message: "'\(text)' is not a day or a range of days (e.g. Mon-Fri)") }
        var found: [Int] = []
        var at = offset
        for e in ends {
            // Three letters or the whole name: "Mon", "monday".
            guard e.count >= 3, let d = dayNames.firstIndex(where: { e.hasPrefix($0) && ($0 == e || fullName($0) == e) }) else {
                throw SpecError(offset: at, message: "'\(e)' is not a day (Mon, Tue, Wed, Thu, Fri, Sat, Sun)")
            }
            found.append(d)
            at += e.utf8.count + 1
        }
        guard found.count == 2 else { return [found[0]] }
        var days: Set<Int> = [found[0]]
        var d = found[0]
        while d != found[1] { d = (d + 1) % 7; days.insert(d) }
        return days
    }

    private static func fullName(_ short: String) -> String {
        ["sun": "sunday", "mon": "monday", "tue": "tuesday", "wed": "wednesday", "thu": "thursday", "fri": "friday", "sat": "saturday"][short]!
    }

    private static func parseTimes(_ text: String, at offset: Int) throws(SpecError) -> (Int, Int) {
        let ends = text.split(separator: "-", omittingEmptySubsequences: false).map(String.init)
        guard ends.count == 2 else { throw SpecError(offset: offset, message: "'\(text)' is not a time range (e.g. 08:00-20:00)") }
        let open = try parseTime(ends[0], at: offset)
        let close = try parseTime(ends[1], at: offset + ends[0].utf8.count + 1)
        guard open < Self.day else { throw SpecError(offset: offset, message: "'\(ends[0])' is the end of the day: a range opens before 24:00") }
        guard open != close else {
            throw SpecError(offset: offset, message: "'\(text)' opens and closes at the same time")
        }
        return (open, close)
    }

    private static let day = 86_400

    /// `H:MM`, `HH:MM` or `HH:MM:SS`, in seconds after midnight.
    private static func parseTime(_ text: String, at offset: Int) throws(SpecError) -> Int {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard (2...3).contains(parts.count), (1...2).contains(parts[0].count), parts.dropFirst().allSatisfy({ $0.count == 2 }),
              let h = Int(parts[0]), let m = Int(parts[1]), let s = parts.count == 3 ? Int(parts[2]) : 0,
              (0...24).contains(h), (0...59).contains(m), (0...59).contains(s), h < 24 || m == 0 && s == 0 else {
            throw SpecError(offset: offset, message: "'\(text)' is not a time of day (00:00 to 24:00)")
        }
        return h * 3600 + m * 60 + s
    }

    // MARK: The schedule

    /// Whether the kiosk is open at `t` (seconds since the epoch), in local time.
    func isOpen(at t: Int) -> Bool {
        guard !rules.isEmpty else { return true }
        var tt = time_t(t), lt = tm()
        localtime_r(&tt, &lt)
        let day = Int(lt.tm_wday), second = Int(lt.tm_hour) * 3600 + Int(lt.tm_min) * 60 + Int(lt.tm_sec)
        for r in rules {
            if r.close > r.open {
                if r.days.contains(day) && second >= r.open && second < r.close { return true }
            } else if r.days.contains(day) && second >= r.open || r.days.contains((day + 6) % 7) && second < r.close {
                return true
            }
        }
        return false
    }

    /// The first time after `t` at which the kiosk opens or closes; nil when it never changes.
    /// Each rule's opening and closing on the local days around `t`, made into times by the C
    /// library (so a day of 23 or 25 hours, a change to or from summer time, counts right).
    func nextChange(after t: Int) -> Int? {
        guard !rules.isEmpty else { return nil }
        let now = isOpen(at: t)
        var tt = time_t(t), today = tm()
        localtime_r(&tt, &today)
        var candidates: [Int] = []
        for dayOffset in -1...8 {
            for r in rules {
                for second in [r.open, r.close] {
                    var x = tm()
                    x.tm_year = today.tm_year; x.tm_mon = today.tm_mon
                    x.tm_mday = today.tm_mday + Int32(dayOffset)
                    x.tm_hour = Int32(second / 3600); x.tm_min = Int32(second / 60 % 60); x.tm_sec = Int32(second % 60)
                    x.tm_isdst = -1
                    let c = Int(mktime(&x))
                    if c > t { candidates.append(c) }
                }
            }
        }
        return candidates.sorted().first { isOpen(at: $0) != now }
    }
}
