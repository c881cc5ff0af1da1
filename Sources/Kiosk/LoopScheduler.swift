import KioskCore
import KioskRender
import KioskUI
import KioskScenes
import KioskPlatform

/// The UI's timers on the event loop's timerfd (see `Scheduler`).
final class LoopScheduler: Scheduler {
    private weak var loop: EventLoop?
    /// Runs after each timer's action: the application requests a frame if it changed anything.
    var afterFire: (() -> Void)?

    init(loop: EventLoop) { self.loop = loop }

    var now: Double { MonotonicClock.now() }

    @discardableResult
    func schedule(after seconds: Double, _ action: @escaping () -> Void) -> ScheduledTimer {
        guard let loop else { return ScheduledTimer {} }
        let id = loop.schedule(after: seconds) { [weak self] in
            action()
            self?.afterFire?()
        }
        return ScheduledTimer { [weak loop] in loop?.cancel(id) }
    }
}
