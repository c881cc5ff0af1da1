import KioskCore

/// Keeps contacts nobody made from everything above the seat: what the rules ignore never
/// presses, wakes, counts or restarts a timer. One place for the rules (`Rule`), each with its
/// evidence; docs/touch.md has the recordings and the numbers. Between the seat and the
/// shell: a batch in surface points goes in (`handle`), what a person made comes out
/// (`deliver`), with the times it happened.
///
/// A new contact is held back until it has lasted `shortestTouch` (a person's fastest tap is
/// ten times that): its `began` is then delivered with its own timestamp, so recognizers see
/// the real touch, `shortestTouch` late. The mouse (pointer-as-touch) is never filtered.
public final class TouchFilter {
    /// Why a contact was ignored.
    public enum Rule: String, CaseIterable, Sendable {
        /// Down and up less than `shortestTouch` apart (one timestamp, one frame). A controller
        /// reports a lift only in a later scan, so no finger does this; Touch Display 2 sends one
        /// every 12.864 s with nothing on the glass (raspberrypi/linux#7638).
        case noDuration = "no-duration"
        /// Begins on the surface's last row or column of points and never moves off it: the 7"
        /// panel (ft5x06) reports ~2 a second at 799,479, its last pixel (raspberrypi/linux#4749).
        /// A swipe in from that edge moves off it and is delivered whole, with its times.
        case lastPixel = "last-pixel"
        /// Begins outside the surface: the same panel's 499,-3616.
        case outside
        /// At one point (within `samePoint`) for the third time on one beat (intervals within
        /// `beatTolerance`, at least `slowestBeat` apart): a controller's timer, not a person,
        /// whose finger never lands on the same spot twice; Touch Display 2's 12.864 s. (The
        /// end-to-end script's swipes from one spot, 2.2 s apart, were caught at 2 s.)
        case beat
    }

    /// A contact the rules kept back, where (surface points) and when it began.
    public struct Ignored: Equatable, Sendable {
        public let rule: Rule
        public let location: Point
        public let time: Double
    }

    public static let shortestTouch = 0.004
    /// A contact that has not moved `stillness` points for this long is ended as cancelled:
    /// twenty times the longest hold anyone makes on purpose (the admin corner's and the
    /// calibration's 3 s); a stuck contact sends nothing at all (wlroots#1997).
    public static let stuckAfter = 60.0
    static let stillness = 1.0
    static let samePoint = 0.5
    static let beatTolerance = 0.02
    static let slowestBeat = 5.0

    /// Where a person's touches go (surface points, as they came in).
    public var deliver: (TouchBatch) -> Void = { _ in }
    /// Told of every contact a rule ignored.
    public var onIgnored: (Ignored) -> Void = { _ in }
    /// Told where a contact was ended because it was stuck.
    public var onStuck: (Point) -> Void = { _ in }
    /// The surface's size in points, for the last-pixel and outside rules (nil: not known yet).
    public var bounds: () -> Size? = { nil }

    private struct Held {
        var began: Double
        var start: Point
        var latest: Point
        var latestTime: Double
        var onEdge: Bool
        var timer: ScheduledTimer?
    }
    private struct Live {
        var began: Double
        /// Where it is now, and where and since when it has been still (within `stillness`).
        var location: Point
        var anchor: Point
        var still: Double
    }
    private enum Contact {
        case held(Held)
        case live(Live)
        /// Ignored, cancelled or stuck: the rest of its events go nowhere.
        case dropped
    }
    private var contacts: [Int32: Contact] = [:]
    /// The points contacts began at lately, each with its last two times: the beat rule's.
    private var spots: [(location: Point, times: [Double])] = []
    static let spotsKept = 32
    private let scheduler: Scheduler
    private var stuckTimer: ScheduledTimer?

    public init(scheduler: Scheduler) { self.scheduler = scheduler }

    public func handle(_ batch: TouchBatch) {
        var passed: [TouchPoint] = []
        for p in batch.points {
            if p.isPointer { passed.append(p); continue }
            switch p.phase {
            case .began: began(p, at: batch.time, passing: &passed)
            case .moved: moved(p, at: batch.time, passing: &passed)
            case .ended: ended(p, at: batch.time, passing: &passed)
            case .cancelled: cancelled(p, passing: &passed)
            }
        }
        if !passed.isEmpty { deliver(TouchBatch(time: batch.time, points: passed)) }
    }

    /// Every contact that began before `change` ends here, cancelled, and nothing it does later
    /// acts: what the screen shows changed under it (the screensaver, closing time, a fresh
    /// start). One that began since (a quick operator's next tap) is left alone.
    public func cancelAll(beganBefore change: Double, at time: Double) {
        var points: [TouchPoint] = []
        for (id, c) in contacts.sorted(by: { $0.key < $1.key }) {
            switch c {
            case .live(let l) where l.began < change:
                points.append(TouchPoint(id: id, phase: .cancelled, location: l.location))
            case .held(let h) where h.began < change:
                h.timer?.cancel()
            default:
                continue
            }
            contacts[id] = .dropped
        }
        if !points.isEmpty { deliver(TouchBatch(time: time, points: points)) }
        stopStuckCheckIfIdle()
    }

    // MARK: The phases

    private func began(_ p: TouchPoint, at time: Double, passing passed: inout [TouchPoint]) {
        if case .held(let h) = contacts[p.id] { h.timer?.cancel() }
        if case .live = contacts[p.id] {
            // Its up was missed: the layers above end it when they see this id begin again.
            contacts[p.id] = nil
        }
        let onBeat = noteSpot(p.location, at: time)
        let b = bounds()
        if let b, isOutside(p.location, b) { return ignore(p, .outside, at: time) }
        if onBeat { return ignore(p, .beat, at: time) }
        let edge = b.map { isOnLastPixel(p.location, $0) } ?? false
        var h = Held(began: time, start: p.location, latest: p.location, latestTime: time, onEdge: edge)
        if !edge {
            let id = p.id
            h.timer = scheduler.schedule(after: max(0, time + Self.shortestTouch - scheduler.now)) { [weak self] in
                self?.confirmHeld(id)
            }
        }
        contacts[p.id] = .held(h)
    }

