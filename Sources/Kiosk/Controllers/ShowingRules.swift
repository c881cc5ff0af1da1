#if canImport(Glibc)
import Glibc
#endif
import KioskCore

/// What decides by the time what the screen shows: the screensaver after nobody touched for a
/// while (and black after its blank delay), and the opening hours — applied only while the
/// system clock can be trusted (`ClockTrust`), and said so in the journal.
final class ShowingRules {
    let screensaver: ScreensaverController
    let openingHours: OpeningHoursController
    let clock: ClockTrust
    private let log: Logger

    init(shell: Shell, settings: Settings, scheduler: Scheduler, touchHealth: TouchHealth, log: Logger,
         inhibitIdle: @escaping (Bool) -> Void) {
        self.log = log
        // The blank delay at once: a kiosk started in the screensaver starts its timer here.
        let screensaver = ScreensaverController(shell: shell, scheduler: scheduler, idleTimeout: settings.idleTimeout,
                                                blankDelay: settings.blankDelay, log: { log.notice("\($0)") }, inhibitIdle: inhibitIdle)
        clock = ClockTrust(scheduler: scheduler)
        openingHours = OpeningHoursController(hours: settings.hours, scheduler: scheduler, clockTrusted: clock.isTrusted) { [weak screensaver] open in
            log.notice(open ? "opening hours: open" : "opening hours: closed, the screen goes black")
            touchHealth.opening(open, now: MonotonicClock.now())
            screensaver?.openingHoursChanged(open: open)
        }
        self.screensaver = screensaver
        touchHealth.opening(openingHours.isOpen, now: MonotonicClock.now())
        screensaver.isOpen = { [weak openingHours] in openingHours?.isOpen ?? true }
        trustTheClock()
    }

    var isOpen: Bool { openingHours.isOpen }

    /// Whether the opening hours can trust the clock: said once at start, and when it comes to.
    private func trustTheClock() {
        if let reason = clock.reason {
            log.info("clock: \(reason.rawValue)")
        } else {
            log.info("clock: the system clock is not synchronised (no NTP, and no real-time clock set it at boot); asked again every \(Int(ClockTrust.interval)) s")
        }
        clock.onTrusted = { [weak self] in
            guard let self else { return }
            log.notice("clock: \(clock.reason?.rawValue ?? "believed"): the opening hours apply from now")
            openingHours.clockTrusted = true
        }
    }

    /// Settings, at start (`old` nil) and on every reload.
    func apply(_ new: Settings, over old: Settings?) {
        screensaver.apply(new)
        openingHours.hours = new.hours
        if !clock.isTrusted && !new.hours.isAlwaysOpen && old?.hours.isAlwaysOpen ?? true {
            log.warning("opening hours: not applied while the system clock is not synchronised: the kiosk stays open (docs/unattended.md, \"The clock\")")
        }
    }
}
