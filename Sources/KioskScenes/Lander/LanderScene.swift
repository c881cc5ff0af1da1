#if canImport(Glibc)
import Glibc
#endif
import KioskCore
import KioskRender
import KioskUI

/// What the lander keeps across restarts.
struct LanderSaved: Codable, Equatable {
    var version = 1
    var flight: LanderState
    /// The pad's centre as fractions of the screen, once someone has moved it.
    var padX: Double?
    var padY: Double?
}

/// A rocket over the lunar surface that a member of the public flies with their thumbs: a
/// three-button pad (turn port, fire, turn starboard) with true multi-touch, a readout, a help
/// overlay, double tap to start again, and the flight kept across restarts.
public final class LanderScene: ViewScene {
    public internal(set) var model: LanderModel
    public enum Side: Sendable {
        case left, right
        /// The side a language reads toward: where the pad goes when no side is set.
        public static func trailing(rightToLeft: Bool) -> Side { rightToLeft ? .left : .right }
    }
    /// Which bottom corner the pad starts in (a setting; moving it by hand overrides this);
    /// nil: the trailing one — right, or left in a right-to-left language.
    public var padSide: Side?
    var effectivePadSide: Side { padSide ?? .trailing(rightToLeft: view.isRightToLeft) }
    private let store: SceneStore?
    private let themeDirectory: String?
    private let report: (String) -> Void

    let background = View()
    let terrainView = TerrainView()
    let ship = ShipView()
    let readout = Label()
    let message = Label()
    let flyAgain = Button()
    let infoButton = Button()
    let pad = ControlPad()
    private(set) var help: Panel?
    private var padFraction: Point?
    private var keyEngine = false, keyTurn = 0
    private var lastTime: Double?
    private var isActive = true
    private var shownOutcome = LanderOutcome.flying
    /// Whether this flight's controls were used yet. With speech on, the rocket waits for
    /// that: a visitor who explores the screen by touch first must not crash meanwhile.
    private var controlsUsed = false
    private var waitsForTheVisitor: Bool { !controlsUsed && view.root?.screenReader.isOn == true }

    public init(fonts: FontCache, scheduler: Scheduler = ManualScheduler(), store: SceneStore? = nil,
                themeDirectory: String? = nil, report: @escaping (String) -> Void = { _ in }) {
        model = LanderModel()
        model.reset()
        self.store = store
        self.themeDirectory = themeDirectory
        self.report = report
        var savedPad: Point?
        if let saved = store?.load(LanderSaved.self, name: "lander") {
            if saved.version == 1 && saved.flight.isPlausible {
                model.state = saved.flight
            } else {
                let p = store!.path("lander")
                report("\(p): saved flight is out of range; \(store!.moveAside(p)); starting a fresh flight")
            }
            if let x = saved.padX, let y = saved.padY, (0...1).contains(x), (0...1).contains(y) { savedPad = Point(x: x, y: y) }
        }
        super.init(name: "lander", fonts: fonts, scheduler: scheduler, texts: Self.textTable)
        padFraction = savedPad
    }

    // MARK: Building

