import KioskCore
import KioskRender
import KioskPlatform

/// What the kiosk tells those who look after it: systemd (ready, what the screen shows, the
/// watchdog, stopping), the fleet's numbers and the file node_exporter reads them from, and
/// pictures of the screen (`kiosk screenshot`, `[metrics] screenshot`).
final class ServiceStatus {
    private let log: Logger
    private let loop: EventLoop
    private let scheduler: Scheduler
    /// systemd's notification socket, when the kiosk runs as a service.
    let notifier = SystemdNotifier()
    let metrics = KioskMetrics(startTime: wallClockNow())
    private var metricsFile: MetricsTextfile?
    private var screenshotSocket: ScreenshotSocket?
    private var screenshotFile: ScreenshotFile?
    /// The screen as a visitor sees it (nil before there is one).
    private let frame: () -> Image?
    /// What the metrics file reads from the running kiosk when it is written (nil before it runs).
    var readings: () -> KioskMetrics.Readings? = { nil }
    private weak var shell: Shell?

    init(log: Logger, loop: EventLoop, scheduler: Scheduler, frame: @escaping () -> Image?) {
        self.log = log
        self.loop = loop
        self.scheduler = scheduler
        self.frame = frame
        screenshotSocket = ScreenshotSocket(log: log, frame: frame)
        if let s = screenshotSocket { loop.watch(fd: s.fd) { [weak s] in s?.accept() } }
        if let interval = notifier?.watchdogInterval { pingWatchdog(every: interval) }
    }

    /// `WATCHDOG=1` from the event loop's own timer: a loop that hangs stops the pings, and
    /// systemd restarts the unit. Never from another thread, which would ping on regardless.
    private func pingWatchdog(every interval: Double) {
        loop.schedule(after: interval) { [weak self] in
            self?.notifier?.send("WATCHDOG=1")
            self?.pingWatchdog(every: interval)
        }
    }

    /// The shell on screen: what it shows from now on is counted and told.
    func follow(_ shell: Shell) {
        self.shell = shell
        shell.sceneChanged.add { [weak self] name in
            self?.log.notice("scene: \(name)")
            self?.metrics.sceneSwitches += 1
            self?.shown()
        }
        shell.languageChosen.add { [weak self] l in
            self?.log.notice("language: \(l.code) (\(l.name)), chosen by a visitor")
            self?.metrics.languagesChosen[l.code, default: 0] += 1
        }
        shell.showingChanged.add { [weak self] old in self?.showingChanged(from: old) }
    }

    /// People can see it: the unit's start waits for this.
    func ready() { notifier?.send("READY=1", "STATUS=\(statusLine)") }

    /// On the way out: systemd told, then what `save` keeps is kept, then the last numbers
    /// (which count a save that failed) written.
    func stopping(saving save: () -> Void) {
        notifier?.send("STOPPING=1")
        save()
        metricsFile?.write()
    }

    /// A frame reached the screen: the kept picture is due again.
    func framePresented() { screenshotFile?.framePresented() }

    /// Where the numbers and the picture are kept (`[metrics]`), at start and on every reload.
    func apply(_ new: Settings) {
        if new.metricsTextfile != metricsFile?.path { setMetricsFile(new.metricsTextfile) }
        if new.metricsScreenshot != screenshotFile?.path || new.metricsScreenshotInterval != screenshotFile?.interval {
            setScreenshotFile(new.metricsScreenshot, interval: new.metricsScreenshotInterval)
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

    private func showingChanged(from old: Showing) {
        guard let shell else { return }
        // The black after `blank_delay` is still the screensaver's time: it ends when someone comes.
        if old.showsScreensaverOrItsBlack != shell.showing.showsScreensaverOrItsBlack {
            log.notice(shell.showing.showsScreensaverOrItsBlack ? "screensaver started" : "screensaver ended")
            if shell.showing.showsScreensaverOrItsBlack { metrics.screensaverActivations += 1 }
        }
        shown()
    }

    /// The metrics and the service's status say what is on screen now: a scene, the
    /// screensaver, or closing time's black.
    func shown() {
        guard let shell else { return }
        metrics.showing(shell.showingScreensaver ? "screensaver" : shell.isClosed ? "closed" : shell.showing == .blank ? "blank" : shell.currentName, now: MonotonicClock.now())
        notifier?.send("STATUS=\(statusLine)")
    }

    private func setMetricsFile(_ path: String?) {
        metricsFile?.stop()
        metricsFile = nil
        guard let path else { return }
        let file = MetricsTextfile(path: path, scheduler: scheduler, report: { [log] in log.warning("\($0)") }) { [weak self] in
            guard let self, let readings = self.readings() else { return "" }
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
        let file = ScreenshotFile(path: path, interval: interval, scheduler: scheduler, log: log, frame: frame)
        log.info("screenshot: kept at \(path), after the screen changes, at most every \(format(interval)) s")
        file.framePresented() // what is on screen now
        screenshotFile = file
    }
}
