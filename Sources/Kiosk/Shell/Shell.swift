import KioskCore
import KioskRender
import KioskUI

/// What the screen shows: one value, changed only by `Shell.show(_:)` (and a scene switch).
enum Showing: Equatable {
    /// The current scene, under the scene bar.
    case scene
    /// Nobody here: the falling words; the touch that wakes the scene is swallowed.
    case screensaver
    /// Outside the opening hours: black, everything paused.
    case closed
    /// Closed, but a visitor touched: the screensaver for a while.
    case afterHoursWake
    /// Nobody here through the screensaver's `blank_delay`: black, the panel off; a touch wakes
    /// the scene as from the screensaver.
    case blank
    /// The admin panel over everything.
    case admin(ViewScene)

    static func == (a: Showing, b: Showing) -> Bool {
        switch (a, b) {
        case (.scene, .scene), (.screensaver, .screensaver), (.closed, .closed), (.afterHoursWake, .afterHoursWake),
             (.blank, .blank): return true
        case let (.admin(x), .admin(y)): return x === y
        default: return false
        }
    }
    /// The screensaver is on screen (for nobody here, or for a visitor after hours).
    var isScreensaver: Bool { self == .screensaver || self == .afterHoursWake }
    /// Outside the opening hours.
    var isClosed: Bool { self == .closed || self == .afterHoursWake }
    /// Black: nothing to see, the screen goes off.
    var isDark: Bool { self == .closed || self == .blank }
    /// Nobody here (the screensaver, or its black after `blank_delay`): a touch wakes the scene.
    var isAsleep: Bool { self == .screensaver || self == .blank }
    /// The screensaver (also a visitor's after hours) or its black: what the journal and the
    /// metrics count as the screensaver's time.
    var showsScreensaverOrItsBlack: Bool { isScreensaver || self == .blank }
    var isAdmin: Bool { if case .admin = self { return true } else { return false } }
}

/// The kiosk shell, a container of scenes as UIKit's container view controllers: its window
/// (one root view for the whole screen) shows the scene on screen, the admin panel or closing
/// time's black, under the chrome — scene bar, edge zones, veil (`ShellChrome`). One hit test,
/// one gesture arena and one damage region serve them all. It switches scenes with a
/// short cross-fade — from the scene bar, F1–F4, or a swipe in from a screen edge (the chrome,
/// `ShellChrome`, recognizes those) — and shows the screensaver, closing time's black or the
/// admin panel when told to (`show`). The touch that wakes the screensaver is swallowed — it
/// never presses what is underneath — and the previous scene comes back exactly as it was (it
/// was paused, not reset), or fresh for the next visitor (`resetsOnWake`).
final class Shell: Scene {
    let name = "shell"
    private(set) var names: [String]
    private var scenes: [String: ViewScene] = [:]
    private var make: (String) -> ViewScene
    private var screensaver: ViewScene
    /// The whole screen: the scene on screen first, the chrome over it, the fade on top.
    let window: RootView
    private(set) var currentName: String
    private(set) var showing: Showing { didSet { suspendSpeechWhileAsleep() } }
    private let chrome: ShellChrome
    /// Told after what the screen shows changed (the old value, then `showing` is the new).
    let showingChanged = Observers<Showing>()
    /// Told when the screen goes black for closing time or after the screensaver (true) and when
    /// it shows something again (false): the panel itself goes off and on.
    let darkChanged = Observers<Bool>()
    /// Told whenever someone is at the kiosk: any input, a panel opening or closing.
    let activity = Observers<Void>()
    /// An overlay (the admin panel, the setup) gave way to something else: its own end, the
    /// screensaver, closing time.
    let overlayLeft = Observers<ViewScene>()
    /// Told the scene's name after a switch (for the service's status line).
    let sceneChanged = Observers<String>()
    /// Three fingers were held in the admin corner: the operators' screens open the panel.
    let adminAsked = Observers<Void>()
    /// A touch or key while closed (black or the after-hours screensaver): it goes here and
    /// nowhere else.
    let afterHoursTouch = Observers<Void>()
    /// Where three fingers held still for `adminHold` seconds ask for the admin panel (nil: off).
    var adminCorner: Settings.AdminCorner? { get { chrome.adminCorner } set { chrome.adminCorner = newValue } }
    static let adminHold = ShellChrome.adminHoldSeconds
    /// Waking from the screensaver starts afresh for the next visitor: `homeScene` shows and
    /// every scene is back in its first state (`Scene.reset`). Off: everything as it was.
    var resetsOnWake = false
    /// How the visitor here now uses the kiosk: what the bar's pills chose (and the language's
    /// in `texts`); each change is shown at once.
    private(set) var visitor = VisitorMode() {
        didSet { show(visitor, over: oldValue) }
    }
    /// What each new visitor finds: the site's language, large mode and speech.
    var siteMode = VisitorMode()
    /// The large high-contrast mode for the visitor here now (the bar's "aA" pill).
    var isLarge: Bool {
        get { visitor.isLarge }
        set { visitor.isLarge = newValue }
    }
    /// Speech for the visitor here now (the bar's speech pill).
    func setSpeech(_ on: Bool) { visitor.speaks = on }
    /// The language on screen.
    var texts: Texts { visitor.texts }
    /// Operators' screens (the admin panel, the setup, the touch test) keep their own size: the
    /// mode is the visitors'.
    var prefersLargeDisplay: Bool {
        isLarge && !showing.isAdmin && !(showing == .scene && catalog.description(currentName)?.audience == .operators)
    }
    /// The scene a fresh start shows (`[shell] start`).
    var homeScene: String?
    private let closedScreen: BlackScreen
    /// The picture that was on screen before a change, fading out over the new one.
    private let fadeView = FadeView()
    private var fadeStart: Double?
    /// The scene view in the window now.
    private weak var mounted: SceneView?
    var showsSceneBar = true {
        didSet { if showsSceneBar != oldValue { updateSceneBar(); active.invalidation.addAll() } }
    }
    private var info = DisplayInfo(size: Size(width: 1, height: 1))
    /// How high the screen's top edge is above the floor, in millimetres (`[access]
    /// reach_height_mm`; 0: not known): what lies above a seated visitor's reach gets no controls.
    var mountingHeight = 0.0 {
        didSet { if mountingHeight != oldValue && laidOut { layout(info) } }
    }
    /// The screen as the bar and the scenes see it: below the reach line, when there is one.
    private var reachableInfo: DisplayInfo {
        var i = info
        i.safeAreaInsets.top = max(i.safeAreaInsets.top, Reach.unreachableTop(of: info, mountingHeight: mountingHeight))
        return i
    }
    private var time = 0.0
    static let fade = 0.3

