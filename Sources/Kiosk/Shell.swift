import KioskCore
import KioskRender
import KioskUI
import KioskScenes
import KioskPlatform

/// The kiosk shell: hosts the scenes the public may reach, switches between them (scene bar,
/// F1–F4, a horizontal swipe in from a screen edge) with a short cross-fade, and shows the
/// falling-words screensaver after `idleTimeout` seconds without input. The touch that wakes the
/// screensaver is swallowed — it never presses what is underneath — and the previous scene
/// comes back exactly as it was (it was paused, not reset).
final class Shell: Scene {
    let name = "shell"
    private(set) var names: [String]
    private var scenes: [String: Scene] = [:]
    private var make: (String) -> Scene
    private var screensaver: Scene
    private(set) var currentName: String
    private(set) var showingScreensaver = false
    private let scheduler: Scheduler
    private let fonts: FontCache
    /// Seconds without input before the screensaver; 0 never. Settable live (settings reload).
    var idleTimeout: Double { didSet { if idleTimeout != oldValue { armIdleTimer() } } }
    /// Told when the screensaver starts (true) and ends (false): the application lets the
    /// screen blank after a further delay while it runs.
    var onScreensaverChange: ((Bool) -> Void)?
    /// Called with the scene's name after a switch (for the service's status line).
    var onSceneChange: ((String) -> Void)?
    var showsSceneBar = true {
        didSet { if showsSceneBar != oldValue { updateSceneBar(); active.invalidation.addAll() } }
    }
    private var info = DisplayInfo(size: Size(width: 1, height: 1))
    private var idleTimer: ScheduledTimer?
    /// Touch ids being swallowed (the wake touch) or tracked as an edge swipe.
    private var swallowed = Set<Int32>()
    private var edgeSwipes: [Int32: (start: Point, time: Double)] = [:]
    private var barTouches: [Int32: Int] = [:]
    private var transition: (snapshot: Image, start: Double)?
    private var time = 0.0
    static let fade = 0.3

    private let store: StateStore?

    init(names: [String], start: String, fonts: FontCache, scheduler: Scheduler, idleTimeout: Double,
         startInScreensaver: Bool = false, store: StateStore? = nil, make: @escaping (String) -> Scene) {
        self.store = store
        self.names = names.isEmpty ? [start] : names
        self.make = make
        self.fonts = fonts
        self.scheduler = scheduler
        self.idleTimeout = max(0, idleTimeout)
        currentName = self.names.contains(start) ? start : self.names[0]
        screensaver = make("words")
        screensaver.setActive(false)
        showingScreensaver = startInScreensaver
        if startInScreensaver { screensaver.setActive(true) }
    }

    var current: Scene {
        if let s = scenes[currentName] { return s }
        let s = make(currentName)
        // Never at the placeholder size: a scene laid out at 1×1 (a setting applied before the
        // first layout) would animate from there into place (the tiles flew in from the left).
        if laidOut { s.layout(sceneInfo) }
        scenes[currentName] = s
        return s
    }
    /// Whether `layout` has run: `info` is the real display, not the placeholder.
    private var laidOut = false
    private var active: Scene { overlay ?? (showingScreensaver ? screensaver : current) }
    /// What is on screen: the admin panel, the screensaver or the current scene.
    var activeScene: Scene { active }
    var invalidation: Invalidation { active.invalidation }

    func layout(_ info: DisplayInfo) {
        self.info = info
        laidOut = true
        barRects = computeBarRects()
        sceneInfo = Self.info(info, under: barRects)
        current.layout(sceneInfo)
        // The screensaver and the admin panel hide the bar: they have the whole screen.
        screensaver.layout(info)
        for (n, s) in scenes where n != currentName { s.layout(sceneInfo) }
        overlay?.layout(info)
        current.setActive(!showingScreensaver && overlay == nil)
        active.invalidation.addAll()
        // Armed on the next frame: layout may run on the preparation thread, and the event
        // loop's timers belong to the main thread.
        idleTimerPending = true
    }
    private var idleTimerPending = true

    func prepareContent() { current.prepareContent() }
    func saveState() {
        for s in scenes.values { s.saveState() }
        store?.save(ShellSaved(scene: currentName), name: "shell")
    }
    func setActive(_ on: Bool) { active.setActive(on) }

