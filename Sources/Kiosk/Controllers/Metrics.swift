#if canImport(Glibc)
import Glibc
#endif
import KioskCore
import KioskUI

/// Seconds since the Unix epoch, with a fraction: times of day in the metrics.
func wallClockNow() -> Double {
    var ts = timespec()
    clock_gettime(CLOCK_REALTIME, &ts)
    return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
}

/// Counts in fixed buckets, as a Prometheus histogram is written (each bucket counts what is at
/// or below its bound).
struct Histogram {
    let bounds: [Double]
    private(set) var counts: [Int]
    private(set) var sum = 0.0
    private(set) var count = 0

    init(bounds: [Double]) {
        self.bounds = bounds
        counts = Array(repeating: 0, count: bounds.count)
    }
    /// For frame draw times: 0.5 ms to 32 ms (a 60 Hz frame is 16.7 ms).
    static func frameTimes() -> Histogram { Histogram(bounds: [0.0005, 0.001, 0.002, 0.004, 0.008, 0.016, 0.032]) }

    mutating func record(_ value: Double) {
        for (i, b) in bounds.enumerated() where value <= b { counts[i] += 1 }
        sum += value
        count += 1
    }
}

/// The numbers a fleet of kiosks is watched by, kept as the kiosk runs and written in
/// Prometheus's text format for node_exporter's textfile collector (`MetricsTextfile`).
/// Times of day are Unix seconds; durations are measured on the monotonic clock.
final class KioskMetrics {
    let startTime: Double
    var touches = 0
    var sceneSwitches = 0
    var screensaverActivations = 0
    var lastInputTime: Double?
    var reloads = ["applied": 0, "refused": 0]
    /// Languages visitors switched to with the pill, by code: which ones a site's visitors read.
    var languagesChosen: [String: Int] = [:]
    private var secondsShown: [String: Double] = [:]
    private var shown: (name: String, since: Double)?

    init(startTime: Double) { self.startTime = startTime }

    /// What is on screen from `now` (monotonic): a scene's name, "screensaver" or "closed".
    func showing(_ name: String, now: Double) {
        if let s = shown { secondsShown[s.name, default: 0] += max(0, now - s.since) }
        shown = (name, now)
    }

    /// What the kiosk reads from elsewhere when the file is written.
    struct Readings {
        var frameDraw: Histogram
        var open: Bool
        var residentBytes: Int
        var saveFailures: Int
        var touch = Touch()
        var clockSynchronized = true
        /// Which panel this is and what the package last did (nil: not read, as in tests of other numbers).
        var identity: PanelIdentity?
        /// The touchscreen's health (`TouchHealth`).
        struct Touch {
            var ignored: [TouchFilter.Rule: Int] = [:]
            var stuck = 0
            var present = true
            var quietOpenSeconds = 0.0
        }
    }

    /// The file's text at `now` (monotonic).
    func text(_ r: Readings, now: Double) -> String {
        var out = ""
        func family(_ name: String, _ type: String, _ help: String, _ samples: [(String, Double)]) {
            out += "# HELP \(name) \(help)\n# TYPE \(name) \(type)\n"
            for (suffix, v) in samples { out += "\(name)\(suffix) \(Self.number(v))\n" }
        }
        func label(_ k: String, _ v: String) -> String {
            let escaped = v.map { $0 == "\\" ? "\\\\" : $0 == "\"" ? "\\\"" : $0 == "\n" ? "\\n" : String($0) }.joined()
            return "{\(k)=\"\(escaped)\"}"
        }
        family("kiosk_start_time_seconds", "gauge", "When the kiosk started, in seconds since the Unix epoch.", [("", startTime)])
        if let id = r.identity { identityFamilies(id, family: family, label: label) }
        family("kiosk_frames_drawn_total", "counter", "Frames drawn.", [("", Double(r.frameDraw.count))])
        var buckets = zip(r.frameDraw.bounds, r.frameDraw.counts).map { ("_bucket" + label("le", Self.number($0.0)), Double($0.1)) }
        buckets += [("_bucket{le=\"+Inf\"}", Double(r.frameDraw.count)), ("_sum", r.frameDraw.sum), ("_count", Double(r.frameDraw.count))]
        family("kiosk_frame_draw_seconds", "histogram", "Time spent drawing a frame.", buckets)
        family("kiosk_touches_total", "counter", "Touches (fingers put down, and pointer presses).", [("", Double(touches))])
        family("kiosk_scene_switches_total", "counter", "Switches from one scene to another.", [("", Double(sceneSwitches))])
        var perScene = secondsShown
        if let s = shown { perScene[s.name, default: 0] += max(0, now - s.since) }
        family("kiosk_scene_shown_seconds_total", "counter", "Time each scene (or the screensaver, or the black of closing time) was on screen.",
               perScene.keys.sorted().map { (label("scene", $0), perScene[$0]!) })
        if !languagesChosen.isEmpty {
            family("kiosk_language_chosen_total", "counter", "Times visitors switched to each language with the scene bar's pill.",
                   languagesChosen.keys.sorted().map { (label("language", $0), Double(languagesChosen[$0]!)) })
        }
        family("kiosk_screensaver_activations_total", "counter", "Times the screensaver started.", [("", Double(screensaverActivations))])
        family("kiosk_last_input_time_seconds", "gauge", "When someone last touched the kiosk or pressed a key, in seconds since the Unix epoch (0: not yet).",
               [("", lastInputTime ?? 0)])
        family("kiosk_settings_reloads_total", "counter", "Settings reloads, by result: applied, or refused (the file could not be read as a whole).",
               reloads.keys.sorted().map { (label("result", $0), Double(reloads[$0]!)) })
        family("kiosk_state_save_failures_total", "counter", "Saves of visitors' state that failed.", [("", Double(r.saveFailures))])
        family("kiosk_resident_memory_bytes", "gauge", "Resident memory of the kiosk process.", [("", Double(r.residentBytes))])
        family("kiosk_open", "gauge", "1 during the opening hours, 0 outside them.", [("", r.open ? 1 : 0)])
        family("kiosk_clock_synchronized", "gauge", "1 when the system clock is believed (NTP synchronised, or set from a real-time clock at boot); 0: the opening hours wait and the kiosk stays open.",
               [("", r.clockSynchronized ? 1 : 0)])
        family("kiosk_touch_phantoms_total", "counter", "Contacts the touchscreen reported that no finger made, ignored, by rule.",
               TouchFilter.Rule.allCases.map { (label("rule", $0.rawValue), Double(r.touch.ignored[$0] ?? 0)) })
        family("kiosk_touch_stuck_total", "counter", "Contacts held still past the limit, ended as cancelled.", [("", Double(r.touch.stuck))])
        family("kiosk_touchscreen_present", "gauge", "1 while the seat offers touch.", [("", r.touch.present ? 1 : 0)])
        family("kiosk_touch_quiet_open_seconds", "gauge", "Seconds of opening hours since someone last touched the panel (a dead touchscreen reports nothing).",
               [("", r.touch.quietOpenSeconds)])
        return out
    }

