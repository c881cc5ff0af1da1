import KioskCore
import KioskRender
import KioskUI
import KioskScenes

/// The kiosk shell: hosts the scenes the public may reach and switches between them with a
/// short cross-fade — from the scene bar, F1–F4, or a swipe in from a screen edge (the chrome,
/// `ShellChrome`, recognizes those) — shows the falling-words screensaver when told to
/// (`ScreensaverController` decides when), and the admin panel over everything. The touch that
/// wakes the screensaver is swallowed — it never presses what is underneath — and the previous
/// scene comes back exactly as it was (it was paused, not reset).
final class Shell: Scene {
    let name = "shell"
    private(set) var names: [String]
    private var scenes: [String: Scene] = [:]
    private var make: (String) -> Scene
    private var screensaver: Scene
    private(set) var currentName: String
    private(set) var showingScreensaver = false
    private let chrome: ShellChrome
    /// Told when the screensaver starts (true) and ends (false).
    var onScreensaverChange: ((Bool) -> Void)?
    /// Told whenever someone is at the kiosk: any input, a panel opening or closing.
    var onActivity: (() -> Void)?
    /// Called with the scene's name after a switch (for the service's status line).
    var onSceneChange: ((String) -> Void)?
    /// Three fingers were held in the admin corner: the application opens its panel.
    var onAdminGesture: (() -> Void)? { get { chrome.onAdminHold } set { chrome.onAdminHold = newValue } }
    /// Where three fingers held still for `adminHold` seconds ask for the admin panel (nil: off).
    var adminCorner: Settings.AdminCorner? { get { chrome.adminCorner } set { chrome.adminCorner = newValue } }
    static let adminHold = ShellChrome.adminHoldSeconds
    /// Waking from the screensaver starts afresh for the next visitor: `homeScene` shows and
    /// every scene is back in its first state (`Scene.reset`). Off: everything as it was.
    var resetsOnWake = false
    /// The scene a fresh start shows (`[shell] start`).
    var homeScene: String?
    /// Outside the opening hours: a black screen, every scene paused; a touch or key goes to
    /// `onAfterHoursTouch` (which may show the screensaver for a while) and nowhere else.
    private(set) var isClosed = false
    var onAfterHoursTouch: (() -> Void)?
    private let closedScreen = BlackScreen()
    var showsSceneBar = true {
        didSet { if showsSceneBar != oldValue { updateSceneBar(); active.invalidation.addAll() } }
    }
    private var info = DisplayInfo(size: Size(width: 1, height: 1))
    private var transition: (snapshot: Image, start: Double)?
    private var time = 0.0
    static let fade = 0.3

    private let store: SceneStore?

    init(names: [String], start: String, fonts: FontCache, scheduler: Scheduler,
         startInScreensaver: Bool = false, store: SceneStore? = nil, make: @escaping (String) -> Scene) {
        self.store = store
        self.names = names.isEmpty ? [start] : names
        self.make = make
        currentName = self.names.contains(start) ? start : self.names[0]
        screensaver = make("words")
        screensaver.setActive(false)
        showingScreensaver = startInScreensaver
        if startInScreensaver { screensaver.setActive(true) }
        chrome = ShellChrome(fonts: fonts, scheduler: scheduler)
        chrome.bar.names = self.names
        chrome.onChoose = { [weak self] in self?.switchTo($0) }
        chrome.onEdgeSwipe = { [weak self] step in
            guard let self, let i = self.names.firstIndex(of: self.currentName) else { return }
            self.switchTo(self.names[(i + step + self.names.count) % self.names.count])
        }
        chrome.onWake = { [weak self] in self?.wake() }
        chrome.fallThrough.deliver = { [weak self] batch in
            guard let self else { return }
            (self.overlay ?? self.current).handle(batch)
        }
        updateChrome()
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
    private var active: Scene { overlay ?? (showingScreensaver ? screensaver : isClosed ? closedScreen : current) }
    /// What is on screen: the admin panel, the screensaver or the current scene.
    var activeScene: Scene { active }
    var invalidation: Invalidation { active.invalidation }

    func layout(_ info: DisplayInfo) {
        self.info = info
        laidOut = true
        chrome.layout(info)
        sceneInfo = Self.info(info, under: sceneBarFrames)
        current.layout(sceneInfo)
        // The screensaver and the admin panel hide the bar: they have the whole screen.
        screensaver.layout(info)
        closedScreen.layout(info)
        for (n, s) in scenes where n != currentName { s.layout(sceneInfo) }
        overlay?.layout(info)
        current.setActive(!showingScreensaver && overlay == nil && !isClosed)
        active.invalidation.addAll()
    }

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
        chrome.bar.names = names
        updateSceneBar()
        active.invalidation.addAll()
    }