    /// Applies new scene settings live (a settings reload): scenes no longer in `names` are
    /// saved and dropped; the scenes in `rebuild` (and the screensaver, if "words" is in it) are
    /// saved and made anew through `make`, so they come back with their state and the new
    /// settings; the scene on screen stays if it is still listed, else the first one shows.
    func reconfigure(names newNames: [String], rebuild: Set<String>, make newMake: @escaping (String) -> Scene) {
        let newNames = newNames.isEmpty ? [currentName] : newNames
        guard newNames != names || !rebuild.isEmpty else { return }
        beginTransition()
        make = newMake
        for (n, s) in scenes where rebuild.contains(n) || !newNames.contains(n) {
            s.saveState()
            s.setActive(false)
            scenes[n] = nil
        }
        if rebuild.contains("words") {
            screensaver.setActive(false)
            screensaver = newMake("words")
            screensaver.layout(info)
            screensaver.setActive(showingScreensaver)
        }
        let wasCurrent = currentName
        names = newNames
        if !names.contains(currentName) { currentName = names[0] }
        if wasCurrent != currentName { scenes[wasCurrent]?.setActive(false) }
        current.setActive(!showingScreensaver && overlay == nil)
        updateSceneBar()
        active.invalidation.addAll()
    }

    // MARK: Switching

    /// Shows scene `name` with a cross-fade; the old one is paused where it was.
    func switchTo(_ name: String) {
        guard names.contains(name), name != currentName || showingScreensaver else { return }
        beginTransition()
        if showingScreensaver { screensaver.setActive(false); showingScreensaver = false; onScreensaverChange?(false) }
        current.setActive(false)
        currentName = name
        current.setActive(true)
        current.invalidation.addAll()
        onSceneChange?(name)
    }

    // MARK: Admin gesture and overlay

    /// Where three fingers held still for `adminHold` seconds ask for the admin panel (nil: off).
    var adminCorner: Settings.AdminCorner? { didSet { if adminCorner == nil { cancelAdminGesture() } } }
    var onAdminGesture: (() -> Void)?
    static let adminHold = 3.0
    private var adminTouches: [Int32: Point] = [:]
    private var adminTimer: ScheduledTimer?
    /// A scene shown over everything (the admin panel) while it is open.
    private(set) var overlay: Scene?

    /// Within 40 mm of the chosen corner: room for three fingertips, far from most controls.
    private func inAdminCorner(_ p: Point) -> Bool {
        guard let c = adminCorner else { return false }
        let zone = 40 * info.pointsPerMillimetre
        let left = p.x <= zone, right = p.x >= info.size.width - zone
        let top = p.y <= zone, bottom = p.y >= info.size.height - zone
        switch c {
        case .topLeft: return left && top
        case .topRight: return right && top
        case .bottomLeft: return left && bottom
        case .bottomRight: return right && bottom
        }
    }

    private func trackAdminGesture(_ p: TouchPoint) {
        switch p.phase {
        case .began:
            guard overlay == nil, inAdminCorner(p.location) else { return }
            adminTouches[p.id] = p.location
            if adminTouches.count == 3, adminTimer == nil {
                adminTimer = scheduler.schedule(after: Shell.adminHold) { [weak self] in self?.adminGestureHeld() }
            }
        case .moved:
            // Held still: a finger sliding more than 8 mm is doing something else.
            guard let start = adminTouches[p.id] else { return }
            let dx = p.location.x - start.x, dy = p.location.y - start.y
            let d = (dx * dx + dy * dy).squareRoot()
            if d > 8 * info.pointsPerMillimetre { cancelAdminGesture() }
        case .ended, .cancelled:
            if adminTouches.removeValue(forKey: p.id) != nil { adminTimer?.cancel(); adminTimer = nil }
        }
    }
    private func cancelAdminGesture() {
        adminTouches.removeAll()
        adminTimer?.cancel()
        adminTimer = nil
    }
    private func adminGestureHeld() {
        adminTimer = nil
        guard adminTouches.count >= 3 else { return }
        // The fingers were the scene's until now: take them back so nothing stays pressed.
        let ids = Array(adminTouches.keys)
        current.handle(TouchBatch(time: 0, points: ids.map { TouchPoint(id: $0, phase: .cancelled, location: adminTouches[$0]!) }), at: time)
        swallowed.formUnion(ids)
        adminTouches.removeAll()
        onAdminGesture?()
    }

    /// Shows `scene` over everything, the scene below paused, until `closeOverlay`.
    func showOverlay(_ scene: Scene) {
        beginTransition()
        if showingScreensaver { screensaver.setActive(false); showingScreensaver = false; onScreensaverChange?(false) }
        current.setActive(false)
        overlay = scene
        scene.layout(info)
        scene.setActive(true)
        scene.invalidation.addAll()
        armIdleTimer()
    }
    func closeOverlay() {
        guard let o = overlay else { return }
        beginTransition()
        o.setActive(false)
        overlay = nil
        current.setActive(!showingScreensaver)
        active.invalidation.addAll()
        armIdleTimer()
    }

