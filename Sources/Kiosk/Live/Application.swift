#if canImport(Glibc)
import Glibc
#endif
import KioskCore
import KioskRender
import KioskPlatform
import KioskVoice

/// The live kiosk, put together: a Wayland window (`LiveHost`) showing the shell on a stage,
/// what systemd and the fleet are told (`ServiceStatus`), the panel's power (`ScreenPower`),
/// the controllers that decide what the screen shows, and the settings applied to all of them
/// at start and on every reload. Each part does one job; this only makes and connects them.
final class Application {
    private let log: Logger
    private let loop: EventLoop
    private let scheduler: LoopScheduler
    private let display: Display
    private let store: StateStore
    private let settings: SettingsController
    let saver: StateSaver
    /// What speech says, spoken off the frame loop (no thread until speech is first heard).
    private let voice: Voice
    private let status: ServiceStatus
    private let host: LiveHost
    private let screenPower: ScreenPower
    private let filePageTrim: FilePageTrim
    /// Gestures and controls at debug level, frame statistics on SIGUSR1.
    private let diagnostics: Diagnostics
    private let touchHealth: TouchHealth
    /// Pictures decoded off the frame loop.
    private let helper: Helper
    private let content: ContentWatcher
    private let startup: StartupPhases
    /// The picture's turn (the settings, the accelerometer), and the accelerometer it follows.
    private let orientation: PanelOrientation
    private var accelerometer: Accelerometer?
    private let startInScreensaver: Bool
    /// What runs once the window has its size, made once (`start`).
    private var running: Running?
    private struct Running {
        let stage: Stage
        let shell: Shell
        let rules: ShowingRules
        let operatorScreens: OperatorScreensController
        /// Restarts into a newer version installed while it runs, when the panel is idle.
        let update: UpdateRestart?
    }

    init(configPath: String?, overrides: Overrides, startInScreensaver: Bool, log: Logger, startNS: UInt64) throws {
        self.log = log
        self.startInScreensaver = startInScreensaver
        startup = StartupPhases(log: log, startNS: startNS)
        store = StateStore(report: { log.warning("\($0)") })
        store.prepare()
        settings = SettingsController(configPath: configPath, overrides: overrides, store: store, log: log)
        // The event loop first: it blocks the signals it handles, which every thread started
        // after it (the scene preparation below) inherits.
        loop = try EventLoop(log: log)
        scheduler = LoopScheduler(loop: loop)
        saver = StateSaver(scheduler: scheduler)
        touchHealth = TouchHealth(scheduler: scheduler, log: { [log] in log.notice("\($0)") }, warn: { [log] in log.warning("\($0)") })
        display = try Display(log: log, loop: loop)
        startup.mark("connected")
        voice = Voice(device: settings.current.soundDevice, log: log)
        helper = HelperThread(log: log, register: { [loop] in loop.watch(fd: $0, $1) }) ?? InlineHelper()
        orientation = PanelOrientation(scheduler: scheduler, say: { [log] in log.notice("\($0)") })
        orientation.apply(settings.current)
        content = ContentWatcher(scheduler: scheduler, log: log, register: { [loop] in loop.watch(fd: $0, $1) })
        let preparation = ScenePreparation.liveShell(settings: settings, store: store, scheduler: scheduler, helper: helper, voice: voice,
                                                     expected: display.expectedDisplayInfo, startInScreensaver: startInScreensaver, log: log)
        let window = Window(display: display, log: log)
        if let e = display.expectedDisplayInfo { window.prepareBuffer(logicalSize: e.size, scale: e.scale) }
        diagnostics = Diagnostics(log: log, window: window)
        var frame: () -> Image? = { nil }
        status = ServiceStatus(log: log, loop: loop, scheduler: scheduler, frame: { frame() })
        host = LiveHost(window: window, seat: display.seat, log: log, scheduler: scheduler, touchHealth: touchHealth, status: status,
                        saver: saver, diagnostics: diagnostics, startup: startup,
                        maintenanceKeys: { [settings] in settings.current.maintenanceKeys })
        frame = { [weak host] in host?.uprightFrame() }
        screenPower = ScreenPower(display: display, notifier: status.notifier, log: log)
        filePageTrim = FilePageTrim(log: log)
        connectWindow(window, preparation: preparation)
        diagnostics.watchGestures(scheduler: scheduler)
        loop.onSignal = { [weak self] sig in self?.signal(sig) }
        settings.apply = { [weak self] new, old in self?.apply(new, over: old) }
        settings.onReload = { [weak self] applied in self?.status.metrics.reloads[applied ? "applied" : "refused", default: 0] += 1 }
        settings.watch(scheduler: scheduler, register: { [loop] in loop.watch(fd: $0, $1) })
        status.readings = { [weak self] in self?.readings() }
        // Asked now, so that its first reading is in before the first frame.
        accelerometer = Accelerometer(scheduler: scheduler, register: { [loop] in loop.watch(fd: $0, $1) }, unregister: { [loop] in loop.unwatch(fd: $0) },
                                      report: { [orientation] in orientation.sensor($0) })
    }