    // MARK: Switching

    /// Shows scene `name` with a cross-fade; the old one is paused where it was.
    func switchTo(_ name: String) {
        guard names.contains(name), name != currentName || showingScreensaver, !isClosed else { return }
        beginTransition()
        stopScreensaver()
        current.setActive(false)
        currentName = name
        current.setActive(true)
        current.invalidation.addAll()
        updateChrome()
        onSceneChange?(name)
    }

    // MARK: Overlay and screensaver

    /// A scene shown over everything (the admin panel) while it is open.
    private(set) var overlay: Scene?

    /// Shows `scene` over everything, the scene below paused, until `closeOverlay`.
    func showOverlay(_ scene: Scene) {
        beginTransition()
        stopScreensaver()
        current.setActive(false)
        overlay = scene
        scene.layout(info)
        scene.setActive(true)
        scene.invalidation.addAll()
        updateChrome()
        onActivity?()
    }
    func closeOverlay() {
        guard let o = overlay else { return }
        beginTransition()
        o.setActive(false)
        overlay = nil
        current.setActive(!showingScreensaver && !isClosed)
        active.invalidation.addAll()
        updateChrome()
        onActivity?()
    }

    func showScreensaver() {
        guard !showingScreensaver else { return }
        if let o = overlay { o.setActive(false); overlay = nil } // an unattended panel closes
        beginTransition()
        current.setActive(false)
        showingScreensaver = true
        screensaver.setActive(true)
        screensaver.invalidation.addAll()
        updateChrome()
        onScreensaverChange?(true)
    }

    private func wake() {
        if isClosed { onAfterHoursTouch?(); return }
        guard showingScreensaver else { return }
        beginTransition()
        stopScreensaver(tell: false)
        if resetsOnWake { startAfresh() }
        current.setActive(true)
        current.invalidation.addAll()
        updateChrome()
        onScreensaverChange?(false)
    }

    // MARK: Opening hours

    /// Closing time: black, everything paused (an open admin panel closes too).
    func close() {
        guard !isClosed else { return }
        beginTransition()
        if let o = overlay { o.setActive(false); overlay = nil }
        current.setActive(false)
        isClosed = true
        stopScreensaver()
        closedScreen.invalidation.addAll()
        updateChrome()
    }

    /// Opening time: a fresh start for the first visitor of the day.
    func open() {
        guard isClosed else { return }
        beginTransition()
        stopScreensaver()
        isClosed = false
        startAfresh()
        current.setActive(overlay == nil)
        active.invalidation.addAll()
        updateChrome()
    }

    /// Stops the screensaver, back to what is underneath (black after hours).
    func endScreensaver() {
        guard showingScreensaver else { return }
        beginTransition()
        stopScreensaver()
        active.invalidation.addAll()
        updateChrome()
    }

    /// The screensaver paused and gone from the screen (the callers fade and redraw), and the
    /// application told unless the caller tells it later itself.
    private func stopScreensaver(tell: Bool = true) {
        guard showingScreensaver else { return }
        screensaver.setActive(false)
        showingScreensaver = false
        if tell { onScreensaverChange?(false) }
    }

    /// Every scene in its first state — those not made yet too, so that none comes back later
    /// with the last visitor's saved state — and the home scene on screen.
    private func startAfresh() {
        let wasCurrent = currentName
        if let home = homeScene, names.contains(home) { currentName = home }
        for n in names {
            if scenes[n] == nil {
                let s = make(n)
                if laidOut { s.layout(sceneInfo) }
                s.setActive(false)
                scenes[n] = s
            }
            scenes[n]?.reset()
        }
        updateChrome()
        if wasCurrent != currentName { onSceneChange?(currentName) }
    }

