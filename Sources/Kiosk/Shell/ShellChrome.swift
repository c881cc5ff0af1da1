import KioskCore
import KioskRender
import KioskUI

/// What the shell lays over its scenes, built from the toolkit: the scene bar (a `Button` per
/// scene), the two screen edges a swipe comes in from (`ScreenEdgePanGestureRecognizer`), the
/// corner where three fingers held still ask for the admin panel (`LongPressGestureRecognizer`),
/// and the veil that takes the touch waking the screensaver. Its views lie over the scene in the
/// shell's window; a touch none of them takes is the scene's, as it would be without them.
final class ShellChrome {
    private unowned let window: RootView
    let bar = SceneBar()
    private let edges: [EdgeZone] = [EdgeZone(edge: .left), EdgeZone(edge: .right)]
    private let veil = Veil()
    private let adminHold = LongPressGestureRecognizer()
    /// "Do you need more time?", over the scene before a visitor's time runs out.
    let moreTime = MoreTimePrompt()

    /// A scene's button was tapped.
    var onChoose: ((String) -> Void)? { get { bar.onChoose } set { bar.onChoose = newValue } }
    /// A swipe came in from an edge: +1 for the next scene (from the right), −1 the previous.
    var onEdgeSwipe: ((Int) -> Void)?
    /// The touch that wakes the screensaver went down (it goes no further).
    var onWake: (() -> Void)? { get { veil.onTouch } set { veil.onTouch = newValue } }
    /// Three fingers were held still in the admin corner for `adminHoldSeconds`.
    var onAdminHold: (() -> Void)?
    static let adminHoldSeconds = 3.0

    /// Where the admin gesture is held (nil: off).
    var adminCorner: Settings.AdminCorner? {
        didSet { adminHold.isEnabled = adminCorner != nil }
    }

    init(window: RootView) {
        self.window = window
        // The admin hold counts three fingers wherever they land.
        window.isMultipleTouchEnabled = true
        for e in edges {
            e.pan.addTarget { [weak self] r in
                guard r.state == .began else { return }
                self?.onEdgeSwipe?(r.edge == .right ? 1 : -1)
            }
            window.addSubview(e)
        }
        // The bar over the edges (a pill near an edge is the pill's), the veil over everything.
        window.addSubview(bar)
        window.addSubview(moreTime)
        window.addSubview(veil)
        adminHold.numberOfTouchesRequired = 3
        adminHold.name = "admin hold"
        adminHold.minimumPressDuration = Self.adminHoldSeconds
        adminHold.allowableMovement = .millimetres(8)
        adminHold.isEnabled = false
        adminHold.shouldReceive = { [unowned self] t in self.inAdminCorner(t.location(in: nil)) }
        adminHold.addTarget { [weak self] r in
            // The fingers were the scene's until now: the recognizer has cancelled them there.
            guard r.state == .began, self?.adminCorner != nil else { return }
            self?.onAdminHold?()
        }
        window.addGestureRecognizer(adminHold)
    }

    /// Within 40 mm of the chosen corner: room for three fingertips, far from most controls.
    private func inAdminCorner(_ p: Point) -> Bool {
        guard let c = adminCorner else { return false }
        let info = window.info, zone = 40 * info.pointsPerMillimetre
        let left = p.x <= zone, right = p.x >= info.size.width - zone
        let top = p.y <= zone, bottom = p.y >= info.size.height - zone
        switch c {
        case .topLeft: return left && top
        case .topRight: return right && top
        case .bottomLeft: return left && bottom
        case .bottomRight: return right && bottom
        }
    }

    /// Lays the chrome out for the whole screen; the bar sits below `info`'s top inset.
    func layout(_ info: DisplayInfo) {
        for e in edges {
            let zone = e.pan.edgeWidth.points(perMillimetre: info.pointsPerMillimetre)
            e.frame = Rect(x: e.edge == .left ? 0 : info.size.width - zone, y: 0, width: zone, height: info.size.height)
        }
        veil.frame = Rect(origin: .zero, size: info.size)
        bar.layout(in: info)
        moreTime.layout(in: info)
    }

    /// Shows what suits what is on screen: the bar and the edges over a scene (with more than
    /// one to choose), the veil over the screensaver or the black of closing time (`asleep`),
    /// none of it over the admin panel, which takes every touch itself.
    func show(bar showsBar: Bool, current: String, asleep: Bool, overlay: Bool) {
        let choices = bar.names.count > 1
        bar.isHidden = !(showsBar && (choices || bar.showsLanguagePill)) || asleep || overlay
        bar.selected = current
        for e in edges { e.isHidden = !choices || overlay || asleep }
        veil.isHidden = !asleep || overlay
        adminHold.isEnabled = adminCorner != nil && !overlay
    }
}

