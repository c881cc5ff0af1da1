import KioskCore
import KioskUI
import KioskScenes
import KioskPlatform

/// What the live kiosk tells an operator or a measurement beyond what it shows: at debug level,
/// each gesture its recognizers saw and where the labelled controls are (what a live check aims
/// at, and what a panel whose touch is in doubt is diagnosed with); on SIGUSR1, one line of
/// frame statistics.
final class Diagnostics {
    private let log: Logger
    private let window: Window
    /// What runs once the window has its size.
    weak var stage: Stage?
    weak var shell: Shell?

    init(log: Logger, window: Window) {
        self.log = log
        self.window = window
    }

    /// At debug level, logs every gesture a named recognizer begins or recognizes.
    func watchGestures(scheduler: Scheduler) {
        guard log.logLevel <= .debug else { return }
        GestureRecognizer.onRecognized = { [weak self] r, state in
            self?.log.debug("gesture: \(Diagnostics.describe(r, state))")
            // A drag or a switch may have moved what the next touch aims at.
            if state == .recognized { scheduler.schedule(after: 0) { self?.logLabelledViews() } }
        }
    }

    /// "swipe right recognized", "hold began": a recognizer as the debug log names it.
    static func describe(_ r: GestureRecognizer, _ state: GestureRecognizer.State) -> String {
        var what = r.name
        if let s = r as? SwipeGestureRecognizer { what += " " + s.recognizedDirection.words }
        if let e = r as? ScreenEdgePanGestureRecognizer { what += " from the \(e.edge)" }
        return what + (state == .began ? " began" : " recognized")
    }

    /// At debug level, where the window has its labelled controls (the scene's, the scene bar's;
    /// scene points):
    /// what a check that touches them live aims at.
    func logLabelledViews() {
        guard log.logLevel <= .debug else { return }
        let lines = labelledViews()
        logged = lines
        for l in lines { log.debug(l) }
    }

    /// After a frame, at debug level: the labelled controls again if any came, went or moved
    /// (a page opened inside a scene, a button shown) since they were last said.
    func logLabelledViewsIfMoved() {
        guard log.logLevel <= .debug, labelledViews() != logged else { return }
        logLabelledViews()
    }
    private var logged: [String] = []

    private func labelledViews() -> [String] {
        guard let root = shell?.window else { return [] }
        return Self.labelledViews(under: root)
    }

    /// "view: exhibits back at 12,58 size 176x44": each labelled control shown under `root`.
    static func labelledViews(under root: View) -> [String] {
        var lines: [String] = []
        func visit(_ v: View) {
            guard !v.isHidden else { return } // nor what it holds: none of it is on screen
            if let label = v.accessibilityIdentifier {
                let f = v.convert(v.bounds, to: nil)
                lines.append("view: \(label) at \(format(f.minX)),\(format(f.minY)) size \(format(f.width))x\(format(f.height))")
            }
            v.subviews.forEach(visit)
        }
        visit(root)
        return lines
    }

    /// At debug level, the lander's flight ten times a second while it flies on screen, and its
    /// end once: what a check that flies it live steers by.
    func recordFlight(at time: Double) {
        guard log.logLevel <= .debug, let shell, shell.showing == .scene, let lander = shell.current as? LanderScene else { return }
        let flying = lander.model.isFlying
        guard flying ? time - lastFlightRecord >= 0.1 : wasFlying else { return }
        lastFlightRecord = time
        wasFlying = flying
        log.debug("lander: \(lander.model.flightRecord)")
    }
    private var lastFlightRecord = -Double.infinity, wasFlying = false

    private var statsSince = MonotonicClock.now()
    private var statsPresented = (followed: 0, presented: 0, discarded: 0, skipped: 0)
    /// One line of frame statistics since the last (SIGUSR1), for an operator or a measurement.
    /// The touchscreen's calibration in force, as the file or the setup would write it.
    private var touchLine: String {
        guard let m = stage?.touchMatrix else { return "touch not calibrated" }
        return "touch matrix [" + m.map { String(rounded: $0, digits: 4) }.joined(separator: ", ") + "]"
    }

    func logDrawStats() {
        let now = MonotonicClock.now(), span = max(1e-3, now - statsSince)
        statsSince = now
        guard let d = stage?.takeDrawStats() else { return }
        let mean = d.frames > 0 ? d.seconds / Double(d.frames) * 1000 : 0
        // What the compositor reported showing (wp_presentation) of the frames followed since
        // the last line (one in `Window.feedbackEvery`).
        let p = window.presentation, q = statsPresented
        statsPresented = p
        var seen = ""
        if window.offersPresentationFeedback {
            seen = ", \(p.followed - q.followed) followed (1 in \(Window.feedbackEvery)): \(p.presented - q.presented) shown, \(p.discarded - q.discarded) discarded"
            if p.skipped > q.skipped { seen += ", \(p.skipped - q.skipped) not followed (no presentation feedback)" }
        }
        // What the screensaver's cost depends on, so that two measurements can be compared
        // (the same settings keep more words alive on a taller screen: they fall longer).
        let words = (shell?.activeScene as? FallingWordsScene).map { ", \($0.labelCount) words on screen" } ?? ""
        log.notice("stats: \(d.frames) frames in \(String(format2: span)) s (\(String(format2: Double(d.frames) / span)) fps)\(seen)\(words), draw mean \(String(format2: mean)) ms, longest \(String(format2: d.longest * 1000)) ms, peak RSS \(peakRSSKiB() / 1024) MiB, \(touchLine)")
    }
}
