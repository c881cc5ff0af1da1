import KioskCore
import KioskRender

/// The setup screen in the running kiosk: whether the first start shows it, opening it (then,
/// or from the admin panel), and what its end keeps (`SettingsController.setupFinished`).
final class SetupController {
    private let settings: SettingsController
    private let store: StateStore
    private let log: Logger
    private let scheduler: Scheduler
    private let shell: Shell
    private let stage: Stage
    private let fonts: FontCache
    /// Shows the scene again once the touch that ended the setup has been delivered, then runs
    /// what follows (the application's, shared with the admin panel).
    private let close: (@escaping () -> Void) -> Void
    /// The setup laid itself out anew: where its controls are changed (the debug log says).
    var onRelayout: (() -> Void)?

    init(settings: SettingsController, store: StateStore, log: Logger, scheduler: Scheduler, shell: Shell, stage: Stage,
         fonts: FontCache, close: @escaping (@escaping () -> Void) -> Void) {
        self.settings = settings
        self.store = store
        self.log = log
        self.scheduler = scheduler
        self.shell = shell
        self.stage = stage
        self.fonts = fonts
        self.close = close
        // A setup that gives way unfinished (the screensaver, closing time) leaves the panel as it was.
        shell.overlayLeft.add { [weak settings] gone in
            if let setup = gone as? SetupScene, !setup.finished { settings?.abandonSetup() }
        }
    }

    /// At start (`SetupChoices.isNeeded`): the setup, or a kiosk from before setups existed
    /// recorded as set up.
    func startIfNeeded(startInScreensaver: Bool) {
        let current = settings.current, saved = settings.savedSetup, ranBefore = store.exists("shell")
        let sceneAsked = settings.overrides.scene != nil
        if SetupChoices.isNeeded(settings: current, saved: saved, sceneAsked: sceneAsked, ranBefore: ranBefore), !startInScreensaver {
            log.notice("setup: no PIN and no setup yet: showing the setup screen")
            if saved == nil { settings.recordSetup(done: false) }
            open(at: .touch, fromAdmin: false)
        } else if saved == nil, ranBefore, current.adminPIN == nil, !sceneAsked {
            log.notice("setup: not shown: this kiosk ran before the setup screen existed (\(store.path("shell")))")
            settings.recordSetup(done: true)
        }
    }

    /// The setup at `step`. What it chose is kept and applied when it ends; the first start
    /// then shows the start scene.
    func open(at step: SetupScene.Step, fromAdmin: Bool) {
        let setup = SetupScene(fonts: fonts, scheduler: scheduler, settings: settings.current, saved: settings.savedSetup,
                               filePath: settings.configPath ?? Settings.defaultPath(), stage: stage,
                               step: step, fromAdmin: fromAdmin) { [weak self] choices in
            self?.close {
                guard let self else { return }
                self.settings.setupFinished(choices)
                if !fromAdmin { self.shell.switchTo(self.settings.current.start) }
            }
        }
        setup.onNotice = { [log] in log.notice("setup: \($0)") }
        setup.onPreview = { [weak settings] in settings?.previewSetup($0) }
        setup.onRelayout = { [weak self] in self?.onRelayout?() }
        if fromAdmin { log.notice("setup: opened from the admin panel at \(step.name)") }
        shell.show(.admin(setup))
    }
}