/// The pills at the top that choose a scene: one `Button` per scene, all one width (the
/// longest title's), at least 10 mm tall, centred; the scene on screen lit. With more than one
/// visitors' language, a pill names the language on screen and a tap goes to the next. Last, two
/// round pills: "aA" turns the large high-contrast mode on and off, the international symbol of
/// access speech (each lit while on).
/// In a right-to-left language the row reads from the right.
final class SceneBar: View {
    static let fontPoints = 20.0
    private(set) var buttons: [Button] = []
    let languageButton = Button()
    let speechButton = AccessPill()
    let largeButton = LargeTextPill()
    /// The speech pill was tapped (or chosen by a double tap, with speech on).
    var onSpeech: (() -> Void)?
    var speechOn = false { didSet { if speechOn != oldValue { restyle() } } }
    /// The large-mode pill was tapped.
    var onLarge: (() -> Void)?
    var largeOn = false { didSet { if largeOn != oldValue { restyle() } } }
    var onChoose: ((String) -> Void)?
    /// The language pill was tapped.
    var onLanguage: (() -> Void)?
    var texts = Texts.kioskEnglish {
        didSet { if texts != oldValue { retitle() } }
    }
    /// The languages visitors may choose from (the pill shows with two or more).
    var languages: [Language] = [] {
        didSet { if languages != oldValue { retitle() } }
    }
    var showsLanguagePill: Bool { languages.count > 1 }
    var names: [String] = [] {
        didSet {
            guard names != oldValue else { return }
            for b in buttons { b.removeFromSuperview() }
            buttons = names.map { name in
                let b = Button()
                b.accessibilityIdentifier = "scene bar \(name)"
                b.action = { [weak self] _ in self?.onChoose?(name) }
                stylePill(b)
                addSubview(b)
                return b
            }
            retitle()
        }
    }
    var selected = "" { didSet { if selected != oldValue { restyle() } } }

    override init(frame: Rect = .zero) {
        super.init(frame: frame)
        languageButton.accessibilityIdentifier = "scene bar language"
        languageButton.action = { [weak self] _ in self?.onLanguage?() }
        stylePill(languageButton)
        addSubview(languageButton)
        largeButton.accessibilityIdentifier = "scene bar large"
        largeButton.action = { [weak self] _ in self?.onLarge?() }
        stylePill(largeButton)
        addSubview(largeButton)
        speechButton.accessibilityIdentifier = "scene bar speech"
        speechButton.action = { [weak self] _ in self?.onSpeech?() }
        stylePill(speechButton)
        addSubview(speechButton)
    }

    private func stylePill(_ b: Button) {
        b.titleLabel.fontSize = Self.fontPoints
        // Large text on a narrow panel: a long title shrinks rather than running off its pill.
        b.titleLabel.adjustsFontSizeToFitWidth = true
        b.titleLabel.minimumScaleFactor = 0.6
        // Starts on the pill or just beside it; a finger that slid off by more than
        // the gap to its neighbour no longer presses it.
        b.touchDownHitOutset = 4
        b.trackingHitOutset = 20
    }

    /// A scene's title in a language (the catalog's).
    var title: (String, Texts) -> String = SceneCatalog.standard.title { didSet { retitle() } }

    private func retitle() {
        for (b, name) in zip(buttons, names) { b.title = title(name, texts) }
        languageButton.title = texts.language.name
        languageButton.isHidden = !showsLanguagePill
        speechButton.accessibilityLabel = texts["access.speech"]
        largeButton.accessibilityLabel = texts["access.large"]
        restyle()
    }

    private func restyle() {
        for (b, name) in zip(buttons, names) {
            let lit = name == selected
            b.backgroundColor = lit ? Color.sky.withAlpha(0.85) : Color.black.withAlpha(0.45)
            b.titleLabel.textColor = lit ? Color.ink : Color.paper
            b.accessibilityTraits = lit ? [.scene, .selected] : .scene
        }
        languageButton.backgroundColor = Color.black.withAlpha(0.45)
        languageButton.titleLabel.textColor = Color.paper
        for (pill, on) in [(speechButton as AccessPill, speechOn), (largeButton, largeOn)] {
            pill.backgroundColor = on ? Color.sky.withAlpha(0.85) : Color.black.withAlpha(0.45)
            pill.symbolColor = on ? Color.ink : Color.paper
            pill.accessibilityTraits = on ? [.button, .selected] : .button
        }
    }

