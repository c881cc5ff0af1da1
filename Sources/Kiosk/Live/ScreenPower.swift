import KioskCore
import KioskPlatform

/// When the screen goes black (closing time, the blank after the screensaver) the panel itself
/// goes off, by the best means the compositor offers (said once, with why the better ones are
/// not used), and on again for a visitor or at opening.
final class ScreenPower {
    private let display: Display
    private let notifier: SystemdNotifier?
    private let log: Logger
    /// Why the means used is used is said at the first closing (an "on" before it, for a
    /// visitor at start, says nothing).
    private var explained = false

    init(display: Display, notifier: SystemdNotifier?, log: Logger) {
        self.display = display
        self.notifier = notifier
        self.log = log
    }

    func follow(_ shell: Shell) {
        shell.darkChanged.add { [weak self] dark in self?.setPowered(!dark) }
    }

    private func setPowered(_ on: Bool) {
        let explain = !on && !explained
        if explain { explained = true }
        let means: String
        if let wayland = display.setOutputsPowered(on) {
            if explain && wayland == .outputManagement {
                log.notice("screen power: by wlr-output-management (the outputs disabled, as wlr-randr --off does): the compositor offers no wlr-output-power-management")
            }
            means = wayland.rawValue
        } else if let notifier, notifier.reachesKioskSession {
            // kiosk-session (root) runs kiosk-screen@.service: the backlight, DDC/CI, HDMI-CEC.
            if explain {
                log.notice("screen power: by kiosk-session (the backlight, a monitor's DDC/CI or a TV's HDMI-CEC; kiosk-screen@.service says which): the compositor offers neither wlr-output-power-management nor wlr-output-management")
            }
            notifier.send(SessionRelay.screenField(on: on))
            means = "kiosk-session"
        } else {
            if explain {
                log.notice("screen power: the compositor offers neither wlr-output-power-management nor wlr-output-management, and no kiosk-session runs the kiosk; the screen stays black, lit")
            }
            return
        }
        log.notice(on ? "turning the screen on (\(means))" : "turning the screen off (\(means))")
    }
}
