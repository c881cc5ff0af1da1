import KioskCore
import KioskUI

/// When the screensaver comes, and when the screen may go dark: after `idleTimeout` seconds
/// with nobody at the kiosk (no input, no panel opened or closed) the shell shows the
/// screensaver; `blankDelay` seconds into it the screen goes black and off (`Showing.blank`, the
/// panel powered down as at closing time: cage blanks nothing by itself) and the idle inhibitor
/// is let go; a touch wakes the scene. Both are settable live (a settings reload); 0 means never.
///
/// Outside the opening hours (`openingHoursChanged`) the screen is black and may sleep: nothing
/// times out, the inhibitor is let go, and a touch shows the screensaver for `afterHoursWake`
/// seconds. What the screen shows is the shell's (`Shell.showing`); this only reacts to it.
final class ScreensaverController {
    private let shell: Shell
    private let scheduler: Scheduler
    private let inhibitIdle: (Bool) -> Void
    private let log: ((String) -> Void)?
    private var idleTimer: ScheduledTimer?
    private var blankTimer: ScheduledTimer?
    private var afterHoursTimer: ScheduledTimer?

    var idleTimeout: Double { didSet { if idleTimeout != oldValue { restartIdleTimer() } } }
    /// While speech is on, the screensaver waits this long instead (never less than
    /// `idleTimeout`), and before it the visitor is asked whether they need more time.
    var accessibleIdleTimeout = 300.0 { didSet { if accessibleIdleTimeout != oldValue { restartIdleTimer() } } }
    /// The most warning a visitor in accessible use gets (half the time, when that is shorter).
    static let moreTimeWarning = 30.0
    private var moreTimeTimer: ScheduledTimer?
    /// Takes effect from the next time the screensaver starts.
    var blankDelay: Double
    /// Seconds a touch after hours shows the screensaver.
    var afterHoursWake = 60.0
    /// Whether the opening hours have the kiosk open now (the opening-hours controller's).
    var isOpen: () -> Bool = { true }

    init(shell: Shell, scheduler: Scheduler, idleTimeout: Double, blankDelay: Double = 0,
         log: ((String) -> Void)? = nil, inhibitIdle: @escaping (Bool) -> Void = { _ in }) {
        self.shell = shell
        self.scheduler = scheduler
        self.idleTimeout = max(0, idleTimeout)
        self.blankDelay = max(0, blankDelay)
        self.log = log
        self.inhibitIdle = inhibitIdle
        shell.activity.add { [weak self] in self?.restartIdleTimer() }
        shell.afterHoursTouch.add { [weak self] in self?.afterHoursTouch() }
        shell.showingChanged.add { [weak self] old in self?.showingChanged(from: old) }
        if shell.showing == .screensaver { startBlankTimer() } else { restartIdleTimer() }
    }

    /// `[shell] idle_timeout`, `blank_delay`, `after_hours_wake` and `[access] idle_timeout`, at
    /// start and on every reload.
    func apply(_ s: Settings) {
        idleTimeout = s.idleTimeout
        accessibleIdleTimeout = s.accessIdleTimeout
        blankDelay = s.blankDelay
        afterHoursWake = s.afterHoursWake
    }

    /// The opening hours flipped: black at closing time (an open admin panel closes too), a
    /// fresh start at opening time (an open admin panel stays; closing it shows the scene).
    func openingHoursChanged(open: Bool) {
        if !open { shell.show(.closed) } else if shell.showing.isClosed { shell.show(.scene) }
    }

    /// Someone at the kiosk after hours: the screensaver for a while (longer while they stay).
    private func afterHoursTouch() {
        shell.show(.afterHoursWake)
        afterHoursTimer?.cancel()
        afterHoursTimer = scheduler.schedule(after: afterHoursWake) { [weak self] in
            guard let self, self.shell.showing == .afterHoursWake else { return }
            self.afterHoursTimer = nil
            self.shell.show(.closed)
        }
    }

    private func restartIdleTimer() {
        stopIdleTimers()
        guard idleTimeout > 0, shell.showing == .scene || shell.overlay?.yieldsToScreensaver == true else { return }
        let accessible = shell.isAccessibleUse && shell.showing == .scene
        let timeout = accessible ? max(idleTimeout, accessibleIdleTimeout) : idleTimeout
        // An admin panel left open after hours gives way to black, not to the screensaver.
        idleTimer = scheduler.schedule(after: timeout) { [weak self] in
            guard let self else { return }
            self.shell.hideMoreTimePrompt()
            self.shell.show(self.isOpen() ? .screensaver : .closed)
        }
        if accessible {
            moreTimeTimer = scheduler.schedule(after: timeout - min(Self.moreTimeWarning, timeout / 2)) { [weak self] in
                self?.shell.askForMoreTime()
            }
        }
    }

    private func stopIdleTimers() {
        idleTimer?.cancel()
        idleTimer = nil
        moreTimeTimer?.cancel()
        moreTimeTimer = nil
        shell.hideMoreTimePrompt()
    }

    private func startBlankTimer() {
        guard blankDelay > 0 else { return }
        blankTimer = scheduler.schedule(after: blankDelay) { [weak self] in
            guard let self, self.shell.showing == .screensaver else { return }
            self.log?("screensaver: nobody here for \(format(self.blankDelay)) s more: the screen goes off")
            self.shell.show(.blank)
        }
    }

    private func showingChanged(from old: Showing) {
        blankTimer?.cancel()
        blankTimer = nil
        let now = shell.showing
        switch now {
        case .screensaver:
            stopIdleTimers()
            startBlankTimer()
        case .scene, .admin:
            inhibitIdle(true)
            restartIdleTimer()
        case .blank, .closed, .afterHoursWake:
            // Black, or after hours: the screen stays free to sleep whatever shows.
            stopIdleTimers()
            inhibitIdle(false)
        }
        if !now.isClosed { afterHoursTimer?.cancel(); afterHoursTimer = nil }
    }
}