    /// The scene pills' frames, the language pill's and the two access pills' for `info` (below
    /// its top inset): none for one scene and one language.
    static func frames(for names: [String], languageTitle: String?, rightToLeft: Bool, titles: [String],
                       in info: DisplayInfo, fonts: FontCache) -> (scenes: [Rect], language: Rect?, access: [Rect]) {
        // One scene needs no pill to choose it; one language none either.
        let sceneCount = names.count > 1 ? names.count : 0
        guard sceneCount > 0 || languageTitle != nil else { return ([], nil, []) }
        let mm = info.pointsPerMillimetre, gap = 8.0
        let font = fonts.font(points: fontPoints, scale: 1)
        let h = max(40, (info.isLarge ? 15 : 10) * mm)
        // The language pill as wide as its name; the scene pills share one width, wide enough for
        // the longest title, and the whole row on screen.
        let lw = languageTitle.map { max(h * 1.6, (font?.layout($0).width ?? 0) + h * 0.8) } ?? 0
        let widest = titles.map { font?.layout($0).width ?? 0 }.max() ?? 0
        let wanted = max(110, 28 * mm, widest + h * 0.8)
        // One row where every title fits its pill (shrunk at most to its least size); else the
        // scene pills' first half on a row of their own above the rest (many scenes, large text).
        let least = widest * 0.6 + 14
        func fits(scenes n: Int, others: Bool) -> Bool {
            let pills = Double(n) + (others ? Double(languageTitle == nil ? 0 : 1) + 2 : 0)
            return n == 0 || (info.size.width - 16 - (pills - 1) * gap - (others ? lw + 2 * h : 0)) / Double(n) >= least
        }
        let rows = fits(scenes: sceneCount, others: true) || sceneCount < 2 ? [sceneCount] : [(sceneCount + 1) / 2, sceneCount / 2]
        // Below any chrome already at the top (the stats overlay).
        var y = info.safeAreaInsets.top + 6
        var scenes: [Rect] = [], language: Rect?, access: [Rect] = []
        for (r, n) in rows.enumerated() {
            let last = r == rows.count - 1
            let pills = Double(n) + (last ? Double(languageTitle == nil ? 0 : 1) + 2 : 0)
            let room = info.size.width - 16 - (pills - 1) * gap - (last ? lw + 2 * h : 0)
            let w = n > 0 ? min(wanted, room / Double(n)) : 0
            var widths = Array(repeating: w, count: n) + (last ? (languageTitle == nil ? [] : [lw]) + [h, h] : [])
            let total = widths.reduce(0, +) + (pills - 1) * gap
            var x = (info.size.width - total) / 2
            if rightToLeft { widths.reverse() }
            var rects: [Rect] = []
            for width in widths { rects.append(Rect(x: x, y: y, width: width, height: h)); x += width + gap }
            if rightToLeft { rects.reverse() }
            if last {
                access = Array(rects.suffix(2))
                rects.removeLast(2)
                language = languageTitle == nil ? nil : rects.removeLast()
            }
            scenes += rects
            y += h + gap
        }
        return (scenes, language, access)
    }

    /// The scene pills' frames on screen, as last laid out; the language pill's; the large
    /// mode's and the speech pill's (in that order, reading order).
    private(set) var buttonFrames: [Rect] = []
    private(set) var languageFrame: Rect?
    private(set) var accessFrames: [Rect] = []
    /// Every pill's frame: what the scenes keep clear of.
    var allFrames: [Rect] { buttonFrames + [languageFrame].compactMap { $0 } + accessFrames }

    func layout(in info: DisplayInfo) {
        guard let fonts = root?.fonts else { return }
        (buttonFrames, languageFrame, accessFrames) = Self.frames(for: names, languageTitle: showsLanguagePill ? texts.language.name : nil,
                                                    rightToLeft: texts.isRightToLeft, titles: names.map { title($0, texts) },
                                                    in: info, fonts: fonts)
        let all = allFrames
        guard let minX = all.map(\.minX).min(), let maxX = all.map(\.maxX).max(), let minY = all.map(\.minY).min(),
              let maxY = all.map(\.maxY).max() else { frame = .zero; return }
        frame = Rect(x: minX, y: minY, width: maxX - minX, height: maxY - minY)
        for b in buttons.dropFirst(buttonFrames.count) { b.frame = .zero }
        for (b, f) in zip(buttons, buttonFrames) {
            b.frame = f.offsetBy(dx: -minX, dy: -minY)
            b.cornerRadius = f.height / 2
        }
        if let f = languageFrame {
            languageButton.frame = f.offsetBy(dx: -minX, dy: -minY)
            languageButton.cornerRadius = f.height / 2
        }
        for (pill, f) in zip([largeButton as AccessPill, speechButton], accessFrames + [.zero, .zero]) {
            pill.frame = f.isEmpty ? .zero : f.offsetBy(dx: -minX, dy: -minY)
            pill.cornerRadius = pill.frame.height / 2
        }
    }
}