    private let store: SceneStore?

    /// The scenes' descriptions: the screensaver's name, the pills' titles.
    let catalog: SceneCatalog

    /// The scene idle shows (`SceneCatalog.screensaverName`).
    private(set) var screensaverName: String

    init(names: [String], start: String, fonts: FontCache, scheduler: Scheduler, catalog: SceneCatalog = .standard,
         screensaver saverName: String? = nil, startInScreensaver: Bool = false, store: SceneStore? = nil,
         make: @escaping (String) -> ViewScene) {
        self.store = store
        self.catalog = catalog
        self.names = names.isEmpty ? [start] : names
        self.make = make
        currentName = self.names.contains(start) ? start : self.names[0]
        screensaverName = saverName ?? catalog.screensaverName(SettingsSections())
        screensaver = Self.taken(make(screensaverName))
        showing = startInScreensaver ? .screensaver : .scene
        screensaver.setActive(startInScreensaver)
        closedScreen = Self.taken(BlackScreen(fonts: fonts, scheduler: scheduler))
        window = RootView(info: info, fonts: fonts, scheduler: scheduler)
        chrome = ShellChrome(window: window)
        fadeView.isUserInteractionEnabled = false
        fadeView.addDisplayLink(wantsFrames: { [unowned self] in fadeStart != nil }) { [unowned self] time in fade(to: time) }
        chrome.bar.title = catalog.title
        chrome.bar.names = self.names
        chrome.onChoose = { [weak self] in self?.switchTo($0) }
        chrome.onEdgeSwipe = { [weak self] step in
            guard let self, let i = self.names.firstIndex(of: self.currentName) else { return }
            self.switchTo(self.names[(i + step + self.names.count) % self.names.count])
        }
        chrome.onWake = { [weak self] in self?.wake() }
        chrome.onAdminHold = { [weak self] in self?.adminAsked.tell() }
        chrome.bar.onLanguage = { [weak self] in self?.nextLanguage() }
        chrome.bar.onSpeech = { [weak self] in self?.visitor.speaks.toggle() }
        chrome.bar.onLarge = { [weak self] in self?.visitor.isLarge.toggle() }
        // The reader is turned by its own gestures and keys too: the mode follows it.
        window.screenReader.onChange = { [weak self] on in self?.visitor.speaks = on }
        updateChrome()
        suspendSpeechWhileAsleep()
    }

    // MARK: Languages

    /// The scene bar (tests look at its pills).
    var chromeBar: SceneBar { chrome.bar }