    /// The window's events: its first size puts the prepared shell on stage; the first frame
    /// people see makes the service ready.
    private func connectWindow(_ window: Window, preparation: ScenePreparation) {
        display.onOutputsChanged = { [weak window] in window?.outputsChanged() }
        host.onSize = { [weak self] info in
            self?.logDisplay(info)
            self?.orientation.panel(landscape: info.size.width >= info.size.height)
        }
        host.onFirstSize = { [weak self] info in self?.start(preparation, info: info) }
        host.onShown = { [weak self] in
            self?.log.notice("kiosk \(kioskVersion) on screen")
            self?.status.ready()
            self?.filePageTrim.request()
            self?.diagnostics.logLabelledViews()
            self?.settings.reportUncoveredTexts()
        }
    }

    private func logDisplay(_ info: DisplayInfo) {
        log.info("display: \(info.size) pt, scale \(info.scale), rotation \(info.rotation)")
        let s = settings.current, others = s.visitorTexts.dropFirst().map(\.language.code)
        let choice = others.isEmpty ? "" : "; visitors may switch to \(others.joined(separator: ", "))"
        log.notice("language: \(s.language.code) (\(s.language.name))\(choice)")
    }

    func run() throws -> Int32 {
        do {
            return try loop.run(display: display) { [unowned self] in
                try host.window.renderIfNeeded(time: MonotonicClock.now())
                filePageTrim.trimIfDue(animating: running?.stage.needsFrame ?? false)
            }
        } catch {
            // Whatever ends the kiosk (the compositor gone, memory for a buffer refused), what a
            // visitor was doing is written first, the same way a clean shutdown writes it.
            log.info("saving state before exiting")
            stopping()
            throw error
        }
    }

    private func signal(_ sig: Int32) {
        switch sig {
        case SIGHUP: // settings
            settings.reload()
        case SIGUSR1: // one line of frame statistics, for an operator or a measurement
            diagnostics.logDrawStats()
        default:
            log.info("signal \(sig): shutting down")
            stopping()
            loop.stop(exitCode: 0)
        }
    }

    /// What a kiosk on its way out keeps: the visitor's state and the last metrics.
    private func stopping() {
        status.stopping(saving: saver.saveAll)
    }

    /// The window has its size: the prepared shell goes on stage, the controllers that decide
    /// what it shows start, every part follows it, and the settings apply — once.
    private func start(_ prep: ScenePreparation, info: DisplayInfo) {
        startup.mark("configured")
        let (shell, fonts) = prep.join()
        (helper as? HelperThread)?.startDelivering()
        startup.mark("scene ready")
        let current = settings.current
        let stage = host.putOnStage(shell, fonts: fonts, info: info, rotation: orientation.rotation, laidOutFor: prep.preparedInfo)
        orientation.onTurn = { [weak host] in host?.turn(to: $0) }
        let rules = ShowingRules(shell: shell, settings: current, scheduler: scheduler, touchHealth: touchHealth, log: log,
                                 inhibitIdle: { [weak window = host.window] in window?.setIdleInhibited($0) })
        let operatorScreens = OperatorScreensController(settings: settings, store: store, log: log, scheduler: scheduler, shell: shell,
                                                        stage: stage, fonts: fonts, isOpen: { [weak rules] in rules?.isOpen ?? true },
                                                        identity: { PanelIdentity.read() })
        operatorScreens.setup.onRelayout = { [weak self] in self?.scheduler.schedule(after: 0) { self?.diagnostics.logLabelledViews() } }
        running = Running(stage: stage, shell: shell, rules: rules, operatorScreens: operatorScreens, update: updateRestart(shell))
        follow(shell, stage: stage)
        content.onChange = { [weak self] key in
            guard let self, let running = self.running, let fonts = running.stage.fonts else { return }
            LiveScenes.remake(madeFrom: key, in: running.shell, settings: settings.current, fonts: fonts, scheduler: scheduler,
                              helper: helper, store: store, log: log)
        }
        apply(current, over: nil)
        operatorScreens.setup.startIfNeeded(startInScreensaver: startInScreensaver)
        status.shown()
        logLabelledViewsIfAwake()
    }

