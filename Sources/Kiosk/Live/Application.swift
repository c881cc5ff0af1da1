#if canImport(Glibc)
import Glibc
#endif
import KioskCore
import KioskRender
import KioskUI
import KioskPlatform
import KioskVoice

/// The live kiosk: a Wayland window showing a scene, fed by the seat, paced by frame callbacks.
final class Application: WindowDelegate, InputSink {
    private let log: Logger
    private let loop: EventLoop
    private let display: Display
    private let window: Window
    private var preparation: ScenePreparation?
    private let scheduler: LoopScheduler
    /// What runs once the window has its size, built once (`start`).
    private var running: Running?
    private struct Running {
        let stage: Stage
        let shell: Shell
        let screensaver: ScreensaverController
        let openingHours: OpeningHoursController
        let clock: ClockTrust
        let setup: SetupController
    }
    private var stage: Stage? { running?.stage }
    private var shell: Shell? { running?.shell }
    private let startNS: UInt64
    private let startInScreensaver: Bool
    private let store: StateStore
    private let settings: SettingsController
    let saver: StateSaver
    /// The fleet's numbers, and the file node_exporter reads them from (`[metrics] textfile`).
    private let metrics = KioskMetrics(startTime: wallClockNow())
    private var metricsFile: MetricsTextfile?
    /// Pictures of the screen: for `kiosk screenshot`, and kept for a fleet (`[metrics] screenshot`).
    private var screenshotSocket: ScreenshotSocket?
    private var screenshotFile: ScreenshotFile?
    /// systemd's notification socket, when the kiosk runs as a service.
    private let notifier = SystemdNotifier()
    /// What speech says, spoken off the frame loop (no thread until speech is first heard).
    private let voice: Voice
    /// Gestures and controls at debug level, frame statistics on SIGUSR1.
    private lazy var diagnostics = Diagnostics(log: log, window: window)
    /// Between the seat and the shell: contacts nobody made stop here (`TouchFilter`).
    private let touchFilter: TouchFilter
    /// What the touchscreen does, told to the journal and the metrics.
    private let touchHealth: TouchHealth

    /// `WATCHDOG=1` from the event loop's own timer: a loop that hangs stops the pings, and
    /// systemd restarts the unit. Never from another thread, which would ping on regardless.
    private func pingWatchdog(every interval: Double) {
        loop.schedule(after: interval) { [weak self] in
            self?.notifier?.send("WATCHDOG=1")
            self?.pingWatchdog(every: interval)
        }
    }

    /// What `STATUS=` says: the scene on screen, the screensaver, closing time.
    private var statusLine: String {
        guard let shell else { return "running" }
        switch shell.showing {
        case .closed: return "closed (outside the opening hours)"
        case .afterHoursWake: return "closed (screensaver for a visitor)"
        case .screensaver: return "screensaver"
        case .blank: return "screen off (nobody here)"
        case .admin(let overlay) where overlay is SetupScene: return "setting up the panel"
        case .scene, .admin: return "showing \(shell.currentName)"
        }
    }

    /// Makes scenes by name with `settings` (theme folder: the setting, else `$KIOSK_THEME_DIR`).
    static func sceneMaking(settings: Settings, fonts: FontCache, scheduler: Scheduler, store: StateStore, log: Logger) -> SceneMaking {
        let theme = settings.theme ?? getenv("KIOSK_THEME_DIR").map { String(cString: $0) }
        return SceneMaking(fonts: fonts, scheduler: scheduler, store: store, themeDirectory: theme,
                           settings: settings, report: { log.warning("\($0)") })
    }

    /// The scenes this kiosk has.
    static let catalog = SceneCatalog.standard

