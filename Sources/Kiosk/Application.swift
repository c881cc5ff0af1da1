import Logging
#if canImport(Glibc)
import Glibc
#endif
import KioskCore
import KioskRender
import KioskUI
import KioskScenes
import KioskPlatform

/// The live kiosk: a Wayland window showing a scene, fed by the seat, paced by frame callbacks.
final class Application: WindowDelegate, InputSink {
    private let log: Logger
    private let loop: EventLoop
    private let display: Display
    private let window: Window
    private var preparation: ScenePreparation?
    private let scheduler: LoopScheduler
    private var stage: Stage?
    private let startNS: UInt64
    /// Run in order on SIGTERM/SIGINT before the process exits (saved state hangs off this).
    var shutdownHooks: [() -> Void] = []

    private let store: StateStore
    /// systemd's notification socket, when the kiosk runs as a service.
    private let notifier = SystemdNotifier()

    /// `WATCHDOG=1` from the event loop's own timer: a loop that hangs stops the pings, and
    /// systemd restarts the unit. Never from another thread, which would ping on regardless.
    private func pingWatchdog(every interval: Double) {
        loop.schedule(after: interval) { [weak self] in
            self?.notifier?.send("WATCHDOG=1")
            self?.pingWatchdog(every: interval)
        }
    }

    /// What `STATUS=` says: the scene on screen, or the screensaver.
    private var statusLine: String {
        guard let shell = stage?.scene as? Shell else { return "running" }
        return shell.showingScreensaver ? "screensaver" : "showing \(shell.currentName)"
    }

    /// Makes scenes by name with `settings` (theme folder: the setting, else `$KIOSK_THEME_DIR`).
    static func sceneMaker(settings: Settings, fonts: FontCache, scheduler: Scheduler, store: StateStore, log: Logger) -> (String) -> Scene {
        let theme = settings.theme ?? getenv("KIOSK_THEME_DIR").map { String(cString: $0) }
        return { n in
            SceneCatalog.make(n, fonts: fonts, scheduler: scheduler, store: store, themeDirectory: theme,
                              settings: settings, report: { log.warning("\($0)") })!
        }
    }

    private let configPath: String?
    private let overrides: Overrides
    private var settings: Settings

    /// Settings from the file (problems reported once each), then what was changed on the admin
    /// panel, then the command line on top. A file refused as a whole (unreadable, not TOML)
    /// gives the defaults at start, and nil on a reload: the kiosk keeps what it has.
    static func loadSettings(configPath: String?, overrides: Overrides, store: StateStore?, log: Logger,
                             reloading: Bool = false) -> Settings? {
        var s = Settings()
        if let path = configPath ?? Settings.defaultPath() {
            let (loaded, problems) = Settings.read(path: path)
            for p in problems { log.warning("\(p)") }
            if let loaded { s = loaded } else if reloading {
                log.warning("\(path) not applied: the kiosk keeps the settings it has")
                return nil
            }
        }
        if let store, let panel = store.load(PanelSettings.self, name: "admin"), !panel.isEmpty {
            panel.apply(to: &s)
            log.info("settings changed on the admin panel (\(store.path("admin"))) win over the file")
        }
        overrides.apply(to: &s)
        return s
    }