    /// Which panel this is, as labels (its host name, addresses, version, last update), and the
    /// package's updates and rollbacks.
    private func identityFamilies(_ id: PanelIdentity, family: (String, String, String, [(String, Double)]) -> Void,
                                  label: (String, String) -> String) {
        let last = id.lastChange.map { PanelIdentity.utcDate($0.time) } ?? ""
        let labels = [label("version", id.version), label("hostname", id.hostname), label("addresses", id.addresses.joined(separator: " ")),
                      label("last_update", last)].map { $0.dropFirst().dropLast() }.joined(separator: ",")
        family("kiosk_version_info", "gauge", "1, labelled with the kiosk's version, the panel's host name and addresses, and when the package last changed (UTC).",
               [("{\(labels)}", 1)])
        family("kiosk_last_update_time_seconds", "gauge", "When the package was last installed, upgraded or put back, in seconds since the Unix epoch (0: not recorded).",
               [("", id.lastChange?.time ?? 0)])
        family("kiosk_rollbacks_total", "counter", "Updates that did not come up on this panel, the version before put back.",
               [("", Double(id.update.rollbacks.count))])
        family("kiosk_system_uptime_seconds", "gauge", "Seconds since the panel's system started.", [("", id.uptime.rounded())])
    }

    /// Integers without a decimal point; others as Swift prints them (which Prometheus reads).
    static func number(_ v: Double) -> String {
        v == v.rounded() && abs(v) < 1e15 ? String(Int64(v)) : "\(v)"
    }
}

/// Writes the metrics for node_exporter's textfile collector: every `interval` seconds and when
/// asked (at shutdown), atomically, readable by others (node_exporter runs as its own user). A
/// path that cannot be written is reported once — again only after it has worked in between —
/// and the kiosk carries on.
final class MetricsTextfile {
    let path: String
    static let interval = 15.0
    private let scheduler: Scheduler
    private let render: () -> String
    private let report: (String) -> Void
    private var timer: ScheduledTimer?
    private var failing = false

    init(path: String, scheduler: Scheduler, report: @escaping (String) -> Void, render: @escaping () -> String) {
        self.path = path
        self.scheduler = scheduler
        self.render = render
        self.report = report
    }

    /// Writes every `interval`, the first time after `first` seconds (not in the way of the
    /// first frame); `onFirstWrite` hears whether that worked.
    func start(first: Double = MetricsTextfile.interval, onFirstWrite: ((Bool) -> Void)? = nil) {
        timer = scheduler.schedule(after: first) { [weak self] in
            guard let self else { return }
            let ok = self.write()
            onFirstWrite?(ok)
            self.start()
        }
    }
    func stop() { timer?.cancel(); timer = nil }

    @discardableResult
    func write() -> Bool {
        do {
            try AtomicFile.write(Array(render().utf8), to: path, mode: 0o644, durable: false)
            failing = false
            return true
        } catch {
            if !failing { report("metrics: cannot write \(path) (\(error)); the kiosk runs on and tries again every \(Int(Self.interval)) s") }
            failing = true
            return false
        }
    }
}