    /// The languages visitors may choose (the kiosk's own first).
    private(set) var languageTexts = [Texts.kioskEnglish]
    /// Told when a visitor chose another language (not when a fresh start brings the default back).
    let languageChosen = Observers<Language>()

    /// New languages (settings): the first is shown at once, and after every fresh start.
    func setLanguages(_ list: [Texts]) {
        let list = list.isEmpty ? [Texts.kioskEnglish] : list
        guard list != languageTexts else { return }
        languageTexts = list
        chrome.bar.languages = list.map(\.language)
        siteMode.texts = list[0]
        change { visitor.texts = list[0] }
    }

    /// The language pill: the next language, everything relaid out in it.
    func nextLanguage() {
        guard languageTexts.count > 1, showing == .scene else { return }
        let i = languageTexts.firstIndex { $0.language == texts.language } ?? 0
        let next = languageTexts[(i + 1) % languageTexts.count]
        change { visitor.texts = next }
        languageChosen.tell(next.language)
    }

    /// The visitor's mode on screen and in the voice: every scene, the screensaver and the bar
    /// in its language, the pills lit as it is. Speech is turned here (a fresh start's without a
    /// word: nobody is there).
    private func show(_ mode: VisitorMode, over old: VisitorMode, saying: Bool = true) {
        if mode.texts != old.texts {
            for s in scenes.values { s.texts = mode.texts }
            screensaver.texts = mode.texts
            chrome.bar.texts = mode.texts
            window.screenReader.texts = mode.texts
            updateSceneBar()
        }
        if mode.isLarge != old.isLarge {
            chrome.bar.largeOn = mode.isLarge
            window.invalidation.addAll() // the stage sees the wish on its next frame
        }
        if mode.speaks != old.speaks {
            window.screenReader.setOn(mode.speaks, saying: saying && !startingAfresh)
            chrome.bar.speechOn = mode.speaks
            activity.tell() // the visitor's time is counted anew, at its accessible length
        }
    }
    /// A fresh start is putting the site's mode back.
    private var startingAfresh = false

    /// A scene made by `make`, in the language on screen.
    private func made(_ name: String) -> ViewScene {
        let s = Self.taken(make(name))
        s.texts = texts
        return s
    }

    /// A scene this shell's window shows: it never gets a window of its own.
    private static func taken<S: ViewScene>(_ scene: S) -> S {
        scene.isHostedElsewhere = true
        return scene
    }

    var current: ViewScene {
        if let s = scenes[currentName] { return s }
        let s = made(currentName)
        // Never at the placeholder size: a scene laid out at 1×1 (a setting applied before the
        // first layout) would animate from there into place (the tiles flew in from the left).
        if laidOut { s.layout(sceneInfo) }
        scenes[currentName] = s
        return s
    }
    /// Whether `layout` has run: `info` is the real display, not the placeholder.
    private var laidOut = false
    /// What is on screen: the admin panel, the screensaver, closing time's black or the scene.
    var activeScene: ViewScene {
        switch showing {
        case .scene: return current
        case .screensaver, .afterHoursWake: return screensaver
        case .closed, .blank: return closedScreen
        case .admin(let panel): return panel
        }
    }
    private var active: ViewScene { activeScene }
    var invalidation: Invalidation { window.invalidation }
    /// The admin panel while it is open.
    var overlay: ViewScene? { if case .admin(let panel) = showing { return panel } else { return nil } }
    var showingScreensaver: Bool { showing.isScreensaver }
    var isClosed: Bool { showing.isClosed }

    func layout(_ info: DisplayInfo) {
        self.info = info
        laidOut = true
        window.setDisplay(info)
        fadeView.frame = Rect(origin: .zero, size: info.size)
        chrome.layout(reachableInfo)
        sceneInfo = Self.info(reachableInfo, under: sceneBarFrames)
        // The screensaver and the admin panel hide the bar: they have the whole screen.
        screensaver.layout(info)
        closedScreen.layout(info)
        for s in scenes.values { s.layout(sceneInfo) }
        overlay?.layout(info)
        mount()
        active.setActive(true)
        window.screenReader.refresh()
    }

    func prepareContent() { mount(); window.prepareContent() }
    func saveState() {
        for s in scenes.values { s.saveState() }
        store?.save(ShellSaved(scene: currentName), name: "shell")
    }
    func setActive(_ on: Bool) { active.setActive(on) }

    // MARK: Changing what is shown