    init(configPath: String?, overrides: Overrides, startInScreensaver: Bool, log: Logger, startNS: UInt64) throws {
        self.configPath = configPath
        self.overrides = overrides
        let store = StateStore(report: { log.warning("\($0)") })
        store.prepare()
        settings = Application.loadSettings(configPath: configPath, overrides: overrides, store: store, log: log)!
        let sceneName = overrides.scene
        let rotation = settings.rotate
        self.log = log
        self.startNS = startNS
        // The event loop first: it blocks the signals it handles, which every thread started
        // after it (the scene preparation below) inherits.
        loop = try EventLoop(log: log)
        scheduler = LoopScheduler(loop: loop)
        display = try Display(log: log, loop: loop)
        log.debug("startup: connected at \(Double(MonotonicClock.nanoseconds() - startNS) / 1e6) ms")
        var name = settings.start
        if let requested = sceneName {
            if let n = SceneCatalog.canonicalName(requested) { name = n } else {
                log.warning("unknown scene '\(requested)' (known: \(SceneCatalog.names.joined(separator: ", "))): showing '\(SceneCatalog.defaultName)'")
            }
        } else if let saved = store.load(ShellSaved.self, name: "shell"), let n = SceneCatalog.canonicalName(saved.scene) {
            name = n // where the kiosk was at its last shutdown
        }
        self.store = store
        let expected = display.expectedDisplayInfo.map { Stage.rotated($0, rotation) }
        let settings = self.settings
        let scheduler = self.scheduler
        let names = settings.scenes.contains(name) ? settings.scenes : settings.scenes + [name]
        let prep = ScenePreparation(info: expected, log: log) { fonts in
            let shell = Shell(names: names, start: name, fonts: fonts, scheduler: scheduler, idleTimeout: settings.idleTimeout,
                              startInScreensaver: startInScreensaver, store: store,
                              make: Application.sceneMaker(settings: settings, fonts: fonts, scheduler: scheduler, store: store, log: log))
            shell.showsSceneBar = settings.sceneBar
            shell.adminCorner = settings.adminGesture
            return shell
        }
        prep.start()
        preparation = prep
        window = Window(display: display, log: log)
        window.preRotates = settings.rotate != 0
        if let e = display.expectedDisplayInfo { window.prepareBuffer(logicalSize: e.size, scale: e.scale) }
        window.delegate = self
        display.seat?.sink = self
        display.onOutputsChanged = { [weak window] in window?.outputsChanged() }
        window.onFirstFrame = { [log, startNS] in
            let now = MonotonicClock.nanoseconds()
            log.info("first frame committed: \(Double(now - startNS) / 1e6) ms after start (monotonic \(now) ns)")
        }
        window.onFirstFrameShown = { [weak self, log, startNS] in
            log.info("first frame shown: \(Double(MonotonicClock.nanoseconds() - startNS) / 1e6) ms after start")
            // Ready once people can see it: the unit's start waits for this.
            self?.notifier?.send("READY=1", "STATUS=\(self?.statusLine ?? "running")")
        }
        if let interval = notifier?.watchdogInterval { pingWatchdog(every: interval) }
        loop.onSignal = { [weak self] sig in self?.signal(sig) }
        // A change of the settings file reloads it, like SIGHUP.
        settingsWatcher = FileWatcher(paths: configPath.map { [$0] } ?? Settings.candidatePaths(), scheduler: scheduler,
                                      report: { log.debug("\($0)") }, register: { [loop] in loop.watch(fd: $0, $1) }) { [weak self] in
            self?.log.info("settings file changed")
            self?.reloadSettings()
        }
    }
    private var settingsWatcher: FileWatcher?

    func run() throws -> Int32 {
        do {
            return try loop.run(display: display) {
                try window.renderIfNeeded(time: MonotonicClock.now())
            }
        } catch {
            // Whatever ends the kiosk (the compositor gone, memory for a buffer refused), what a
            // visitor was doing is written first, the same way a clean shutdown writes it.
            log.info("saving state before exiting")
            notifier?.send("STOPPING=1")
            saveAll()
            throw error
        }
    }

    /// Every scene's state and the shell's, then the shutdown hooks.
    private func saveAll() {
        stage?.scene.saveState()
        for hook in shutdownHooks { hook() }
    }

    private func signal(_ sig: Int32) {
        switch sig {
        case 1: // SIGHUP
            reloadSettings()
        case 10: // SIGUSR1: one line of frame statistics, for an operator or a measurement
            logDrawStats()
        default:
            log.info("signal \(sig): shutting down")
            notifier?.send("STOPPING=1")
            saveAll()
            loop.stop(exitCode: 0)
        }
    }

    // MARK: WindowDelegate