    /// Keeps what is on screen now as a picture that fades out over the next scene.
    private func beginTransition() {
        guard let img = Image(pixelSize: info.pixelSize(), hasAlpha: false, scale: info.scale) else { return }
        // Between frames (a switch happens in the middle of input): lay out what changed since
        // the last frame before drawing — without moving time, which would fire timers here.
        active.prepareContent()
        chrome.root.prepareContent()
        let c = Canvas(image: img)
        active.draw(in: c)
        chrome.root.render(in: c)
        transition = (img, time)
    }

    // MARK: Input

    func handle(_ batch: TouchBatch) {
        onActivity?()
        chrome.handle(batch)
    }

    func handle(_ key: KeyEvent) {
        onActivity?()
        if let o = overlay { o.handle(key); return }
        if showingScreensaver || isClosed {
            if key.pressed { wake() }
            return // the waking key is swallowed too
        }
        // F1–F4 choose scenes.
        if key.pressed, (Key.f1...Key.f4).contains(key.keysym) {
            let i = Int(key.keysym - Key.f1)
            if i < names.count { switchTo(names[i]) }
            return
        }
        current.handle(key)
    }

    // MARK: Scene bar

    /// The scene bar's buttons on screen (none when it is off or there is one scene).
    var sceneBarFrames: [Rect] { showsSceneBar ? chrome.bar.buttonFrames : [] }
    /// What the hosted scenes are laid out for: the display less the bar (`safeAreaInsets`).
    private var sceneInfo = DisplayInfo(size: Size(width: 1, height: 1))

    /// `info` with its top inset below the bar (and a margin), so scenes keep clear of it.
    private static func info(_ info: DisplayInfo, under bar: [Rect]) -> DisplayInfo {
        var i = info
        i.safeAreaInsets.top = max(i.safeAreaInsets.top, (bar.map(\.maxY).max() ?? 0) + (bar.isEmpty ? 0 : 6))
        return i
    }

    /// The bar came, went or changed (a setting, the list of scenes): scenes relayout to suit.
    private func updateSceneBar() {
        if laidOut { chrome.bar.layout(in: info) }
        updateChrome()
        let newInfo = Self.info(info, under: sceneBarFrames)
        guard newInfo != sceneInfo else { return }
        sceneInfo = newInfo
        guard laidOut else { return }
        for s in scenes.values { s.layout(sceneInfo) }
    }

    private func updateChrome() {
        chrome.show(bar: showsSceneBar, current: currentName, asleep: showingScreensaver || isClosed, overlay: overlay != nil)
    }

    // MARK: Frames

    func advance(to time: Double) {
        self.time = time
        active.advance(to: time)
        chrome.root.advance(to: time)
        if let t = transition {
            if time - t.start >= Self.fade { transition = nil }
            active.invalidation.addAll() // the fading picture covers the screen
        }
        // The chrome is drawn over the scene: what changed in it is repainted with the scene.
        chrome.root.invalidation.drain(into: active.invalidation)
    }

    var isAnimating: Bool { active.isAnimating || transition != nil }
    var needsFrame: Bool { active.needsFrame || chrome.needsFrame || transition != nil }

    func draw(in canvas: Canvas) {
        active.draw(in: canvas)
        chrome.root.render(in: canvas)
        if let t = transition {
            let a = 1 - min(1, max(0, (time - t.start) / Self.fade))
            canvas.draw(t.snapshot, alpha: a)
        }
    }
}

/// What the screen shows outside the opening hours: black, drawn once.
final class BlackScreen: Scene {
    let name = "closed"
    let invalidation = Invalidation()
    private var size = Size(width: 1, height: 1)
    func layout(_ info: DisplayInfo) { size = info.size; invalidation.addAll() }
    func handle(_ batch: TouchBatch) {}
    func handle(_ key: KeyEvent) {}
    func advance(to time: Double) {}
    var isAnimating: Bool { false }
    func draw(in canvas: Canvas) { canvas.fill(Rect(origin: .zero, size: size), color: .black) }
}

/// What the shell keeps across restarts.
struct ShellSaved: Codable, Equatable {
    var scene: String
}