    /// Shows `next` with a cross-fade: what was on screen is paused where it was. Opening time
    /// (from closed) starts afresh for the first visitor, and so does waking the screensaver
    /// when `resetsOnWake` is on.
    func show(_ next: Showing) {
        guard next != showing else { return }
        let old = showing
        defer { if case .admin(let gone) = old { overlayLeft.tell(gone) } }
        change {
            showing = next
            if case .admin(let panel) = next { Self.taken(panel).layout(info) }
            if next == .scene && (old.isClosed || old.isAsleep && resetsOnWake) { startAfresh() }
        }
        if next.isAdmin || old.isAdmin { activity.tell() }
    }

    // MARK: More time

    /// Whether the visitor uses the kiosk the accessible way (speech on): more time is given.
    var isAccessibleUse: Bool { visitor.speaks }

    /// Asks, on screen and aloud, whether the visitor needs more time; any touch answers it.
    func askForMoreTime() {
        guard showing == .scene else { return }
        chrome.moreTime.label.text = texts["access.moreTime"]
        chrome.moreTime.isHidden = false
        window.screenReader.announce(chrome.moreTime.label.text)
    }

    /// The visitor answered (any input), or their time ran out.
    func hideMoreTimePrompt() { chrome.moreTime.isHidden = true }
    var isAskingForMoreTime: Bool { !chrome.moreTime.isHidden }

    /// Shows scene `name` with a cross-fade (ending the screensaver); the old one is paused
    /// where it was. Not while closed or while the admin panel is open.
    func switchTo(_ name: String) {
        guard names.contains(name), showing == .scene && name != currentName || showing.isAsleep else { return }
        change {
            showing = .scene
            currentName = name
        }
    }

    /// Applies new scene settings live (a settings reload): scenes no longer in `names` are
    /// saved and dropped; the scenes in `rebuild` (and the screensaver, if it is in it) are
    /// saved and made anew through `make`, so they come back with their state and the new
    /// settings; the scene on screen stays if it is still listed, else the first one shows.
    func reconfigure(names newNames: [String], rebuild: Set<String>, screensaver saverName: String? = nil,
                     make newMake: @escaping (String) -> ViewScene) {
        let newNames = newNames.isEmpty ? [currentName] : newNames
        let saverName = saverName ?? screensaverName
        guard newNames != names || !rebuild.isEmpty || saverName != screensaverName else { return }
        change {
            make = newMake
            for (n, s) in scenes where rebuild.contains(n) || !newNames.contains(n) {
                s.saveState()
                s.setActive(false)
                scenes[n] = nil
            }
            if rebuild.contains(saverName) || saverName != screensaverName {
                screensaver.setActive(false)
                screensaverName = saverName
                screensaver = Self.taken(newMake(saverName))
                screensaver.texts = texts
                screensaver.layout(info)
            }
            names = newNames
            if !names.contains(currentName) { currentName = names[0] }
            chrome.bar.names = names
            updateSceneBar()
        }
    }

    /// The steps every change of what is shown takes, once: the picture on screen kept to fade
    /// out, what left the screen paused and what came on resumed and repainted, the chrome
    /// suited to it, and whoever listens told.
    private func change(_ body: () -> Void) {
        let (oldShowing, oldName, oldActive) = (showing, currentName, active)
        beginTransition()
        body()
        let now = active
        if now !== oldActive { oldActive.setActive(false) }
        mount()
        now.setActive(true)
        updateChrome()
        window.screenReader.refresh()
        if showing != oldShowing { showingChanged.tell(oldShowing) }
        if showing.isDark != oldShowing.isDark { darkChanged.tell(showing.isDark) }
        if currentName != oldName {
            sceneChanged.tell(currentName)
            if showing == .scene { window.screenReader.announce(chrome.bar.title(currentName, texts)) }
        }
    }

    private func wake() {
        switch showing {
        case .screensaver, .blank: show(.scene)
        case .closed, .afterHoursWake: afterHoursTouch.tell()
        case .scene, .admin: break
        }
    }

    /// Every scene in its first state — those not made yet too, so that none comes back later
    /// with the last visitor's saved state — and the home scene current.
    private func startAfresh() {
        if let home = homeScene, names.contains(home) { currentName = home }
        startingAfresh = true
        visitor = siteMode
        startingAfresh = false
        for n in names {
            if scenes[n] == nil {
                let s = made(n)
                if laidOut { s.layout(sceneInfo) }
                s.setActive(false)
                scenes[n] = s
            }
            scenes[n]?.reset()
        }
    }

    /// Puts the active scene's view in the window, in place of the one there.
    private func mount() {
        let v = active.view
        guard v !== mounted else { return }
        mounted?.removeFromSuperview()
        window.insertSubview(v, at: 0)
        mounted = v
        window.invalidation.maximumRects = active.maximumDamageRects
    }