/// A strip along a screen edge where a swipe may start: it keeps its touches from the scene
/// while they might become one (a scene never sees a touch that began there).
final class EdgeZone: View {
    let pan: ScreenEdgePanGestureRecognizer
    var edge: ScreenEdgePanGestureRecognizer.Edge { pan.edge }
    init(edge: ScreenEdgePanGestureRecognizer.Edge) {
        pan = ScreenEdgePanGestureRecognizer(edge: edge)
        pan.name = "edge swipe"
        super.init(frame: .zero)
        isMultipleTouchEnabled = true
        addGestureRecognizer(pan)
    }
    override func touchesBegan(_ touches: Set<Touch>, event: TouchEvent) {}
    override func touchesMoved(_ touches: Set<Touch>, event: TouchEvent) {}
    override func touchesEnded(_ touches: Set<Touch>, event: TouchEvent) {}
    override func touchesCancelled(_ touches: Set<Touch>, event: TouchEvent) {}
}

/// Over the screensaver: the touch that wakes the kiosk lands here and nowhere else, for its
/// whole life, so it never presses what the screensaver uncovers.
final class Veil: View {
    var onTouch: (() -> Void)?
    override func touchesBegan(_ touches: Set<Touch>, event: TouchEvent) { onTouch?() }
    override func touchesMoved(_ touches: Set<Touch>, event: TouchEvent) {}
    override func touchesEnded(_ touches: Set<Touch>, event: TouchEvent) {}
    override func touchesCancelled(_ touches: Set<Touch>, event: TouchEvent) {}
}

/// The speech pill: the international symbol of access (a person with open arms in a circle),
/// drawn to the pill's size, so it reads in every language.
class AccessPill: Button {
    var symbolColor = Color.paper { didSet { if symbolColor != oldValue { setNeedsDisplay() } } }
    override var drawsContent: Bool { true }
    override var highContrastOutline: Color? { super.highContrastOutline == nil ? nil : symbolColor }

    override func draw(in canvas: Canvas) {
        let h = min(bounds.width, bounds.height), c = Point(x: bounds.width / 2, y: bounds.height / 2)
        let line = max(1.5, h * 0.06), color = symbolColor
        canvas.strokeCircle(center: c, radius: h * 0.38, width: line, color: color)
        canvas.fillCircle(center: Point(x: c.x, y: c.y - h * 0.2), radius: h * 0.055, color: color)
        canvas.strokeLine(from: Point(x: c.x - h * 0.2, y: c.y - h * 0.09), to: Point(x: c.x + h * 0.2, y: c.y - h * 0.09), width: line, color: color)
        canvas.strokeLine(from: Point(x: c.x, y: c.y - h * 0.12), to: Point(x: c.x, y: c.y + h * 0.06), width: line, color: color)
        canvas.strokeLine(from: Point(x: c.x, y: c.y + h * 0.06), to: Point(x: c.x - h * 0.11, y: c.y + h * 0.25), width: line, color: color)
        canvas.strokeLine(from: Point(x: c.x, y: c.y + h * 0.06), to: Point(x: c.x + h * 0.11, y: c.y + h * 0.25), width: line, color: color)
    }
}

/// Asks a visitor in accessible use whether they need more time, before their time runs out:
/// large text in a dark box across the middle of the screen. Any touch answers it (the shell
/// counts every touch as activity), so the box itself takes none.
final class MoreTimePrompt: View {
    let label = Label()

    override init(frame: Rect = .zero) {
        super.init(frame: frame)
        isHidden = true
        isUserInteractionEnabled = false
        backgroundColor = Color(rgb: 0x10161f)
        borderColor = Color.lemon
        borderWidth = 4
        cornerRadius = 16
        label.fontSize = 32
        label.textColor = Color.paper
        label.alignment = .center
        label.numberOfLines = 3
        addSubview(label)
    }

    func layout(in info: DisplayInfo) {
        let width = min(info.size.width - 48, 900), height = min(info.size.height - 48, 220.0)
        frame = Rect(x: (info.size.width - width) / 2, y: (info.size.height - height) / 2, width: width, height: height)
        label.frame = Rect(x: 24, y: 24, width: width - 48, height: height - 48)
    }
}

/// The large-mode pill: a small "a" beside a large "A", the usual sign for text size.
final class LargeTextPill: AccessPill {
    override func draw(in canvas: Canvas) {
        let h = min(bounds.width, bounds.height)
        guard let fonts = root?.fonts, let big = fonts.font(points: h * 0.5, scale: canvas.scale),
              let small = fonts.font(points: h * 0.3, scale: canvas.scale) else { return }
        let a = small.layout("a"), A = big.layout("A"), gap = h * 0.02
        let x = (bounds.width - a.width - gap - A.width) / 2, baseline = bounds.height / 2 + big.ascent * 0.36
        canvas.draw(a, at: Point(x: x, y: baseline), color: symbolColor)
        canvas.draw(A, at: Point(x: x + a.width + gap, y: baseline), color: symbolColor)
    }
}