    private func moved(_ p: TouchPoint, at time: Double, passing passed: inout [TouchPoint]) {
        switch contacts[p.id] {
        case .held(var h):
            h.latest = p.location
            h.latestTime = time
            contacts[p.id] = .held(h)
            if h.onEdge, let b = bounds(), !isOnLastPixel(p.location, b) { confirmHeld(p.id) }
        case .live(var l):
            l.location = p.location
            if l.anchor.distance(to: p.location) >= Self.stillness { l.anchor = p.location; l.still = time }
            contacts[p.id] = .live(l)
            passed.append(p)
        case .dropped, nil:
            break
        }
    }

    private func ended(_ p: TouchPoint, at time: Double, passing passed: inout [TouchPoint]) {
        switch contacts.removeValue(forKey: p.id) {
        case .held(let h):
            h.timer?.cancel()
            if h.onEdge { return ignore(TouchPoint(id: p.id, phase: .began, location: h.start), .lastPixel, at: h.began, stillDown: false) }
            if time - h.began < Self.shortestTouch {
                return ignore(TouchPoint(id: p.id, phase: .began, location: h.start), .noDuration, at: h.began, stillDown: false)
            }
            deliverHeld(p.id, h)
            passed.append(p)
        case .live:
            passed.append(p)
            stopStuckCheckIfIdle()
        case .dropped, nil:
            break
        }
    }

    /// Nothing down: no stuck check waits (an idle kiosk stays asleep).
    private func stopStuckCheckIfIdle() {
        guard !contacts.values.contains(where: { if case .live = $0 { true } else { false } }) else { return }
        stuckTimer?.cancel()
        stuckTimer = nil
    }

    private func cancelled(_ p: TouchPoint, passing passed: inout [TouchPoint]) {
        switch contacts.removeValue(forKey: p.id) {
        case .held(let h): h.timer?.cancel()
        case .live: passed.append(p); stopStuckCheckIfIdle()
        case .dropped, nil: break
        }
    }

    /// A held contact is a person's, still down: live from now on, and delivered.
    private func confirmHeld(_ id: Int32) {
        guard case .held(let h) = contacts[id] else { return }
        h.timer?.cancel()
        contacts[id] = .live(Live(began: h.began, location: h.latest, anchor: h.latest, still: h.latestTime))
        deliverHeld(id, h)
        armStuckCheck()
    }

    /// What a held contact did, delivered late: its `began` with its own time, then where it
    /// has moved since.
    private func deliverHeld(_ id: Int32, _ h: Held) {
        deliver(TouchBatch(time: h.began, points: [TouchPoint(id: id, phase: .began, location: h.start)]))
        if h.latest != h.start { deliver(TouchBatch(time: h.latestTime, points: [TouchPoint(id: id, phase: .moved, location: h.latest)])) }
    }

    /// A contact ignored: told, and while it is still down the rest of it goes nowhere.
    private func ignore(_ p: TouchPoint, _ rule: Rule, at time: Double, stillDown: Bool = true) {
        if stillDown { contacts[p.id] = .dropped }
        onIgnored(Ignored(rule: rule, location: p.location, time: time))
    }

    // MARK: Stuck contacts

    private func armStuckCheck() {
        guard stuckTimer == nil else { return }
        let stills = contacts.values.compactMap { c -> Double? in if case .live(let l) = c { l.still } else { nil } }
        guard let oldest = stills.min() else { return }
        stuckTimer = scheduler.schedule(after: max(0.5, oldest + Self.stuckAfter - scheduler.now)) { [weak self] in
            self?.stuckTimer = nil
            self?.endStuck()
        }
    }

    private func endStuck() {
        let now = scheduler.now
        var points: [TouchPoint] = []
        for (id, c) in contacts.sorted(by: { $0.key < $1.key }) {
            guard case .live(let l) = c, now - l.still >= Self.stuckAfter else { continue }
            contacts[id] = .dropped
            points.append(TouchPoint(id: id, phase: .cancelled, location: l.location))
        }
        if !points.isEmpty {
            deliver(TouchBatch(time: now, points: points))
            for p in points { onStuck(p.location) }
        }
        armStuckCheck()
    }

    // MARK: The rules' geometry and beat

    private func isOutside(_ p: Point, _ b: Size) -> Bool {
        p.x < 0 || p.y < 0 || p.x > b.width || p.y > b.height
    }

    /// The last row or column of points (a panel's last pixel at scale 1).
    private func isOnLastPixel(_ p: Point, _ b: Size) -> Bool {
        p.x >= b.width - 1 || p.y >= b.height - 1
    }

    /// Remembers a contact at `p`; whether it is the third (or later) there on one beat.
    private func noteSpot(_ p: Point, at time: Double) -> Bool {
        guard let i = spots.firstIndex(where: { $0.location.distance(to: p) <= Self.samePoint }) else {
            spots.append((p, [time]))
            if spots.count > Self.spotsKept { spots.remove(at: spots.indices.min { spots[$0].times.last! < spots[$1].times.last! }!) }
            return false
        }
        let times = spots[i].times
        spots[i].times = [times.last!, time]
        guard times.count == 2 else { return false }
        let before = times[1] - times[0], last = time - times[1]
        return before >= Self.slowestBeat && abs(last - before) <= Self.beatTolerance * before
    }
}
