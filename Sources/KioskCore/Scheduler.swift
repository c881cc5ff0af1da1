#if canImport(Glibc)
import Glibc
#endif
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

/// Work done away from the frame loop, its result handed back on it: a picture decoded while
/// the visitor goes on touching. The live kiosk runs it on a helper thread and wakes its event
/// loop with the result; headless renders and tests run it at once, so that every frame is the
/// same each time.
public protocol Helper: AnyObject {
    /// `work` away from the frame loop, then `done` with its result on it; nothing of either
    /// once the returned task is cancelled before `work` began.
    @discardableResult
    func run<T>(_ work: @escaping @Sendable () -> T, then done: @escaping (T) -> Void) -> HelperTask
}

/// A piece of a helper's work that may be called off before it begins.
public final class HelperTask: @unchecked Sendable {
    private let lock = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private var cancelled = false
    public init() { pthread_mutex_init(lock, nil) }
    deinit { pthread_mutex_destroy(lock); lock.deallocate() }
    public func cancel() { pthread_mutex_lock(lock); cancelled = true; pthread_mutex_unlock(lock) }
    public var isCancelled: Bool { pthread_mutex_lock(lock); defer { pthread_mutex_unlock(lock) }; return cancelled }
}

/// Runs the work at once, on the caller's thread: headless renders and tests.
public final class InlineHelper: Helper {
    public init() {}
    @discardableResult
    public func run<T>(_ work: @escaping @Sendable () -> T, then done: @escaping (T) -> Void) -> HelperTask {
        done(work())
        return HelperTask()
    }
}
