#if canImport(Glibc)
import Glibc
#endif
import KioskCore

/// Keeps the kiosk open during its opening hours (`[shell] hours`) and closed outside them:
/// checks the schedule now and again at its next change, and tells `apply` when that flips.
/// The timer is the only wakeup while closed; it is never longer than an hour, because the
/// wall clock can move under a sleeping timer (set by NTP after boot, a suspended machine).
/// While the clock is not believed (`clockTrusted`, `ClockTrust`) the kiosk stays open.
final class OpeningHoursController {
    var hours: OpeningHours { didSet { if hours != oldValue { check() } } }
    var clockTrusted = true { didSet { if clockTrusted != oldValue { check() } } }
    private(set) var isOpen = true
    private let scheduler: Scheduler
    private let wallClock: () -> Int
    private let apply: (Bool) -> Void
    private var timer: ScheduledTimer?
    static let longestWait = 3600

    init(hours: OpeningHours, scheduler: Scheduler, clockTrusted: Bool = true, wallClock: @escaping () -> Int = { Int(time(nil)) },
         apply: @escaping (_ open: Bool) -> Void) {
        self.hours = hours
        self.clockTrusted = clockTrusted
        self.scheduler = scheduler
        self.wallClock = wallClock
        self.apply = apply
        check()
    }

    private func check() {
        timer?.cancel()
        timer = nil
        let now = wallClock()
        let open = !clockTrusted || hours.isOpen(at: now)
        if open != isOpen {
            isOpen = open
            apply(open)
        }
        guard clockTrusted, let next = hours.nextChange(after: now) else { return }
        timer = scheduler.schedule(after: Double(min(max(1, next - now), Self.longestWait))) { [weak self] in self?.check() }
    }
}