    public override func build(in view: SceneView) {
        view.backgroundColor = Color.space
        // The flight, flown up to each frame's time; frames keep coming while it flies.
        view.addDisplayLink(wantsFrames: { [unowned self] in isFlown }) { [unowned self] time in
            fly(until: time)
            updateViews()
        }
        // Double tap anywhere outside the pad starts a new flight.
        let doubleTap = TapGestureRecognizer { [unowned self] _ in restart() }
        doubleTap.numberOfTapsRequired = 2
        doubleTap.name = "double tap"
        background.addGestureRecognizer(doubleTap)
        view.addSubview(background)
        view.addSubview(terrainView)
        ship.load(themeDirectory: themeDirectory, report: report)
        view.addSubview(ship)

        readout.fontSize = 20
        readout.textColor = Color.mist
        readout.isUserInteractionEnabled = false
        view.addSubview(readout)

        message.fontSize = 40
        message.alignment = .center
        message.isUserInteractionEnabled = false
        message.isHidden = true
        view.addSubview(message)
        flyAgain.titleLabel.fontSize = 24
        flyAgain.titleLabel.textColor = Color.space
        flyAgain.backgroundColor = Color.leaf
        flyAgain.cornerRadius = 12
        flyAgain.isHidden = true
        flyAgain.action = { [unowned self] _ in restart() }
        view.addSubview(flyAgain)

        infoButton.title = "i"
        infoButton.titleLabel.fontSize = 24
        infoButton.titleLabel.textColor = Color.space
        infoButton.backgroundColor = Color.sky
        infoButton.action = { [unowned self] _ in showHelp() }
        infoButton.accessibilityIdentifier = "lander help"
        view.addSubview(infoButton)

        pad.onChange = { [unowned self] time in applyInputs(at: time) }
        pad.onTurnStep = { [unowned self] direction in
            startFlying()
            model.turnStep(direction)
            updateViews()
            view.root?.screenReader.announce(tiltText)
        }
        pad.onMoved = { [unowned self] centre in
            padFraction = Point(x: centre.x / max(1, view.bounds.width), y: centre.y / max(1, view.bounds.height))
        }
        view.addSubview(pad)
    }

    // MARK: Layout

    public override func layout(_ info: DisplayInfo) {
        model.resize(aspect: info.size.width / max(1, info.size.height))
        super.layout(info)
    }

    public override func layout(view: SceneView) {
        let size = view.bounds.size, mm = view.info.pointsPerMillimetre
        background.frame = Rect(origin: .zero, size: size)
        let ppm = size.height / LanderModel.worldHeight
        terrainView.configure(terrain: model.terrain, pointsPerMetre: ppm, screen: size)
        ship.bounds = Rect(x: 0, y: 0, width: 5 * ppm, height: 8 * ppm)
        // The readout and the info button stay clear of the shell's scene bar (safe area).
        let top = max(16, view.info.safeArea.minY + 4)
        let ib = max(48, 12 * mm)
        // Left of the info button; on a narrow panel the readout takes two lines rather than
        // running under the button.
        let readoutWidth = min(size.width - ib - 16 - 24 - 16, 720)
        let widest = texts("lander.readout", ["speed": "88.8", "down": "88.8", "altitude": "888", "fuel": "100"])
        let font = view.fonts.font(points: readout.fontSize, scale: view.info.scale)
        let lineHeight = font?.lineHeight ?? 24
        let lines = font.map { Label.wrap(widest, font: $0, width: max(10, readoutWidth), maxLines: .max).count } ?? 1
        readout.numberOfLines = lines
        // The readout on the leading side, the info button on the trailing one.
        let rtl = view.isRightToLeft
        readout.frame = Rect(x: rtl ? size.width - 24 - max(10, readoutWidth) : 24, y: top, width: max(10, readoutWidth),
                             height: lines == 1 ? 30 : Double(lines) * lineHeight + 6)
        message.frame = Rect(x: 0, y: size.height * 0.3, width: size.width, height: 60)
        let fw = max(220, 55 * mm), fh = max(64, 16 * mm)
        flyAgain.frame = Rect(x: (size.width - fw) / 2, y: size.height * 0.3 + 80, width: fw, height: fh)
        infoButton.frame = Rect(x: rtl ? 16 : size.width - ib - 16, y: top, width: ib, height: ib)
        infoButton.cornerRadius = ib / 2
        pad.layout(mm: mm, large: view.info.isLarge)
        placePad()
        help?.frame = Rect(origin: .zero, size: size)
        help?.contentInsets = view.info.safeAreaInsets
        updateViews()
    }