    /// Only a kiosk the unit runs restarts for an update (the unit starts it again); one started
    /// by hand or by a test is left alone.
    private func updateRestart(_ shell: Shell) -> UpdateRestart? {
        guard status.notifier != nil else { return nil }
        return UpdateRestart(shell: shell, scheduler: scheduler, log: log, register: { [loop] in loop.watch(fd: $0, $1) }) { [weak self] why in
            guard let self else { return }
            self.log.notice("\(why)")
            self.stopping()
            self.loop.stop(exitCode: 0)
        }
    }

    /// Every part that follows what the shell shows, told from now on.
    private func follow(_ shell: Shell, stage: Stage) {
        saver.scene = shell
        host.follow(shell)
        status.follow(shell)
        screenPower.follow(shell)
        filePageTrim.follow(shell)
        (diagnostics.stage, diagnostics.shell) = (stage, shell)
        shell.sceneChanged.add { [weak self] _ in self?.logLabelledViewsIfAwake() }
        shell.showingChanged.add { [weak self] _ in self?.logLabelledViewsIfAwake() }
    }

    /// Where the controls are (debug level), whenever a visitor could touch them.
    private func logLabelledViewsIfAwake() {
        guard let shell = running?.shell, !shell.showing.isScreensaver && !shell.showing.isClosed else { return }
        diagnostics.logLabelledViews()
    }

    /// What the metrics file reads from the running kiosk.
    private func readings() -> KioskMetrics.Readings? {
        guard let running else { return nil }
        let now = MonotonicClock.now()
        return KioskMetrics.Readings(frameDraw: running.stage.drawTimes, open: running.rules.isOpen,
                                     residentBytes: currentRSSKiB() * 1024, saveFailures: store.saveFailures,
                                     touch: .init(ignored: touchHealth.ignored, stuck: touchHealth.stuck,
                                                  present: touchHealth.touchscreenPresent ?? false,
                                                  quietOpenSeconds: touchHealth.quietOpenSeconds(now: now)),
                                     clockSynchronized: running.rules.clock.isTrusted, identity: PanelIdentity.read())
    }

    /// Settings, at start (`old` nil) and live on every reload, handed to every part. Scenes
    /// whose settings changed are saved and rebuilt (they keep their state); only the start
    /// scene waits for the next start.
    private func apply(_ new: Settings, over old: Settings?) {
        guard let running else { return }
        running.rules.apply(new, over: old)
        if let old, new.maintenanceKeys != old.maintenanceKeys {
            log.notice("[admin] maintenance_keys is now \(new.maintenanceKeys): F12 \(new.maintenanceKeys ? "shows" : "no longer shows") the frame statistics at once; the system's keys follow at systemctl restart kiosk-keys")
        }
        if let old, let fonts = running.stage.fonts {
            LiveScenes.apply(new, over: old, to: running.shell, overrides: settings.overrides, fonts: fonts, scheduler: scheduler,
                             helper: helper, store: store, log: log)
        }
        content.follow(new)
        status.apply(new)
        voice.device = new.soundDevice
        voice.manner = Voice.Manner(wordsPerMinute: Int(new.speechRate), volume: Int(new.speechVolume))
        running.stage.showsStats = new.stats
        running.stage.apply(new)
        orientation.apply(new)
    }
}