    /// Keeps what is on screen now as a picture that fades out over the next scene.
    private func beginTransition() {
        // Before the first frame nothing is on screen to fade from (the setup at the first start).
        guard laidOut, hasDrawn, let img = Image(pixelSize: info.pixelSize(), hasAlpha: false, scale: info.scale) else { return }
        // Between frames (a switch happens in the middle of input): lay out what changed since
        // the last frame before drawing — without moving time, which would fire timers here.
        fadeView.removeFromSuperview()
        window.prepareContent()
        let canvas = Canvas(image: img)
        canvas.highContrast = info.isLarge
        window.render(in: canvas)
        fadeView.image = img
        fadeView.alpha = 1
        window.addSubview(fadeView)
        fadeStart = time
    }

    /// The screensaver and closing time's black take touches as they come: one wakes them.
    private func suspendSpeechWhileAsleep() {
        window.screenReader.isSuspended = showing.isAsleep || showing.isClosed
    }

    // MARK: Input

    func handle(_ batch: TouchBatch) {
        activity.tell()
        window.handle(batch)
    }

    /// A contact the touch filter ignored (scene points): the scene on screen may show it.
    func ignoredContact(at location: Point, rule: TouchFilter.Rule) {
        if showing == .scene { current.ignoredContact(at: location, rule: rule) }
    }

    func handle(_ key: KeyEvent) {
        activity.tell()
        switch showing {
        case .admin(let panel): panel.handle(key)
        case .screensaver, .closed, .afterHoursWake, .blank:
            if key.pressed { wake() } // the waking key is swallowed too
        case .scene:
            // A keypad moves through the controls (Tab, Enter) before the scene has the key.
            if window.screenReader.handle(key) { return }
            // F1–F4 choose scenes.
            if key.pressed, (Key.f1...Key.f4).contains(key.keysym) {
                let i = Int(key.keysym - Key.f1)
                if i < names.count { switchTo(names[i]) }
                return
            }
            current.handle(key)
        }
    }

    // MARK: Scene bar

    /// The scene bar's buttons on screen (none when it is off or there is one scene).
    var sceneBarFrames: [Rect] { showsSceneBar ? chrome.bar.allFrames : [] }
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
        if laidOut { chrome.bar.layout(in: reachableInfo) }
        updateChrome()
        let newInfo = Self.info(reachableInfo, under: sceneBarFrames)
        guard newInfo != sceneInfo else { return }
        sceneInfo = newInfo
        guard laidOut else { return }
        for s in scenes.values { s.layout(sceneInfo) }
    }

    private func updateChrome() {
        chrome.show(bar: showsSceneBar, current: currentName, asleep: showing.isScreensaver || showing.isDark, overlay: overlay != nil)
    }

    // MARK: Frames

    /// The window moved to `time`: the scene on screen's display links, the fade, timers and
    /// animations.
    func advance(to time: Double) {
        self.time = time
        window.advance(to: time)
    }

    var needsFrame: Bool { window.needsFrame }

    /// The picture of the last screen fades out over `fade` seconds.
    private func fade(to time: Double) {
        guard let start = fadeStart else { return }
        let a = 1 - (time - start) / Self.fade
        if a > 0 { fadeView.alpha = a } else { fadeView.removeFromSuperview(); fadeView.image = nil; fadeStart = nil }
    }

    func draw(in canvas: Canvas) {
        window.render(in: canvas)
        hasDrawn = true
    }
    private var hasDrawn = false
}

/// What the screen shows outside the opening hours: black.
final class BlackScreen: ViewScene {
    init(fonts: FontCache = FontCache(), scheduler: Scheduler = ManualScheduler()) {
        super.init(name: "closed", fonts: fonts, scheduler: scheduler)
    }
    override func build(in view: SceneView) { view.backgroundColor = .black }
}

/// A picture drawn straight into the frame at its alpha (the cross-fade's old screen): no
/// layer of its own, which would be a second full-screen copy.
final class FadeView: View {
    var image: Image? { didSet { setNeedsDisplay() } }
    override var drawsContent: Bool { true }
    override var drawsDirectly: Bool { true }
    override func drawDirectly(in canvas: Canvas, origin: Point, alpha: Double) {
        guard let image else { return }
        canvas.draw(image, transform: AffineTransform(translationX: origin.x, y: origin.y), alpha: alpha)
    }
}

/// What the shell keeps across restarts.
struct ShellSaved: Codable, Equatable {
    var scene: String
}