    private func placePad() {
        let size = view.bounds.size, half = Size(width: pad.bounds.width / 2, height: pad.bounds.height / 2)
        var c: Point
        if let f = padFraction {
            c = Point(x: f.x * size.width, y: f.y * size.height)
        } else {
            // Half the margin in the large mode's twice-as-large points: room for a longer readout.
            let margin = view.info.isLarge ? 12.0 : 24
            c = Point(x: effectivePadSide == .right ? size.width - margin - half.width : margin + half.width,
                      y: size.height - margin - half.height)
        }
        // Always fully on screen, whatever the screen did since.
        c.x = min(max(c.x, half.width), size.width - half.width)
        c.y = min(max(c.y, half.height), size.height - half.height)
        pad.center = c
    }

    // MARK: Flight

    private func restart() {
        model.reset()
        pad.cancelAll() // a new flight starts with the engine off
        controlsUsed = false
        lastTime = nil
        applyInputs(at: nil)
    }

    /// A new visitor: a new flight, the help closed (the pad stays where the operator put it).
    public override func reset() {
        help?.removeFromSuperview()
        help = nil
        keyEngine = false
        keyTurn = 0
        restart()
    }

    /// A control was used: from the first use, a rocket that waited counts its time from now.
    private func startFlying() {
        guard !controlsUsed else { return }
        if waitsForTheVisitor { lastTime = nil }
        controlsUsed = true
    }

    /// The controls as they are now, from `time` (the touch's or the key's): the flight is flown
    /// up to then with the controls as they were, so a press shorter than a frame, or handled
    /// after a busy frame, turns the rocket for as long as it was held.
    private func applyInputs(at time: Double?) {
        let turning = max(-1, min(1, pad.turning + keyTurn))
        var ago = 0.0
        if let time, let last = lastTime {
            if time > last { fly(until: time) } else { ago = last - time }
        }
        model.engineOn = pad.engine || keyEngine
        model.setTurning(turning, changedAgo: isFlown ? ago : 0)
        if model.engineOn || model.turning != 0 { startFlying() }
        updateViews()
    }

    /// Whether time moves the rocket now.
    private var isFlown: Bool { isActive && model.isFlying && !waitsForTheVisitor }

    /// The flight flown up to `time`, never back: an input's time may be later than the next frame's.
    private func fly(until time: Double) {
        if let last = lastTime, time <= last { return }
        if isFlown, let last = lastTime { model.advance(by: time - last) }
        lastTime = time
    }

    public override func setActive(_ active: Bool) {
        isActive = active
        lastTime = nil
        super.setActive(active)
        if !active { pad.cancelAll() }
    }

    private func updateViews() {
        let size = view.bounds.size
        guard size.width > 0 else { return }
        let ppm = size.height / LanderModel.worldHeight
        let p = model.positionMetres
        // The ship's feet are at its position.
        ship.center = Point(x: p.x * ppm, y: size.height - p.y * ppm - ship.bounds.height / 2)
        ship.transform = AffineTransform(rotationAngle: model.state.heading)
        ship.firing = model.engineFiring
        let s = model.state
        let speed = (s.vx * s.vx + s.vy * s.vy).squareRoot()
        let alt = max(0, p.y - model.terrain.height(at: p.x))
        readout.text = texts("lander.readout", ["speed": texts.decimal(speed, digits: 1), "down": texts.decimal(max(0, -s.vy), digits: 1),
                                                "altitude": String(Int(alt)), "fuel": String(Int(s.fuel.rounded(.up)))])
        if s.outcome != shownOutcome {
            shownOutcome = s.outcome
            showOutcome()
            if !message.isHidden { view.root?.screenReader.announce(message.text) }
        }
    }

    private func showOutcome() {
        switch model.state.outcome {
        case .flying: message.isHidden = true; flyAgain.isHidden = true
        case .landed: show(texts["lander.landed"], Color.leaf)
        case .hardLanding: show(texts["lander.hardLanding"], Color.amber)
        case .crashed: show(texts["lander.crashed"], Color.coral)
        }
    }

