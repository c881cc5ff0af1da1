import KioskCore
import KioskPlatform

/// The UI's timers on the event loop's timerfd (see `Scheduler`).
final class LoopScheduler: Scheduler {
    private weak var loop: EventLoop?

    init(loop: EventLoop) { self.loop = loop }

    var now: Double { MonotonicClock.now() }

    @discardableResult
    func schedule(after seconds: Double, _ action: @escaping () -> Void) -> ScheduledTimer {
        guard let loop else { return ScheduledTimer {} }
        // What the action changes marks itself; the loop's next pass asks for a frame.
        let id = loop.schedule(after: seconds, action)
        return ScheduledTimer { [weak loop] in loop?.cancel(id) }
    }
}
