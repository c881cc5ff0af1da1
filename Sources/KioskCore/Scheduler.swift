/// One-shot timers for the UI (long presses, double-tap windows). The live app backs this with
/// the event loop's timerfd; tests and headless renders use `ManualScheduler` and a fake clock.
public protocol Scheduler: AnyObject {
    var now: Double { get }
    @discardableResult
    func schedule(after seconds: Double, _ action: @escaping () -> Void) -> ScheduledTimer
    /// A frame is made for `time`: a scheduler on simulated time fires what is due by then; one
    /// on the real clock (the event loop's) has fired it already and ignores this.
    func advance(to time: Double)
}

extension Scheduler {
    public func advance(to time: Double) {}
}

/// A timer that can be cancelled.
public final class ScheduledTimer {
    private var cancelAction: (() -> Void)?
    public init(cancel: @escaping () -> Void) { cancelAction = cancel }
    public func cancel() {
        cancelAction?()
        cancelAction = nil
    }
}

/// Timers that fire when the owner advances time: deterministic, for tests and headless runs.
public final class ManualScheduler: Scheduler {
    private struct Entry { let id: Int; let deadline: Double; let action: () -> Void }
    private var entries: [Entry] = []
    private var nextID = 0
    public private(set) var now: Double

    public init(now: Double = 0) { self.now = now }

    @discardableResult
    public func schedule(after seconds: Double, _ action: @escaping () -> Void) -> ScheduledTimer {
        nextID += 1
        let id = nextID
        entries.append(Entry(id: id, deadline: now + max(0, seconds), action: action))
        return ScheduledTimer { [weak self] in self?.entries.removeAll { $0.id == id } }
    }

    /// Moves time to `time`, firing due timers in deadline order (each sees `now` at its deadline).
    public func advance(to time: Double) {
        while let next = entries.filter({ $0.deadline <= time }).min(by: { $0.deadline < $1.deadline || ($0.deadline == $1.deadline && $0.id < $1.id) }) {
            entries.removeAll { $0.id == next.id }
            now = max(now, next.deadline)
            next.action()
        }
        now = max(now, time)
    }
}