    public override func applyTexts() {
        flyAgain.title = texts["lander.flyAgain"]
        infoButton.accessibilityLabel = texts["lander.help.title"]
        for b in pad.buttons { b.accessibilityLabel = texts[PadButton.textKeys[b.role.rawValue]] }
        showOutcome()
        if let help { fillHelp(help) }
        if view.info.size.width > 1 { updateViews() }
    }

    private func fillHelp(_ p: Panel) {
        p.titleLabel.text = texts["lander.help.title"]
        p.body = texts["lander.help.body"]
        p.closeButton.title = texts["panel.close"]
        p.moreButton.title = texts["panel.more"]
        p.setNeedsLayout()
    }

    /// How the rocket leans, in whole degrees ("Tilted 15° right"), for a visitor who cannot see it.
    var tiltText: String {
        let degrees = Int((model.state.heading * 180 / .pi).rounded())
        if degrees == 0 { return texts["lander.upright"] }
        return texts(degrees < 0 ? "lander.tiltLeft" : "lander.tiltRight", ["degrees": String(abs(degrees))])
    }

    private func show(_ text: String, _ color: Color) {
        message.text = text
        message.textColor = color
        message.isHidden = false
        flyAgain.isHidden = false
    }

    func showHelp() {
        guard help == nil else { return }
        let p = Panel()
        fillHelp(p)
        p.onClose = { [weak self] in self?.help = nil }
        help = p
        p.present(in: view)
    }

    // MARK: Keyboard

    public override func handle(_ key: KeyEvent) {
        guard !key.isRepeat else { return }
        switch key.keysym {
        case Key.up, Key.space: keyEngine = key.pressed
        case Key.left: keyTurn = key.pressed ? -1 : (keyTurn == -1 ? 0 : keyTurn)
        case Key.right: keyTurn = key.pressed ? 1 : (keyTurn == 1 ? 0 : keyTurn)
        case Key.return where key.pressed && !model.isFlying: restart()
        default: return
        }
        applyInputs(at: key.time)
    }

    // MARK: Saved state

    public override func saveState() {
        guard let store else { return }
        store.save(LanderSaved(flight: model.state, padX: padFraction?.x, padY: padFraction?.y), name: "lander")
    }
}


/// The ground, drawn once into a layer per layout: only composited afterwards.
final class TerrainView: View {
    private var terrain: Terrain?
    private var ppm = 1.0
    override var drawsContent: Bool { true }

    func configure(terrain: Terrain, pointsPerMetre: Double, screen: Size) {
        self.terrain = terrain
        ppm = pointsPerMetre
        let top = 42 * ppm // the highest ground is below 40 m
        frame = Rect(x: 0, y: screen.height - top, width: screen.width, height: top)
        setNeedsDisplay()
    }

    override func draw(in canvas: Canvas) {
        guard let t = terrain else { return }
        let h = bounds.height
        func pt(_ p: Point) -> Point { Point(x: p.x * ppm, y: h - p.y * ppm) }
        // Each slice overlaps its neighbours by a device pixel: abutting anti-aliased edges would
        // otherwise leave faint seams.
        let o = 1.0 / Double(canvas.scale)
        for i in 1..<t.points.count {
            let a = pt(t.points[i - 1]), b = pt(t.points[i])
            let a2 = Point(x: a.x - o, y: a.y), b2 = Point(x: b.x + o, y: b.y)
            canvas.fillPolygon([a2, b2, Point(x: b2.x, y: h), Point(x: a2.x, y: h)], color: Color(rgb: 0x3a3f4b))
        }
        for i in 1..<t.points.count {
            canvas.strokeLine(from: pt(t.points[i - 1]), to: pt(t.points[i]), width: 2, color: Color.slate)
            canvas.fillCircle(center: pt(t.points[i]), radius: 1, color: Color.slate)
        }
        let p0 = pt(Point(x: t.padStart, y: t.padHeight)), p1 = pt(Point(x: t.padEnd, y: t.padHeight))
        canvas.fill(Rect(x: p0.x, y: p0.y - 3, width: p1.x - p0.x, height: 6), color: Color.lemon)
    }
}

