#if canImport(Glibc)
import Glibc
#endif
import KioskCore
import KioskRender
import KioskUI
import KioskPlatform

/// Between the Wayland window and what is on stage: the window's size, its frames and the
/// seat's input go to the stage; a touch passes the filter of contacts nobody made first, and a
/// person's is counted.
final class LiveHost: WindowDelegate, InputSink {
    let window: Window
    /// On stage once the window has its first size (`onFirstSize` puts it there).
    var stage: Stage?
    /// The window's first size: what goes on stage is made then, once.
    var onFirstSize: ((DisplayInfo) -> Void)?
    /// Every size, the first too (the journal says what the display is).
    var onSize: ((DisplayInfo) -> Void)?
    /// The first frame is on screen: people can see the kiosk.
    var onShown: (() -> Void)?
    private weak var shell: Shell?
    private let log: Logger
    private let scheduler: Scheduler
    private let touchFilter: TouchFilter
    private let touchHealth: TouchHealth
    private let status: ServiceStatus
    private let saver: StateSaver
    private let diagnostics: Diagnostics
    private let startup: StartupPhases
    /// `[admin] maintenance_keys`: F12 shows the frame statistics.
    private let maintenanceKeys: () -> Bool

    init(window: Window, seat: Seat?, log: Logger, scheduler: Scheduler, touchHealth: TouchHealth, status: ServiceStatus,
         saver: StateSaver, diagnostics: Diagnostics, startup: StartupPhases, maintenanceKeys: @escaping () -> Bool) {
        self.window = window
        self.log = log
        self.scheduler = scheduler
        self.touchHealth = touchHealth
        self.status = status
        self.saver = saver
        self.diagnostics = diagnostics
        self.startup = startup
        self.maintenanceKeys = maintenanceKeys
        touchFilter = TouchFilter(scheduler: scheduler)
        window.delegate = self
        seat?.sink = self
        if let seat {
            if let present = seat.hasTouch { touchHealth.touchscreen(present: present) }
        } else {
            touchHealth.touchscreen(present: false)
        }
        wireTouchFilter()
        timeFirstFrames()
    }

    /// When the first frame was committed and when it was shown, from the process's start.
    private func timeFirstFrames() {
        window.onFirstFrame = { [log, startup] in
            let now = MonotonicClock.nanoseconds()
            // All threads' CPU since exec: on a two-core panel the start is bound by it.
            var cpu = timespec()
            clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &cpu)
            let cpuMS = Double(cpu.tv_sec) * 1e3 + Double(cpu.tv_nsec) / 1e6
            log.info("first frame committed: \(Double(now - startup.startNS) / 1e6) ms after start (monotonic \(now) ns; \(cpuMS) ms of CPU since exec)")
        }
        window.onFirstFrameShown = { [weak self, log, startup] in
            log.info("first frame shown: \(Double(MonotonicClock.nanoseconds() - startup.startNS) / 1e6) ms after start")
            self?.onShown?()
        }
    }

    /// The shell on a stage of the window's size and turn; the journal says when the large mode
    /// lays it out anew.
    func putOnStage(_ shell: Shell, fonts: FontCache, info: DisplayInfo, rotation: Rotation, laidOutFor prepared: DisplayInfo?) -> Stage {
        let stage = Stage(scene: shell, info: info, rotation: rotation, laidOutFor: prepared)
        stage.setBufferRotation(window.bufferRotation)
        stage.fonts = fonts
        stage.onLargeModeChange = { [log, diagnostics, unowned stage] in
            let i = stage.info
            log.info("large mode \(i.isLarge ? "on" : "off"): the scene laid out at \(format(i.size.width))x\(format(i.size.height)) points, scale \(i.scale)")
            diagnostics.logLabelledViews()
        }
        if stage.isLarge { stage.onLargeModeChange?() } // the site's default, from the start
        self.stage = stage
        return stage
    }

    /// The shell on stage: a finger down across a change of what it shows acts on nothing after it.
    func follow(_ shell: Shell) {
        self.shell = shell
        shell.showingChanged.add { [weak self] _ in
            // Ended once the touch that may have made the change has been delivered.
            let change = MonotonicClock.now()
            self?.scheduler.schedule(after: 0) { self?.touchFilter.cancelAll(beganBefore: change, at: MonotonicClock.now()) }
        }
    }

    /// The picture turned (the accelerometer, a setting): a finger down across the turn ends,
    /// cancelled, first: what was under it has moved, and its lift must press nothing.
    func turn(to r: Rotation) {
        guard let stage, r != stage.rotation else { return }
        let now = MonotonicClock.now()
        touchFilter.cancelAll(beganBefore: now, at: now)
        stage.setRotation(r)
        log.info("turned \(r.degrees)°: the scene laid out at \(format(stage.info.size.width))x\(format(stage.info.size.height)) points")
        diagnostics.logLabelledViews()
    }

    /// What the window last showed, turned upright as a visitor sees the panel: the buffer's
    /// turn (a rotated output) and the kiosk's own rotation undone.
    func uprightFrame() -> Image? {
        guard let stage else { return nil }
        return window.copyOfPresentedFrame(turnedBy: stage.rotation.then(stage.bufferRotation).inverse)
    }

    // MARK: WindowDelegate

    func window(_ window: Window, didChange info: DisplayInfo) {
        onSize?(info)
        if let stage {
            stage.setBufferRotation(window.bufferRotation)
            stage.relayout(info)
        } else if let first = onFirstSize {
            onFirstSize = nil
            first(info)
        }
    }

    func windowNeedsFrame(_ window: Window) -> Bool { stage?.needsFrame ?? false }

    func window(_ window: Window, advanceTo time: Double) {
        stage?.advance(to: time)
        diagnostics.recordFlight(at: time)
    }

    func windowTakeDamage(_ window: Window) -> Region { stage?.takeDamage() ?? Region() }

    func window(_ window: Window, draw canvas: Canvas) {
        stage?.draw(in: canvas)
        diagnostics.logLabelledViewsIfMoved()
        if window.framesPresented == 0 { startup.mark("first frame drawn") }
        status.framePresented()
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

    func handle(_ key: KeyEvent) {
        log.debug("key \(key.pressed ? "pressed" : "released"): keysym=0x\(String(key.keysym, radix: 16)) text=\(key.text.debugDescription)\(key.isRepeat ? " (repeat)" : "")")
        guard let stage else { return }
        if key.pressed { status.metrics.lastInputTime = wallClockNow() }
        // An operator's key: a visitor's keyboard gets it only for maintenance.
        if key.pressed && key.keysym == Stage.statsKeysym && maintenanceKeys() {
            stage.showsStats.toggle()
        } else {
            stage.scene.handle(key)
        }
        saver.noteInput()
    }

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
        status.metrics.touches += began
        if batch.points.contains(where: { $0.phase != .cancelled }) { status.metrics.lastInputTime = wallClockNow() }
        stage.scene.handle(stage.toScene(batch))
        saver.noteInput()
        // A lift may have pressed a button that moved what the next touch aims at.
        if log.logLevel <= .debug, batch.points.contains(where: { $0.phase == .ended }) {
            scheduler.schedule(after: 0) { [weak self] in self?.diagnostics.logLabelledViews() }
        }
    }
}

/// Startup timing at debug level: where the time to the first frame goes.
struct StartupPhases {
    let log: Logger
    /// When the process started, monotonic ns.
    let startNS: UInt64

    func mark(_ what: String) {
        if log.logLevel <= .debug {
            log.debug("startup: \(what) at \(Double(MonotonicClock.nanoseconds() - startNS) / 1e6) ms")
        }
    }
}
