#if canImport(Glibc)
import Glibc
#endif
import KioskCore
import KioskRender

/// `kiosk bench --scene soak --seconds N`: the whole shell (every scene, the screensaver, the
/// scene bar) run headless on a fast clock through simulated visitors — taps, drags, pinches,
/// ten-finger mashes, keys, scene switches by bar, key and edge swipe — with idle stretches in
/// which the screensaver runs and then wakes. Every frame is rendered at 60 Hz, as the live
/// kiosk does. What it reports is what months unattended would show: resident memory after the
/// warm-up and at the end, and open file descriptors before and after.
struct SoakReport {
    var simulatedSeconds = 0.0
    var frames = 0
    var events = 0
    var switches = 0
    var screensavers = 0
    var rssAfterWarmupKiB = 0
    var rssAtEndKiB = 0
    var fdsAtStart = 0
    var fdsAtEnd = 0

    var growthKiB: Int { rssAtEndKiB - rssAfterWarmupKiB }
    var text: String {
        """
        simulated:     \(Int(simulatedSeconds)) s, \(frames) frames, \(events) input events, \(switches) scene switches, \(screensavers) screensavers
        RSS:           \(rssAfterWarmupKiB / 1024) MiB after warm-up → \(rssAtEndKiB / 1024) MiB at the end (\(growthKiB >= 0 ? "+" : "")\(growthKiB) KiB)
        peak RSS:      \(peakRSSKiB() / 1024) MiB
        open fds:      \(fdsAtStart) → \(fdsAtEnd)
        """
    }
}

/// Open file descriptors of this process.
func openDescriptorCount() -> Int {
    guard let d = opendir("/proc/self/fd") else { return -1 }
    defer { closedir(d) }
    var n = 0
    while readdir(d) != nil { n += 1 }
    return n - 3 // ".", "..", and the one opendir holds
}

/// Runs the soak for `seconds` of simulated time at `size`; `warmup` seconds are run before
/// memory is first measured (caches fill, fonts load).
func runSoak(seconds: Double, size: Size, seed: UInt64 = 7, warmup: Double = 300) throws -> SoakReport {
    var report = SoakReport()
    // Counted once fontconfig is up: `main` starts it on a thread of its own, which has one of
    // its configuration files open for a moment (`FontCache()` waits for it to finish).
    let fonts = FontCache()
    report.fdsAtStart = openDescriptorCount()
    let scheduler = ManualScheduler()
    let shell = Shell.make(SceneMaking(fonts: fonts, scheduler: scheduler), names: SceneCatalog.standard.benchScenes, start: "touch")
    let screensaver = ScreensaverController(shell: shell, scheduler: scheduler, idleTimeout: 60)
    shell.showingChanged.add { [unowned shell] old in if shell.showing.isScreensaver && !old.isScreensaver { report.screensavers += 1 } }
    let clock = ManualClock()
    let r = try HeadlessRenderer(scene: shell, info: DisplayInfo(size: size), clock: clock)
    var rng = SplitMix64(seed: seed)
    func random(_ n: Double) -> Double { rng.next(below: n) }
    func point() -> Point { Point(x: random(size.width), y: random(size.height)) }

    var warmedUp = false
    func frame() {
        clock.advance(by: 1.0 / 60)
        r.renderFrame()
        report.frames += 1
        if !warmedUp, clock.now >= warmup { warmedUp = true; report.rssAfterWarmupKiB = currentRSSKiB() }
    }
    func send(_ points: [TouchPoint]) {
        shell.handle(TouchBatch(time: clock.now, points: points))
        report.events += points.count
    }
    func key(_ sym: UInt32, _ text: String = "") {
        for pressed in [true, false] { shell.handle(KeyEvent(keysym: sym, text: text, pressed: pressed, time: clock.now)) }
        report.events += 2
    }
    /// Fingers moving from `from` to `to` over `frames` frames.
    func gesture(_ from: [Point], _ to: [Point], frames n: Int) {
        let ids = from.indices.map { Int32($0 + Int(rng.next() % 100)) }
        send(zip(ids, from).map { TouchPoint(id: $0, phase: .began, location: $1) })
        frame()
        for k in 1...max(1, n) {
            let t = Double(k) / Double(max(1, n))
            send(ids.indices.map { i in
                TouchPoint(id: ids[i], phase: .moved, location: Point(x: from[i].x + (to[i].x - from[i].x) * t,
                                                                      y: from[i].y + (to[i].y - from[i].y) * t))
            })
            frame()
        }
        send(zip(ids, to).map { TouchPoint(id: $0, phase: rng.next() % 20 == 0 ? .cancelled : .ended, location: $1) })
        frame()
    }

    while clock.now < seconds {
        // A visitor: 10 s to 2 min of play.
        let leaves = clock.now + 10 + random(110)
        while clock.now < leaves && clock.now < seconds {
            switch rng.next() % 10 {
            case 0, 1, 2: let p = point(); gesture([p], [p], frames: 2 + Int(rng.next() % 5)) // tap
            case 3, 4: gesture([point()], [point()], frames: 10 + Int(rng.next() % 50)) // drag
            case 5: gesture([point(), point()], [point(), point()], frames: 20 + Int(rng.next() % 40)) // pinch, turn
            case 6:
                let n = 3 + Int(rng.next() % 8)
                gesture((0..<n).map { _ in point() }, (0..<n).map { _ in point() }, frames: 5 + Int(rng.next() % 30)) // mash
            case 7:
                // The scene bar (top centre) or an F-key.
                if rng.next() % 2 == 0 {
                    let p = Point(x: size.width / 2 + random(400) - 200, y: 20)
                    gesture([p], [p], frames: 2)
                } else {
                    key(Key.f1 + UInt32(rng.next() % 3))
                }
                report.switches += 1
            case 8:
                let y = random(size.height)
                let fromLeft = rng.next() % 2 == 0
                gesture([Point(x: fromLeft ? 2 : size.width - 2, y: y)], [Point(x: fromLeft ? 400 : size.width - 400, y: y)], frames: 12)
                report.switches += 1
            default:
                let keys: [(UInt32, String)] = [(Key.left, ""), (Key.right, ""), (Key.up, ""), (Key.space, " "), (Key.a, "a"), (Key.f12, "")]
                let k = keys[Int(rng.next() % UInt64(keys.count))]
                key(k.0, k.1)
            }
            for _ in 0..<(6 + Int(rng.next() % 60)) { frame() } // a pause between actions
        }
        // Nobody: up to 5 minutes (the screensaver starts after 60 s).
        let back = clock.now + random(300)
        while clock.now < back && clock.now < seconds { frame() }
    }
    report.simulatedSeconds = clock.now
    report.rssAtEndKiB = currentRSSKiB()
    if !warmedUp { report.rssAfterWarmupKiB = report.rssAtEndKiB }
    report.fdsAtEnd = openDescriptorCount()
    withExtendedLifetime(screensaver) {}
    return report
}