    func showScreensaver() {
        guard !showingScreensaver else { return }
        if let o = overlay { o.setActive(false); overlay = nil } // an unattended panel closes
        beginTransition()
        current.setActive(false)
        showingScreensaver = true
        screensaver.setActive(true)
        screensaver.invalidation.addAll()
        onScreensaverChange?(true)
    }

    private func wake() {
        guard showingScreensaver else { return }
        beginTransition()
        screensaver.setActive(false)
        showingScreensaver = false
        current.setActive(true)
        current.invalidation.addAll()
        armIdleTimer()
        onScreensaverChange?(false)
    }

    /// Keeps what is on screen now as a picture that fades out over the next scene.
    private func beginTransition() {
        guard let img = Image(pixelSize: info.pixelSize(), hasAlpha: false, scale: info.scale) else { return }
        let c = Canvas(image: img)
        active.draw(in: c)
        drawSceneBar(in: c)
        transition = (img, time)
    }

    private func armIdleTimer() {
        idleTimer?.cancel()
        idleTimer = nil
        guard idleTimeout > 0, !showingScreensaver else { return }
        idleTimer = scheduler.schedule(after: idleTimeout) { [weak self] in self?.showScreensaver() }
    }

    // MARK: Input

    func handle(_ batch: TouchBatch, at time: Double) {
        armIdleTimer()
        if let o = overlay {
            let rest = batch.points.filter { !swallowed.contains($0.id) }
            for p in batch.points where p.phase == .ended || p.phase == .cancelled { swallowed.remove(p.id) }
            if !rest.isEmpty { o.handle(TouchBatch(time: batch.time, points: rest), at: time) }
            return
        }
        var forward: [TouchPoint] = []
        for p in batch.points {
            trackAdminGesture(p)
            if p.phase == .began && showingScreensaver {
                swallowed.insert(p.id)
                wake()
            }
            if swallowed.contains(p.id) {
                if p.phase == .ended || p.phase == .cancelled { swallowed.remove(p.id) }
                continue
            }
            if handleSceneBar(p) || handleEdgeSwipe(p, time: time) { continue }
            forward.append(p)
        }
        if !forward.isEmpty { current.handle(TouchBatch(time: batch.time, points: forward), at: time) }
    }

    func handle(_ key: KeyEvent, at time: Double) {
        armIdleTimer()
        if let o = overlay { o.handle(key, at: time); return }
        if showingScreensaver {
            if key.pressed { wake() }
            return // the waking key is swallowed too
        }
        // F1–F4 choose scenes.
        if key.pressed, (Key.f1...Key.f4).contains(key.keysym) {
            let i = Int(key.keysym - Key.f1)
            if i < names.count { switchTo(names[i]) }
            return
        }
        current.handle(key, at: time)
    }

    /// A finger down within 6 mm of the left or right edge that travels 30 mm inwards switches
    /// to the previous or next scene (it is not delivered to the scene while it might be one).
    private func handleEdgeSwipe(_ p: TouchPoint, time: Double) -> Bool {
        let mm = info.pointsPerMillimetre
        switch p.phase {
        case .began:
            guard names.count > 1, p.location.x <= 6 * mm || p.location.x >= info.size.width - 6 * mm else { return false }
            edgeSwipes[p.id] = (p.location, time)
            return true
        case .moved:
            guard let s = edgeSwipes[p.id] else { return false }
            let dx = p.location.x - s.start.x
            if abs(dx) >= 30 * mm && abs(p.location.y - s.start.y) < abs(dx) / 2 {
                edgeSwipes[p.id] = nil
                swallowed.insert(p.id)
                let i = names.firstIndex(of: currentName) ?? 0
                switchTo(names[(i + (dx < 0 ? 1 : names.count - 1)) % names.count])
            }
            return true
        case .ended, .cancelled:
            return edgeSwipes.removeValue(forKey: p.id) != nil
        }
    }

    // MARK: Scene bar

    /// The bar's buttons, recomputed on layout (not per touch or frame).
    private var barRects: [Rect] = []
    /// The scene bar's buttons on screen (none when it is off or there is one scene).
    var sceneBarFrames: [Rect] { barRects }
    /// What the hosted scenes are laid out for: the display less the bar (`safeAreaInsets`).
    private var sceneInfo = DisplayInfo(size: Size(width: 1, height: 1))
    private static let barFontPoints = 20.0

