import KioskCore
import KioskUI

/// When the screensaver comes, and when the screen may go dark under it: after `idleTimeout`
/// seconds with nobody at the kiosk (no input, no panel opened or closed) the shell shows the
/// screensaver; `blankDelay` seconds into it the idle inhibitor is let go (`inhibitIdle(false)`)
/// so the compositor may blank the screen, and it is taken back when someone wakes the kiosk.
/// Both are settable live (a settings reload); 0 means never.
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

    init(shell: Shell, scheduler: Scheduler, idleTimeout: Double, blankDelay: Double = 0,
         log: ((String) -> Void)? = nil, inhibitIdle: @escaping (Bool) -> Void = { _ in }) {
        self.shell = shell
        self.scheduler = scheduler
        self.idleTimeout = max(0, idleTimeout)
        self.blankDelay = max(0, blankDelay)
        self.log = log
        self.inhibitIdle = inhibitIdle
        shell.onActivity = { [weak self] in self?.restartIdleTimer() }
        shell.onScreensaverChange = { [weak self] on in self?.screensaverChanged(on) }
        if shell.showingScreensaver { screensaverChanged(true) } else { restartIdleTimer() }
    }

    private func restartIdleTimer() {
        idleTimer?.cancel()
        idleTimer = nil
        guard idleTimeout > 0, !shell.showingScreensaver else { return }
        idleTimer = scheduler.schedule(after: idleTimeout) { [weak self] in self?.shell.showScreensaver() }
    }

    private func screensaverChanged(_ on: Bool) {
        blankTimer?.cancel()
        blankTimer = nil
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
