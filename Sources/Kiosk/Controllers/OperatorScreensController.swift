import KioskCore
import KioskRender

/// The operators' screens in the running kiosk: the admin panel, opened by the admin corner's
/// hold, and the setup (at the first start, or from the panel). Either closes back to the
/// scene, or to closing time's black after hours.
final class OperatorScreensController {
    private let settings: SettingsController
    private let log: Logger
    private let scheduler: Scheduler
    private let shell: Shell
    private let fonts: FontCache
    private let isOpen: () -> Bool
    /// Which panel this is, read when the admin panel opens (nil: not shown).
    private let identity: () -> PanelIdentity?
    let setup: SetupController
    /// The PIN's wrong tries and rest, across every panel this kiosk opens.
    private let adminLock = AdminLock()

    init(settings: SettingsController, store: StateStore, log: Logger, scheduler: Scheduler, shell: Shell, stage: Stage,
         fonts: FontCache, isOpen: @escaping () -> Bool, identity: @escaping () -> PanelIdentity? = { nil }) {
        self.identity = identity
        self.settings = settings
        self.log = log
        self.scheduler = scheduler
        self.shell = shell
        self.fonts = fonts
        self.isOpen = isOpen
        var close: (@escaping () -> Void) -> Void = { _ in }
        setup = SetupController(settings: settings, store: store, log: log, scheduler: scheduler, shell: shell, stage: stage,
                                fonts: fonts, close: { close($0) })
        close = { [weak self] then in self?.closeOverlay(then: then) }
        shell.adminAsked.add { [weak self] in self?.openAdminPanel() }
    }

    private func openAdminPanel() {
        log.notice("admin panel opened")
        let panel = AdminPanel(fonts: fonts, scheduler: scheduler, settings: settings.current, lock: adminLock,
                               identity: identity()) { [weak self] outcome in
            self?.closeOverlay {
                guard let self else { return }
                if case let .setup(step, changes) = outcome {
                    if !changes.isEmpty { self.settings.panelClosed(.save(changes)) }
                    self.setup.open(at: step, fromAdmin: true)
                } else {
                    self.settings.panelClosed(outcome)
                }
            }
        }
        shell.show(.admin(panel))
    }

    /// The admin panel or the setup closed: after the touch that chose it has been delivered
    /// (not in the middle of it), the scene (or closing time's black) again, then `then`.
    private func closeOverlay(then: @escaping () -> Void) {
        scheduler.schedule(after: 0) { [weak self] in
            guard let self else { return }
            if self.shell.showing.isAdmin { self.shell.show(self.isOpen() ? .scene : .closed) }
            then()
        }
    }
}
