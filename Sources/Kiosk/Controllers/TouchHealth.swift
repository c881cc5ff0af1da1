import KioskCore
import KioskUI

/// What the panel's touchscreen is doing, for an operator (the journal) and a fleet (the
/// metrics): phantom contacts the filter ignored, as patterns with a first and a last line;
/// stuck contacts ended; whether the seat has a touchscreen; and a touchscreen nobody touched
/// through a whole day of opening hours (a dead one is the commonest failure nobody sees).
final class TouchHealth {
    private(set) var ignored: [TouchFilter.Rule: Int] = [:]
    private(set) var stuck = 0
    /// Whether the seat offers touch (nil: not told yet).
    private(set) var touchscreenPresent: Bool?

    private let scheduler: Scheduler
    private let log: (String) -> Void
    private let warn: (String) -> Void

    init(scheduler: Scheduler, log: @escaping (String) -> Void, warn: @escaping (String) -> Void) {
        self.scheduler = scheduler
        self.log = log
        self.warn = warn
    }

    // MARK: Phantom patterns

    /// Ignored contacts near one point: said when the third comes (its beat is known then), by
    /// the rule that caught the first (Touch Display 2's are caught by the beat from the third),
    /// and again when none has come for `quietBeats` beats (at least `quietLeast`).
    private struct Pattern {
        let rule: TouchFilter.Rule
        let location: Point
        var first: Double
        var last: Double
        var count = 1
        var said = false
        var interval: Double { count > 1 ? (last - first) / Double(count - 1) : 0 }
        var over: Double { max(Self.quietLeast, Self.quietBeats * interval) }
        static let quietBeats = 10.0
        static let quietLeast = 60.0
    }
    private var patterns: [Pattern] = []
    private var quietTimer: ScheduledTimer?
    static let patternRadius = 4.0
    static let sayAfter = 3

    func contactIgnored(_ c: TouchFilter.Ignored) {
        ignored[c.rule, default: 0] += 1
        if let i = patterns.firstIndex(where: { $0.location.distance(to: c.location) <= Self.patternRadius }) {
            patterns[i].count += 1
            patterns[i].last = c.time
            if !patterns[i].said && patterns[i].count >= Self.sayAfter {
                patterns[i].said = true
                let p = patterns[i]
                log("touch: phantom taps at \(Self.place(p.location)) about every \(format(Self.rounded(p.interval))) s (\(Self.describe(p.rule))): ignored")
            }
        } else {
            patterns.append(Pattern(rule: c.rule, location: c.location, first: c.time, last: c.time))
        }
        armQuietCheck()
    }

    private func armQuietCheck() {
        guard quietTimer == nil, let due = patterns.map({ $0.last + $0.over }).min() else { return }
        quietTimer = scheduler.schedule(after: max(1, due - scheduler.now)) { [weak self] in
            self?.quietTimer = nil
            self?.endQuietPatterns()
        }
    }

    private func endQuietPatterns() {
        let now = scheduler.now
        for p in patterns where now - p.last >= p.over && p.said {
            log("touch: phantom taps at \(Self.place(p.location)) stopped (\(p.count) ignored over \(Self.duration(p.last - p.first)))")
        }
        patterns.removeAll { now - $0.last >= $0.over }
        armQuietCheck()
    }

    static func describe(_ rule: TouchFilter.Rule) -> String {
        switch rule {
        case .noDuration: return "no duration"
        case .lastPixel: return "on the screen's last pixel"
        case .outside: return "outside the screen"
        case .beat: return "at one point on a regular beat"
        }
    }
    private static func place(_ p: Point) -> String { "\(Int(p.x.rounded(.down))),\(Int(p.y.rounded(.down)))" }
    private static func rounded(_ s: Double) -> Double { s >= 10 ? (s * 10).rounded() / 10 : (s * 100).rounded() / 100 }
    private static func duration(_ s: Double) -> String {
        s < 120 ? "\(Int(s.rounded())) s" : s < 7200 ? "\(Int((s / 60).rounded())) min" : "\(format((s / 360).rounded() / 10)) h"
    }

    // MARK: Stuck contacts and the touchscreen

    func contactStuck(at p: Point) {
        stuck += 1
        log("touch: a contact at \(Self.place(p)) held still for \(Int(TouchFilter.stuckAfter)) s was ended (cancelled, not a tap): stuck")
    }

    func touchscreen(present: Bool) {
        let before = touchscreenPresent
        touchscreenPresent = present
        guard before != present else { return }
        switch (before, present) {
        case (nil, false): warn("touch: the seat has no touchscreen (the compositor offers no touch): only a mouse or keys reach the kiosk")
        case (nil, true): break
        case (_, false): warn("touch: the touchscreen is gone (the seat lost touch): any finger down was cancelled")
        case (_, true): log("touch: a touchscreen is back on the seat")
        }
    }

    // MARK: A day of opening hours without a touch

    /// Open seconds without a person's touch, before the current open stretch (`openSince`).
    private var quietOpen = 0.0
    private var openSince: Double?
    /// When the current open stretch began, and whether anyone touched in it.
    private var stretch: (start: Double, touched: Bool)?
    private var saidQuiet = false
    private var dayTimer: ScheduledTimer?
    /// With no opening hours (or a clock not believed), a day is a day.
    static let day = 86_400.0
    /// A shorter open stretch is not called a day (a test of the hours, a short opening).
    static let shortestDay = 3_600.0

    /// Open seconds since a person last touched (or since the start).
    func quietOpenSeconds(now: Double) -> Double { quietOpen + (openSince.map { now - $0 } ?? 0) }

    func personTouched(now: Double) {
        if saidQuiet { log("touch: touched again, after \(Self.duration(quietOpenSeconds(now: now))) of opening without a touch") }
        saidQuiet = false
        quietOpen = 0
        if openSince != nil { openSince = now }
        stretch?.touched = true
    }

    /// The opening hours opened or closed (`open`), or the kiosk started (`starting`).
    func opening(_ open: Bool, now: Double) {
        if open {
            guard openSince == nil else { return }
            openSince = now
            stretch = (now, false)
            armDayCheck()
        } else {
            guard let since = openSince else { return }
            quietOpen += now - since
            openSince = nil
            if let s = stretch, !s.touched, now - s.start >= Self.shortestDay { sayQuiet(now: now, open: now - s.start) }
            stretch = nil
        }
    }

    /// While open: a whole day (24 h open without closing) without a touch is said too, checked
    /// when one could have passed (a touch since only moves the check on).
    private func armDayCheck() {
        dayTimer?.cancel()
        let due = max(Self.shortestDay, Self.day - quietOpenSeconds(now: scheduler.now))
        dayTimer = scheduler.schedule(after: due) { [weak self] in
            guard let self, self.openSince != nil else { return }
            if !self.saidQuiet && self.quietOpenSeconds(now: self.scheduler.now) >= Self.day {
                self.sayQuiet(now: self.scheduler.now, open: Self.day)
            }
            self.armDayCheck()
        }
    }

    private func sayQuiet(now: Double, open: Double) {
        guard !saidQuiet else { return }
        saidQuiet = true
        warn("touch: nobody touched the panel through \(Self.duration(open)) of opening hours: is the touchscreen working? (kiosk_touch_quiet_open_seconds)")
    }
}