    func window(_ window: Window, didChange info: DisplayInfo) {
        log.info("display: \(info.size) pt, scale \(info.scale), rotation \(info.rotation * 90)°")
        stage?.setBufferRotation(window.bufferRotation)
        if let stage { stage.relayout(info) } else if let prep = preparation {
            logPhase("configured")
            let (scene, fonts) = prep.join()
            logPhase("scene ready")
            stage = Stage(scene: scene, info: info, rotation: settings.rotate, laidOutFor: prep.preparedInfo)
            stage?.setBufferRotation(window.bufferRotation)
            stage?.fonts = fonts
            stage?.showsStats = settings.stats
            if let shell = scene as? Shell {
                shell.onAdminGesture = { [weak self] in self?.openAdminPanel() }
                shell.onScreensaverChange = { [weak self] on in
                    self?.screensaverChanged(on)
                    self?.notifier?.send("STATUS=\(self?.statusLine ?? "")")
                }
                shell.onSceneChange = { [weak self] _ in self?.notifier?.send("STATUS=\(self?.statusLine ?? "")") }
                if shell.showingScreensaver { screensaverChanged(true) }
            }
            preparation = nil
        }
    }

    func windowNeedsFrame(_ window: Window) -> Bool { stage?.needsFrame ?? false }

    func window(_ window: Window, advanceTo time: Double) { stage?.advance(to: time) }

    func windowTakeDamage(_ window: Window) -> Region { stage?.takeDamage() ?? Region() }

    func window(_ window: Window, draw canvas: Canvas) {
        stage?.draw(in: canvas)
        if window.framesPresented == 0 { logPhase("first frame drawn") }
    }

    /// Startup timing at debug level: where the time to the first frame goes.
    private func logPhase(_ what: String) {
        if log.logLevel <= .debug {
            log.debug("startup: \(what) at \(Double(MonotonicClock.nanoseconds() - startNS) / 1e6) ms")
        }
    }

    private var statsSince = MonotonicClock.now()
    private var statsPresented = (presented: 0, discarded: 0)
    private func logDrawStats() {
        let now = MonotonicClock.now(), span = max(1e-3, now - statsSince)
        statsSince = now
        guard let d = stage?.takeDrawStats() else { return }
        let mean = d.frames > 0 ? d.seconds / Double(d.frames) * 1000 : 0
        // What the compositor reported showing (wp_presentation), since the last line.
        let p = window.presentation, shown = p.presented - statsPresented.presented, dropped = p.discarded - statsPresented.discarded
        statsPresented = p
        let seen = window.offersPresentationFeedback ? ", \(shown) shown (\(String(format2: Double(shown) / span)) fps), \(dropped) discarded" : ""
        log.info("stats: \(d.frames) frames in \(String(format2: span)) s (\(String(format2: Double(d.frames) / span)) fps)\(seen), draw mean \(String(format2: mean)) ms, longest \(String(format2: d.longest * 1000)) ms, peak RSS \(peakRSSKiB() / 1024) MiB")
    }

    /// While the screensaver runs, the screen may blank after `blank_delay` seconds (0: never):
    /// the idle inhibitor is released then and taken back when someone wakes the kiosk.
    private var blankTimer: ScheduledTimer?
    private func screensaverChanged(_ on: Bool) {
        blankTimer?.cancel()
        blankTimer = nil
        if on, settings.blankDelay > 0 {
            blankTimer = scheduler.schedule(after: settings.blankDelay) { [weak self] in
                self?.log.info("screensaver: letting the screen blank")
                self?.window.setIdleInhibited(false)
            }
        } else if !on {
            window.setIdleInhibited(true)
        }
    }