    private func computeBarRects() -> [Rect] {
        guard showsSceneBar, names.count > 1 else { return [] }
        let mm = info.pointsPerMillimetre, n = Double(names.count), gap = 8.0
        // One width for all, wide enough for the longest title, and the whole bar on screen.
        let font = fonts.font(points: Self.barFontPoints, scale: 1)
        let widest = names.map { font?.layout(Self.titles[$0] ?? $0).width ?? 0 }.max() ?? 0
        let h = max(40, 10 * mm)
        let w = min(max(110, 28 * mm, widest + h * 0.8), (info.size.width - 16 - (n - 1) * gap) / n)
        let x0 = (info.size.width - (n * w + (n - 1) * gap)) / 2
        // Below any chrome already at the top (the stats overlay).
        let y = info.safeAreaInsets.top + 6
        return names.indices.map { Rect(x: x0 + Double($0) * (w + gap), y: y, width: w, height: h) }
    }

    /// `info` with its top inset below the bar (and a margin), so scenes keep clear of it.
    private static func info(_ info: DisplayInfo, under bar: [Rect]) -> DisplayInfo {
        var i = info
        i.safeAreaInsets.top = max(i.safeAreaInsets.top, (bar.map(\.maxY).max() ?? 0) + (bar.isEmpty ? 0 : 6))
        return i
    }

    /// The bar came, went or changed (a setting, the list of scenes): scenes relayout to suit.
    private func updateSceneBar() {
        barRects = computeBarRects()
        let newInfo = Self.info(info, under: barRects)
        guard newInfo != sceneInfo else { return }
        sceneInfo = newInfo
        guard laidOut else { return }
        for s in scenes.values { s.layout(sceneInfo) }
    }

    private func handleSceneBar(_ p: TouchPoint) -> Bool {
        switch p.phase {
        case .began:
            guard let i = barRects.firstIndex(where: { $0.insetBy(dx: -4, dy: -4).contains(p.location) }) else { return false }
            barTouches[p.id] = i
            return true
        case .moved:
            return barTouches[p.id] != nil
        case .ended:
            guard let i = barTouches.removeValue(forKey: p.id) else { return false }
            if barRects.indices.contains(i), barRects[i].insetBy(dx: -20, dy: -20).contains(p.location) { switchTo(names[i]) }
            return true
        case .cancelled:
            return barTouches.removeValue(forKey: p.id) != nil
        }
    }

    private static let titles = ["touch": "Touch test", "lander": "Lander", "tiles": "Tiles", "words": "Words"]

    private func drawSceneBar(in canvas: Canvas) {
        guard !showingScreensaver, overlay == nil else { return }
        let rects = barRects
        guard !rects.isEmpty, let font = fonts.font(points: 20, scale: canvas.scale) else { return }
        for (i, r) in rects.enumerated() where canvas.isVisible(r) {
            let selected = names[i] == currentName
            canvas.fillRoundedRect(r, radius: r.height / 2, color: selected ? Color.sky.withAlpha(0.85) : Color.black.withAlpha(0.45))
            let run = font.layout(Self.titles[names[i]] ?? names[i])
            canvas.draw(run, at: Point(x: r.midX - run.width / 2, y: r.midY + font.ascent / 2 - font.descent / 2),
                        color: selected ? Color.ink : Color.paper)
        }
    }

    // MARK: Frames

    func advance(to time: Double) {
        self.time = time
        if idleTimerPending { idleTimerPending = false; armIdleTimer() }
        active.advance(to: time)
        if let t = transition {
            if time - t.start >= Self.fade { transition = nil }
            active.invalidation.addAll() // the fading picture covers the screen
        } else if showsSceneBar, !showingScreensaver, overlay == nil {
            // The bar sits over the scene: repaint it wherever the scene repainted under it.
            let inv = active.invalidation
            for r in barRects where inv.everything || inv.rects.contains(where: { $0.intersects(r) }) { inv.add(r) }
        }
    }

    var isAnimating: Bool { active.isAnimating || transition != nil }

    func draw(in canvas: Canvas) {
        active.draw(in: canvas)
        drawSceneBar(in: canvas)
        if let t = transition {
            let a = 1 - min(1, max(0, (time - t.start) / Self.fade))
            canvas.draw(t.snapshot, alpha: a)
        }
    }
}

/// What the shell keeps across restarts.
struct ShellSaved: Codable, Equatable {
    var scene: String
}
