import KioskCore
import KioskUI

/// When the screensaver comes, and when the screen may go dark under it: after `idleTimeout`
/// seconds with nobody at the kiosk (no input, no panel opened or closed) the shell shows the
/// screensaver; `blankDelay` seconds into it the idle inhibitor is let go (`inhibitIdle(false)`)
/// so the compositor may blank the screen, and it is taken back when someone wakes the kiosk.
/// Both are settable live (a settings reload); 0 means never.
///
/// Outside the opening hours (`isClosed`) the screen is black and may sleep: nothing times out,
/// the inhibitor is let go, and a touch shows the screensaver for `afterHoursWake` seconds.
final class ScreensaverController {
    private let shell: Shell
    private let scheduler: Scheduler
    private let inhibitIdle: (Bool) -> Void
    private let log: ((String) -> Void)?
    private var idleTimer: ScheduledTimer?
    private var blankTimer: ScheduledTimer?
    /// Told when the screensaver starts (true) and ends (false), after this has acted on it.
    var onChange: ((Bool) -> Void)?

    var idleTimeout: Double { didSet { if idleTimeout != oldValue { restartIdleTimer() } } }
    /// Takes effect from the next time the screensaver starts.
    var blankDelay: Double
    /// Seconds a touch after hours shows the screensaver.
    var afterHoursWake = 60.0
    private var afterHoursTimer: ScheduledTimer?
    /// Told when the screen goes black for closing time (true) and when it shows something
    /// again (false): where the compositor can, the application turns the output off and on.
    var onDark: ((Bool) -> Void)?

    var isClosed = false {
        didSet {
            guard isClosed != oldValue else { return }
            idleTimer?.cancel(); idleTimer = nil
            blankTimer?.cancel(); blankTimer = nil
            afterHoursTimer?.cancel(); afterHoursTimer = nil
            if isClosed {
                shell.close()
                inhibitIdle(false)
                onDark?(true)
            } else {
                onDark?(false)
                shell.open()
                inhibitIdle(true)
                restartIdleTimer()
            }
        }
    }

    init(shell: Shell, scheduler: Scheduler, idleTimeout: Double, blankDelay: Double = 0,
         log: ((String) -> Void)? = nil, inhibitIdle: @escaping (Bool) -> Void = { _ in }) {
        self.shell = shell
        self.scheduler = scheduler
        self.idleTimeout = max(0, idleTimeout)
        self.blankDelay = max(0, blankDelay)
        self.log = log
        self.inhibitIdle = inhibitIdle
        shell.onActivity = { [weak self] in self?.restartIdleTimer() }
        shell.onAfterHoursTouch = { [weak self] in self?.afterHoursTouch() }
        shell.onScreensaverChange = { [weak self] on in self?.screensaverChanged(on) }
        if shell.showingScreensaver { screensaverChanged(true) } else { restartIdleTimer() }
    }

    /// Someone at the kiosk after hours: the screensaver for a while (longer while they stay).
    private func afterHoursTouch() {
        if !shell.showingScreensaver { onDark?(false) }
        shell.showScreensaver()
        afterHoursTimer?.cancel()
        afterHoursTimer = scheduler.schedule(after: afterHoursWake) { [weak self] in
            guard let self, self.isClosed else { return }
            self.afterHoursTimer = nil
            self.shell.endScreensaver()
            self.onDark?(true)
        }
    }

    private func restartIdleTimer() {
        idleTimer?.cancel()
        idleTimer = nil
        guard idleTimeout > 0, !shell.showingScreensaver, !isClosed else { return }
        idleTimer = scheduler.schedule(after: idleTimeout) { [weak self] in self?.shell.showScreensaver() }
    }

    private func screensaverChanged(_ on: Bool) {
        blankTimer?.cancel()
        blankTimer = nil
        // After hours the screen stays free to sleep whatever shows.
        guard !isClosed else { onChange?(on); return }
        if on {
            idleTimer?.cancel()
            idleTimer = nil
            if blankDelay > 0 {
                blankTimer = scheduler.schedule(after: blankDelay) { [weak self] in
                    self?.log?("screensaver: letting the screen blank")
                    self?.inhibitIdle(false)
                }
            }
        } else {
            inhibitIdle(true)
            restartIdleTimer()
        }
        onChange?(on)
    }
}