    init(configPath: String?, overrides: Overrides, startInScreensaver: Bool, log: Logger, startNS: UInt64) throws {
        let store = StateStore(report: { log.warning("\($0)") })
        store.prepare()
        let settings = SettingsController(configPath: configPath, overrides: overrides, store: store, log: log)
        self.settings = settings
        let sceneName = overrides.scene
        let rotation = settings.current.rotate
        self.log = log
        self.startNS = startNS
        self.startInScreensaver = startInScreensaver
        // The event loop first: it blocks the signals it handles, which every thread started
        // after it (the scene preparation below) inherits.
        loop = try EventLoop(log: log)
        scheduler = LoopScheduler(loop: loop)
        saver = StateSaver(scheduler: scheduler)
        touchFilter = TouchFilter(scheduler: scheduler)
        touchHealth = TouchHealth(scheduler: scheduler, log: { [log] in log.notice("\($0)") }, warn: { [log] in log.warning("\($0)") })
        display = try Display(log: log, loop: loop)
        log.debug("startup: connected at \(Double(MonotonicClock.nanoseconds() - startNS) / 1e6) ms")
        var name = settings.current.start
        if let requested = sceneName {
            if let n = Self.catalog.canonicalName(requested) { name = n } else {
                log.warning("unknown scene '\(requested)' (known: \(Self.catalog.names.joined(separator: ", "))): showing '\(name)'")
            }
        } else if let saved = store.load(ShellSaved.self, name: "shell"), let n = Self.catalog.canonicalName(saved.scene) {
            name = n // where the kiosk was at its last shutdown
        }
        self.store = store
        let expected = display.expectedDisplayInfo
        let current = settings.current
        let scheduler = self.scheduler
        let names = current.scenes.contains(name) ? current.scenes : current.scenes + [name]
        let voice = Voice(device: current.soundDevice, log: log)
        self.voice = voice
        // Laid out as the stage will show it: rotated, and large if the shell asks for it.
        let prep = ScenePreparation(info: { scene in expected.map { Stage.sceneInfo($0, rotation: rotation, large: scene.prefersLargeDisplay) } },
                                    log: log) { fonts in
            // The settings apply before the first layout: the bar decides where the scene's content goes.
            Shell.make(Application.sceneMaking(settings: current, fonts: fonts, scheduler: scheduler, store: store, log: log),
                       names: names, start: name, home: Application.home(current, overrides), catalog: Application.catalog,
                       startInScreensaver: startInScreensaver) { shell in
                // Spoken, and listed in the debug log (what was said, for an operator and the tests).
                shell.window.screenReader.speak = { [log] u in
                    log.debug("speech (\(u.language)): \(u.text)")
                    voice.say(u.text, language: u.language)
                }
                shell.window.screenReader.silence = { voice.stop() }
            }
        }
        prep.start()
        preparation = prep
        window = Window(display: display, log: log)
        if let e = display.expectedDisplayInfo { window.prepareBuffer(logicalSize: e.size, scale: e.scale) }
        window.delegate = self
        display.seat?.sink = self
        if let seat = display.seat {
            if let present = seat.hasTouch { touchHealth.touchscreen(present: present) }
        } else {
            touchHealth.touchscreen(present: false)
        }
        wireTouchFilter()
        display.onOutputsChanged = { [weak window] in window?.outputsChanged() }
        window.onFirstFrame = { [log, startNS] in
            let now = MonotonicClock.nanoseconds()
            // All threads' CPU since exec: on a two-core panel the start is bound by it.
            var cpu = timespec()
            clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &cpu)
            let cpuMS = Double(cpu.tv_sec) * 1e3 + Double(cpu.tv_nsec) / 1e6
            log.info("first frame committed: \(Double(now - startNS) / 1e6) ms after start (monotonic \(now) ns; \(cpuMS) ms of CPU since exec)")
        }
        window.onFirstFrameShown = { [weak self, log, startNS] in
            log.info("first frame shown: \(Double(MonotonicClock.nanoseconds() - startNS) / 1e6) ms after start")
            // Ready once people can see it: the unit's start waits for this.
            self?.notifier?.send("READY=1", "STATUS=\(self?.statusLine ?? "running")")
            self?.requestFilePageTrim()
            self?.diagnostics.logLabelledViews()
            self?.settings.reportUncoveredTexts()
        }
        if let interval = notifier?.watchdogInterval { pingWatchdog(every: interval) }
        diagnostics.watchGestures(scheduler: scheduler)
        loop.onSignal = { [weak self] sig in self?.signal(sig) }
        screenshotSocket = ScreenshotSocket(log: log) { [weak self] in self?.uprightFrame() }
        if let s = screenshotSocket { loop.watch(fd: s.fd) { [weak s] in s?.accept() } }
        settings.apply = { [weak self] new, old in self?.apply(new, over: old) }
        settings.onReload = { [weak self] applied in self?.metrics.reloads[applied ? "applied" : "refused", default: 0] += 1 }
        settings.watch(scheduler: scheduler, register: { [loop] in loop.watch(fd: $0, $1) })
    }

    /// When unmodified file pages are next handed back (`FilePages`), monotonic ns.
    private var filePageTrimDue: UInt64?
    /// After start-up, and whenever the kiosk settles into the screensaver or a dark screen for
    /// what may be hours, the code it ran to get there is handed back: 3 s later while frames
    /// are drawn (the screensaver's first labels load fonts), at once when nothing moves. Never
    /// on a wakeup of its own: an idle kiosk stays asleep.
    private func requestFilePageTrim() {
        filePageTrimDue = MonotonicClock.nanoseconds() + 3_000_000_000
    }

    private func trimFilePagesIfDue() {
        guard let due = filePageTrimDue, MonotonicClock.nanoseconds() >= due || !(stage?.needsFrame ?? false) else { return }
        filePageTrimDue = nil
        let mappings = FilePages.droppable()
        // Logged first: formatting the line runs code that is then dropped with the rest.
        log.debug("returning \(mappings.reduce(0) { $0 + $1.residentKiB }) KiB of unmodified file pages (monotonic \(MonotonicClock.nanoseconds()) ns)")
        FilePages.drop(mappings)
    }

    func run() throws -> Int32 {
        do {
            return try loop.run(display: display) { [unowned self] in
                try window.renderIfNeeded(time: MonotonicClock.now())
                trimFilePagesIfDue()
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
        notifier?.send("STOPPING=1")
        saver.saveAll()
        metricsFile?.write()
    }

    // MARK: WindowDelegate

    func window(_ window: Window, didChange info: DisplayInfo) {
        log.info("display: \(info.size) pt, scale \(info.scale), rotation \(info.rotation)")
        let s = settings.current, others = s.visitorTexts.dropFirst().map(\.language.code)
        let choice = others.isEmpty ? "" : "; visitors may switch to \(others.joined(separator: ", "))"
        log.notice("language: \(s.language.code) (\(s.language.name))\(choice)")
        if let stage {
            stage.setBufferRotation(window.bufferRotation)
            stage.relayout(info)
        } else if let prep = preparation {
            preparation = nil
            start(prep, info: info)
        }
    }

    /// The window has its size: the prepared shell goes on stage, the controllers that decide
    /// what it shows start, and the settings apply — once.
    private func start(_ prep: ScenePreparation, info: DisplayInfo) {
        logPhase("configured")
        let (shell, fonts) = prep.join()
        logPhase("scene ready")
        let current = settings.current
        let stage = Stage(scene: shell, info: info, rotation: current.rotate, laidOutFor: prep.preparedInfo)
        stage.setBufferRotation(window.bufferRotation)
        stage.fonts = fonts
        stage.onLargeModeChange = { [weak self, unowned stage] in
            let i = stage.info
            self?.log.info("large mode \(i.isLarge ? "on" : "off"): the scene laid out at \(format(i.size.width))x\(format(i.size.height)) points, scale \(i.scale)")
            self?.diagnostics.logLabelledViews()
        }
        if stage.isLarge { stage.onLargeModeChange?() } // the site's default, from the start
        saver.scene = shell
        shell.onAdminGesture = { [weak self] in self?.openAdminPanel() }
        shell.onLanguageChange = { [weak self] l in
            self?.log.notice("language: \(l.code) (\(l.name)), chosen by a visitor")
            self?.metrics.languagesChosen[l.code, default: 0] += 1
        }
        shell.onSceneChange = { [weak self] name in
            self?.log.notice("scene: \(name)")
            self?.metrics.sceneSwitches += 1
            self?.shown()
        }
        // The blank delay at once: a kiosk started in the screensaver starts its timer here.
        let screensaver = ScreensaverController(shell: shell, scheduler: scheduler, idleTimeout: current.idleTimeout,
                                                blankDelay: current.blankDelay, log: { [log] in log.notice("\($0)") },
                                                inhibitIdle: { [weak window] in window?.setIdleInhibited($0) })
        screensaver.onChange = { [weak self] old in self?.showingChanged(from: old) }
        screensaver.onDark = { [weak self] dark in
            guard let self else { return }
            self.setPanelPowered(!dark)
            if dark { self.requestFilePageTrim() }
        }
        let clock = ClockTrust(scheduler: scheduler)
        let hours = OpeningHoursController(hours: current.hours, scheduler: scheduler, clockTrusted: clock.isTrusted) { [weak self, weak screensaver] open in
            self?.log.notice(open ? "opening hours: open" : "opening hours: closed, the screen goes black")
            self?.touchHealth.opening(open, now: MonotonicClock.now())
            screensaver?.openingHoursChanged(open: open)
        }
        touchHealth.opening(hours.isOpen, now: MonotonicClock.now())
        reportClock(clock)
        clock.onTrusted = { [weak self, weak hours, weak clock] in
            guard let clock else { return }
            self?.log.notice("clock: \(clock.reason?.rawValue ?? "believed"): the opening hours apply from now")
            hours?.clockTrusted = true
        }
        screensaver.isOpen = { [weak hours] in hours?.isOpen ?? true }
        let setup = SetupController(settings: settings, store: store, log: log, scheduler: scheduler, shell: shell, stage: stage,
                                    fonts: fonts, close: { [weak self] then in self?.closeOverlay(then: then) })
        setup.onRelayout = { [weak self] in self?.scheduler.schedule(after: 0) { self?.diagnostics.logLabelledViews() } }
        running = Running(stage: stage, shell: shell, screensaver: screensaver, openingHours: hours, clock: clock, setup: setup)
        (diagnostics.stage, diagnostics.shell) = (stage, shell)
        apply(current, over: nil)
        setup.startIfNeeded(startInScreensaver: startInScreensaver)
        shown()
    }

    /// Whether the opening hours can trust the clock, said once at start (`apply` says when
    /// hours wait for it).
    private func reportClock(_ clock: ClockTrust) {
        if let reason = clock.reason {
            log.info("clock: \(reason.rawValue)")
        } else {
            log.info("clock: the system clock is not synchronised (no NTP, and no real-time clock set it at boot); asked again every \(Int(ClockTrust.interval)) s")
        }
    }

    /// At closing the panel itself goes off, by the best means the compositor offers (said
    /// once, with why the better ones are not used), and on again for a visitor or at opening.
    private func setPanelPowered(_ on: Bool) {
        // Why this means is used is said at the first closing (an "on" before it, for a visitor
        // at start, says nothing).
        let explain = !on && !panelPowerExplained
        if explain { panelPowerExplained = true }
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
    private var panelPowerExplained = false

    /// What the screen shows changed (`Shell.showing`; `old` before): the journal, the
    /// metrics and the service's status say so.
    private func showingChanged(from old: Showing) {
        guard let shell else { return }
        // A finger down across the change acts on nothing that comes after it: ended once the
        // touch that may have made the change has been delivered.
        let change = MonotonicClock.now()
        scheduler.schedule(after: 0) { [weak self] in self?.touchFilter.cancelAll(beganBefore: change, at: MonotonicClock.now()) }
        // The black after `blank_delay` is still the screensaver's time: it ends when someone comes.
        let asleep = { (s: Showing) in s.isScreensaver || s == .blank }
        if asleep(old) != asleep(shell.showing) {
            log.notice(asleep(shell.showing) ? "screensaver started" : "screensaver ended")
            if asleep(shell.showing) { metrics.screensaverActivations += 1; requestFilePageTrim() }
        }
        shown()
    }

    func windowNeedsFrame(_ window: Window) -> Bool { stage?.needsFrame ?? false }

    func window(_ window: Window, advanceTo time: Double) {
        stage?.advance(to: time)
        diagnostics.recordFlight(at: time)
    }

    func windowTakeDamage(_ window: Window) -> Region { stage?.takeDamage() ?? Region() }

    func window(_ window: Window, draw canvas: Canvas) {
        stage?.draw(in: canvas)
        if window.framesPresented == 0 { logPhase("first frame drawn") }
        screenshotFile?.framePresented()
    }

    /// What the window last showed, turned upright as a visitor sees the panel: the buffer's
    /// turn (a rotated output) and the kiosk's own rotation undone.
    private func uprightFrame() -> Image? {
        guard let stage else { return nil }
        return window.copyOfPresentedFrame(turnedBy: stage.rotation.then(stage.bufferRotation).inverse)
    }

    /// Startup timing at debug level: where the time to the first frame goes.
    private func logPhase(_ what: String) {
        if log.logLevel <= .debug {
            log.debug("startup: \(what) at \(Double(MonotonicClock.nanoseconds() - startNS) / 1e6) ms")
        }
    }

    /// The scene a fresh start shows: one asked for on the command line is this run's start.
    static func home(_ s: Settings, _ overrides: Overrides) -> String {
        overrides.scene.flatMap(catalog.canonicalName) ?? s.start
    }

    /// Settings, at start (`old` nil) and live on every reload. Scenes whose settings changed
    /// are saved and rebuilt (they keep their state); only the start scene waits for the next
    /// start.
    private func apply(_ new: Settings, over old: Settings?) {
        guard let running else { return }
        running.screensaver.idleTimeout = new.idleTimeout
        running.screensaver.accessibleIdleTimeout = new.accessIdleTimeout
        running.screensaver.blankDelay = new.blankDelay
        running.screensaver.afterHoursWake = new.afterHoursWake
        running.openingHours.hours = new.hours
        if !running.clock.isTrusted && !new.hours.isAlwaysOpen && old?.hours.isAlwaysOpen ?? true {
            log.warning("opening hours: not applied while the system clock is not synchronised: the kiosk stays open (docs/unattended.md, \"The clock\")")
        }
        if let old, new.maintenanceKeys != old.maintenanceKeys {
            log.notice("[admin] maintenance_keys is now \(new.maintenanceKeys): F12 \(new.maintenanceKeys ? "shows" : "no longer shows") the frame statistics at once; the system's keys follow at systemctl restart kiosk-keys")
        }
        if let old {
            running.shell.apply(new, home: Application.home(new, settings.overrides))
            rebuildScenes(new, over: old)
        }
        if new.metricsTextfile != metricsFile?.path { setMetricsFile(new.metricsTextfile) }
        if new.metricsScreenshot != screenshotFile?.path || new.metricsScreenshotInterval != screenshotFile?.interval {
            setScreenshotFile(new.metricsScreenshot, interval: new.metricsScreenshotInterval)
        }
        voice.device = new.soundDevice
        voice.manner = Voice.Manner(wordsPerMinute: Int(new.speechRate), volume: Int(new.speechVolume))
        running.stage.showsStats = new.stats
        running.stage.apply(new)
    }

    private func rebuildScenes(_ new: Settings, over old: Settings) {
        guard let shell, let fonts = stage?.fonts else { return }
        let rebuild = Self.catalog.changed(from: old, to: new)
        guard new.scenes != old.scenes || !rebuild.isEmpty else { return }
        // A scene asked for on the command line stays reachable, as at start.
        let asked = settings.overrides.scene.flatMap(Self.catalog.canonicalName)
        let names = asked.map { new.scenes.contains($0) ? new.scenes : new.scenes + [$0] } ?? new.scenes
        let making = Application.sceneMaking(settings: new, fonts: fonts, scheduler: scheduler, store: store, log: log)
        shell.reconfigure(names: names, rebuild: rebuild, make: { Self.catalog.make($0, making)! })
    }

    // MARK: Fleet metrics

    /// Tells the metrics and the service's status what is on screen now: a scene, the
    /// screensaver, or closing time's black.
    private func shown() {
        guard let shell else { return }
        metrics.showing(shell.showingScreensaver ? "screensaver" : shell.isClosed ? "closed" : shell.showing == .blank ? "blank" : shell.currentName, now: MonotonicClock.now())
        notifier?.send("STATUS=\(statusLine)")
        if !shell.showing.isScreensaver && !shell.showing.isClosed { diagnostics.logLabelledViews() }
    }

    private func setMetricsFile(_ path: String?) {
        metricsFile?.stop()
        metricsFile = nil
        guard let path else { return }
        let file = MetricsTextfile(path: path, scheduler: scheduler, report: { [log] in log.warning("\($0)") }) { [weak self] in
            guard let self, let stage = self.stage else { return "" }
            let now = MonotonicClock.now()
            let readings = KioskMetrics.Readings(frameDraw: stage.drawTimes, open: self.running?.openingHours.isOpen ?? true,
                                                 residentBytes: currentRSSKiB() * 1024, saveFailures: self.store.saveFailures,
                                                 touch: .init(ignored: self.touchHealth.ignored, stuck: self.touchHealth.stuck,
                                                              present: self.touchHealth.touchscreenPresent ?? false,
                                                              quietOpenSeconds: self.touchHealth.quietOpenSeconds(now: now)),
                                                 clockSynchronized: self.running?.clock.isTrusted ?? false)
            return self.metrics.text(readings, now: MonotonicClock.now())
        }
        // The first write a second in: not in the way of the first frame.
        file.start(first: 1) { [log] ok in if ok { log.info("metrics: written to \(path) every \(Int(MetricsTextfile.interval)) s") } }
        metricsFile = file
    }

    private func setScreenshotFile(_ path: String?, interval: Double) {
        screenshotFile?.stop()
        screenshotFile = nil
        guard let path else { return }
        let file = ScreenshotFile(path: path, interval: interval, scheduler: scheduler, log: log) { [weak self] in self?.uprightFrame() }
        log.info("screenshot: kept at \(path), after the screen changes, at most every \(format(interval)) s")
        file.framePresented() // what is on screen now
        screenshotFile = file
    }

    // MARK: Admin panel

    /// The PIN's wrong tries and rest, across every panel this kiosk opens.
    private let adminLock = AdminLock()

    private func openAdminPanel() {
        guard let shell, let fonts = stage?.fonts else { return }
        log.notice("admin panel opened")
        let panel = AdminPanel(fonts: fonts, scheduler: scheduler, settings: settings.current, lock: adminLock) { [weak self] outcome in
            self?.closeOverlay {
                guard let self else { return }
                if case let .setup(step, changes) = outcome {
                    if !changes.isEmpty { self.settings.panelClosed(.save(changes)) }
                    self.running?.setup.open(at: step, fromAdmin: true)
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
            if let running = self.running, running.shell.showing.isAdmin {
                running.shell.show(running.openingHours.isOpen ? .scene : .closed)
            }
            then()
        }
    }

    // MARK: InputSink

    func handle(_ batch: TouchBatch) {
        if log.logLevel <= .debug {
            let desc = batch.points.map { "\($0.id) \($0.phase.rawValue) \(format($0.location.x)),\(format($0.location.y))" }.joined(separator: "; ")
            log.debug("touch: \(desc)")
        }
        touchFilter.handle(batch)
    }

    func touchscreen(present: Bool) { touchHealth.touchscreen(present: present) }

    private func wireTouchFilter() {
        touchFilter.bounds = { [weak self] in self?.stage?.windowInfo.size }
        touchFilter.deliver = { [weak self] in self?.deliver($0) }
        touchFilter.onIgnored = { [weak self] c in
            guard let self else { return }
            self.log.debug("touch: ignored (\(c.rule.rawValue)) at \(format(c.location.x)),\(format(c.location.y))")
            self.touchHealth.contactIgnored(c)
            if let stage = self.stage { self.shell?.ignoredContact(at: stage.toScene(c.location), rule: c.rule) }
        }
        touchFilter.onStuck = { [weak self] in self?.touchHealth.contactStuck(at: $0) }
    }

    /// A person's touches (the filter's): counted, then the scene's.
    private func deliver(_ batch: TouchBatch) {
        guard let stage else { return }
        let began = batch.points.count { $0.phase == .began }
        if began > 0 { touchHealth.personTouched(now: MonotonicClock.now()) }
        metrics.touches += began
        if batch.points.contains(where: { $0.phase != .cancelled }) { metrics.lastInputTime = wallClockNow() }
        stage.scene.handle(stage.toScene(batch))
        saver.noteInput()
        // A lift may have pressed a button that moved what the next touch aims at.
        if log.logLevel <= .debug, batch.points.contains(where: { $0.phase == .ended }) {
            scheduler.schedule(after: 0) { [weak self] in self?.diagnostics.logLabelledViews() }
        }
    }

    func handle(_ key: KeyEvent) {
        log.debug("key \(key.pressed ? "pressed" : "released"): keysym=0x\(String(key.keysym, radix: 16)) text=\(key.text.debugDescription)\(key.isRepeat ? " (repeat)" : "")")
        guard let stage else { return }
        if key.pressed { metrics.lastInputTime = wallClockNow() }
        // An operator's key: a visitor's keyboard gets it only for maintenance.
        if key.pressed && key.keysym == Stage.statsKeysym && settings.current.maintenanceKeys {
            stage.showsStats.toggle()
        } else {
            stage.scene.handle(key)
        }
        saver.noteInput()
    }
}