    /// SIGHUP or a change of the file: re-reads the settings and applies them live. Scenes
    /// whose settings changed are saved and rebuilt (they keep their state); only the start
    /// scene and the blank delay of a screensaver already running wait for the next start.
    private func reloadSettings() {
        guard let new = Application.loadSettings(configPath: configPath, overrides: overrides, store: store, log: log, reloading: true) else { return }
        log.notice("settings reloaded")
        let old = settings
        settings = new
        guard let stage else { return }
        if let shell = stage.scene as? Shell {
            shell.idleTimeout = new.idleTimeout
            shell.showsSceneBar = new.sceneBar
            shell.adminCorner = new.adminGesture
            var rebuild = Set<String>()
            if new.words != old.words { rebuild.insert("words") }
            if new.padSide != old.padSide { rebuild.insert("lander") }
            if new.theme != old.theme { rebuild.formUnion(["lander", "tiles"]) }
            if let fonts = stage.fonts, new.scenes != old.scenes || !rebuild.isEmpty {
                // A scene asked for on the command line stays reachable, as at start.
                let asked = overrides.scene.flatMap(SceneCatalog.canonicalName)
                let names = asked.map { new.scenes.contains($0) ? new.scenes : new.scenes + [$0] } ?? new.scenes
                shell.reconfigure(names: names, rebuild: rebuild,
                                  make: Application.sceneMaker(settings: new, fonts: fonts, scheduler: scheduler, store: store, log: log))
            }
        }
        stage.showsStats = new.stats
        stage.setRotation(new.rotate)
        window.preRotates = new.rotate != 0
    }

    // MARK: Admin panel

    /// The PIN's wrong tries and rest, across every panel this kiosk opens.
    private let adminLock = AdminLock()

    private func openAdminPanel() {
        guard let stage, let shell = stage.scene as? Shell, let fonts = stage.fonts else { return }
        log.notice("admin panel opened")
        let panel = AdminPanel(fonts: fonts, scheduler: scheduler, settings: settings, lock: adminLock) { [weak self] outcome in
            // After the touch that chose it has been delivered, not in the middle of it.
            self?.scheduler.schedule(after: 0) { self?.adminPanelClosed(outcome) }
        }
        shell.showOverlay(panel)
    }

    private func adminPanelClosed(_ outcome: AdminPanel.Outcome) {
        guard let shell = stage?.scene as? Shell else { return }
        shell.closeOverlay()
        switch outcome {
        case .cancel:
            log.notice("admin panel closed")
        case .save(let changes):
            let kept = (store.load(PanelSettings.self, name: "admin") ?? PanelSettings()).merged(with: changes)
            store.save(kept, name: "admin")
            log.notice("admin panel: settings saved to \(store.path("admin"))")
            reloadSettings()
        case .useFile:
            store.save(PanelSettings(), name: "admin")
            log.notice("admin panel: back to the settings file")
            reloadSettings()
        }
    }

    /// Saves a few seconds after input changed something, so a power cut loses at most those
    /// seconds; bursts of input collapse into one save.
    private var saveTimer: ScheduledTimer?
    /// `KIOSK_SAVE_DELAY` (seconds) shortens it for the kill -9 tests, which want saves in flight.
    static let saveDelay: Double = getenv("KIOSK_SAVE_DELAY").flatMap { Double(String(cString: $0)) }.map { max(0.01, min($0, 60)) } ?? 3.0
    private func saveSoon() {
        guard saveTimer == nil else { return }
        saveTimer = scheduler.schedule(after: Application.saveDelay) { [weak self] in
            self?.saveTimer = nil
            self?.stage?.scene.saveState()
        }
    }

    // MARK: InputSink

    func handle(_ batch: TouchBatch) {
        if log.logLevel <= .debug {
            let desc = batch.points.map { "\($0.id) \($0.phase.rawValue) \(format($0.location.x)),\(format($0.location.y))" }.joined(separator: "; ")
            log.debug("touch: \(desc)")
        }
        guard let stage else { return }
        stage.scene.handle(stage.toScene(batch), at: MonotonicClock.now())
        saveSoon()
    }

    func handle(_ key: KeyEvent) {
        log.debug("key \(key.pressed ? "pressed" : "released"): keysym=0x\(String(key.keysym, radix: 16)) text=\(key.text.debugDescription)\(key.isRepeat ? " (repeat)" : "")")
        guard let stage else { return }
        if key.pressed && key.keysym == Stage.statsKeysym {
            stage.showsStats.toggle()
        } else {
            stage.scene.handle(key, at: MonotonicClock.now())
        }
        saveSoon()
    }
}