/// The rocket: `rocket.png` / `rocket_firing.png` from the theme folder when present (a missing
/// or broken file is reported once), else a vector drawing with a flame.
final class ShipView: View {
    private var idleImage: Image?
    private var firingImage: Image?
    private let flame = FlameView()
    var firing = false {
        didSet {
            guard firing != oldValue else { return }
            if idleImage != nil { setNeedsDisplay() } else { flame.isHidden = !firing }
        }
    }
    override var drawsContent: Bool { true }

    func load(themeDirectory: String?, report: (String) -> Void) {
        flame.isHidden = true
        flame.isUserInteractionEnabled = false
        addSubview(flame)
        isUserInteractionEnabled = false
        let images = Theme.images(["rocket.png", "rocket_firing.png"], in: themeDirectory, report: report)
        idleImage = images["rocket.png"]
        // A firing picture without a resting one would make the rocket change style mid-flight.
        firingImage = idleImage == nil ? nil : images["rocket_firing.png"]
    }

    override func layoutSubviews() {
        let f = ShipShape.flameBox
        flame.frame = Rect(x: bounds.width * f.x, y: bounds.height * f.y, width: bounds.width * f.w, height: bounds.height * f.h)
    }

    override func draw(in canvas: Canvas) {
        let w = bounds.width, h = bounds.height
        if let img = (firing ? firingImage : nil) ?? idleImage, img.size.width > 0 {
            canvas.draw(img, transform: AffineTransform(scaleX: w / img.size.width, y: h / img.size.height))
            return
        }
        ShipShape.drawRocket(in: canvas, Rect(x: 0, y: 0, width: w, height: h))
    }
}

final class FlameView: View {
    override var drawsContent: Bool { true }
    override func draw(in canvas: Canvas) {
        ShipShape.drawFlame(in: canvas, Rect(origin: .zero, size: bounds.size))
    }
}

/// The rocket's vector drawing, in one place for the ship on screen and the app's icon (PNG
/// through the canvas, SVG as text): body, window, legs, and the flame below when firing.
package enum ShipShape {
    package static let body = Color.paper, trim = Color.sky
    package static let flameOuter = Color.amber, flameInner = Color.lemon

    /// Polygons and strokes in unit coordinates of the rocket's box (x right, y down).
    package static let hull: [(Double, Double)] = [(0.5, 0), (0.78, 0.35), (0.78, 0.8), (0.22, 0.8), (0.22, 0.35)]
    package static let window = (x: 0.5, y: 0.38, r: 0.12)
    package static let legs: [((Double, Double), (Double, Double))] = [((0.25, 0.75), (0.04, 1)), ((0.75, 0.75), (0.96, 1))]
    package static let legWidth = 0.06
    /// The flame in unit coordinates of its own box (below the rocket: x 0.3…0.7, y 0.86…1.31).
    package static let flames: [[(Double, Double)]] = [[(0, 0), (1, 0), (0.5, 1)], [(0.25, 0), (0.75, 0), (0.5, 0.6)]]
    package static let flameBox = (x: 0.3, y: 0.86, w: 0.4, h: 0.45)

    package static func drawRocket(in canvas: Canvas, _ r: Rect) {
        func p(_ u: (Double, Double)) -> Point { Point(x: r.minX + u.0 * r.width, y: r.minY + u.1 * r.height) }
        canvas.fillPolygon(hull.map(p), color: body)
        canvas.fillCircle(center: p((window.x, window.y)), radius: r.width * window.r, color: trim)
        for (a, b) in legs { canvas.strokeLine(from: p(a), to: p(b), width: max(1.5, r.width * legWidth), color: body) }
    }

    package static func drawFlame(in canvas: Canvas, _ r: Rect) {
        for (i, poly) in flames.enumerated() {
            canvas.fillPolygon(poly.map { Point(x: r.minX + $0.0 * r.width, y: r.minY + $0.1 * r.height) }, color: i == 0 ? flameOuter : flameInner)
        }
    }
}
