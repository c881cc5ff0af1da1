/// The Touch test scene: a panel check for operators. A 10 mm grid, the screen's facts, a
/// numbered marker with a fading trail under every finger, and one widget per touch pattern of
/// the source material: a spinner two fingers rotate and pinch, a square that rides above the
/// finger dragging it, a button that pops up a bubble after a 1 s hold, a small target whose
/// enlarged hot area is outlined, and a swipe indicator. Only damaged areas are repainted.
public final class TouchTestScene: ViewScene {
    public private(set) var model = TouchTestModel()
    private var time = 0.0

    static let background = Color(rgb: 0x101418)
    static let gridColor = Color(rgb: 0x1f2630)
    static let textColor = Color(rgb: 0xe8eef4)
    static let dimText = Color(rgb: 0x8a97a6)
    static let accent = Color(rgb: 0x4fc3f7)
    static let palette: [Color] = [0x4fc3f7, 0xffb74d, 0x81c784, 0xf06292, 0xba68c8, 0xfff176, 0x4db6ac, 0xe57373, 0x9575cd, 0xa1887f].map { Color(rgb: $0) }

    private let grid = GridView()
    private let title = Label(), infoLine = Label(), counter = Label(), lastKey = Label()
    private let fingers = FingersView()
    let spinner = SpinnerView()
    let follower = View()
    let holdButton = Button()
    let bubble = Label()
    let target = View(), targetHotArea = View(), targetLabel = Label()
    let swipeLabel = Label()
    private let spinnerCaption = Label(), followerCaption = Label()
    private var targetHits = 0
    private var spinnerAngle = 0.0, spinnerScale = 1.0
    private var gestureStartAngle = 0.0, gestureStartScale = 1.0

    public init(fonts: FontCache, scheduler: Scheduler = ManualScheduler()) {
        super.init(name: "touch", fonts: fonts, scheduler: scheduler)
    }

    // MARK: Building

    public override func build(in root: RootView) {
        root.backgroundColor = Self.background
        fingers.scene = self
        root.addSubview(grid)
        for (l, size, color) in [(title, 40.0, Self.textColor), (infoLine, 20, Self.dimText), (counter, 24, Self.textColor), (lastKey, 20, Self.dimText)] {
            l.fontSize = size
            l.textColor = color
            l.isUserInteractionEnabled = false
            root.addSubview(l)
        }
        title.text = "Kiosk"

        // Spinner: rotate and pinch with two fingers.
        spinner.isMultipleTouchEnabled = true
        let pinch = PinchGestureRecognizer(), rotate = RotationGestureRecognizer()
        pinch.recognizesSimultaneously = { $0 === rotate }
        rotate.recognizesSimultaneously = { $0 === pinch }
        pinch.addTarget { [unowned self] r in
            let p = r as! PinchGestureRecognizer
            if p.state == .began { gestureStartScale = spinnerScale }
            spinnerScale = max(0.5, min(2.5, gestureStartScale * p.scale))
            applySpinner()
        }
        rotate.addTarget { [unowned self] r in
            let g = r as! RotationGestureRecognizer
            if g.state == .began { gestureStartAngle = spinnerAngle }
            spinnerAngle = gestureStartAngle + g.rotation
            applySpinner()
        }
        spinner.addGestureRecognizer(pinch)
        spinner.addGestureRecognizer(rotate)
        root.addSubview(spinner)

        // A square that rides above the finger dragging it, so the finger never hides it.
        follower.backgroundColor = Self.palette[2]
        follower.cornerRadius = 10
        follower.accessibilityLabel = "follower"
        let drag = PanGestureRecognizer { [unowned self] r in
            let pan = r as! PanGestureRecognizer
            guard let sv = follower.superview else { return }
            let finger = pan.location(in: sv)
            let lift = pan.points(.millimetres(12))
            follower.center = Point(x: finger.x, y: finger.y - lift - follower.bounds.height / 2)
        }
        drag.minimumDistance = .points(0)
        follower.addGestureRecognizer(drag)
        root.addSubview(follower)

        // Hold for one second: a bubble pops up, and closes on release.
        holdButton.title = "Hold 1 s"
        holdButton.titleLabel.fontSize = 20
        holdButton.titleLabel.textColor = Self.background
        holdButton.backgroundColor = Self.palette[1]
        holdButton.cornerRadius = 12
        let hold = LongPressGestureRecognizer { [unowned self] r in
            switch r.state {
            case .began: showBubble(true)
            case .ended, .cancelled: showBubble(false)
            default: break
            }
        }
        hold.minimumPressDuration = 1
        hold.allowableMovement = .millimetres(4)
        hold.cancelsTouchesInView = false
        holdButton.addGestureRecognizer(hold)
        root.addSubview(holdButton)
        bubble.text = "Held for 1 s — release to close"
        bubble.fontSize = 20
        bubble.alignment = .center
        bubble.textColor = Self.background
        bubble.backgroundColor = Self.textColor
        bubble.cornerRadius = 10
        bubble.alpha = 0
        bubble.isUserInteractionEnabled = false
        root.addSubview(bubble)

        // A small target with a finger-sized hot area, drawn as an outline.
        targetHotArea.borderWidth = 1
        targetHotArea.borderColor = Self.dimText
        targetHotArea.isUserInteractionEnabled = false
        root.addSubview(targetHotArea)
        target.backgroundColor = Self.palette[3]
        target.cornerRadius = 4
        let tap = TapGestureRecognizer { [unowned self] _ in
            targetHits += 1
            targetLabel.text = "Small target: \(targetHits) hit\(targetHits == 1 ? "" : "s")"
            target.alpha = 0.3
            View.animate(duration: 0.3, animations: { self.target.alpha = 1 })
        }
        target.addGestureRecognizer(tap)
        root.addSubview(target)
        spinnerCaption.text = "Two fingers: turn and pinch"
        followerCaption.text = "Drag: it rides above your finger"
        for l in [targetLabel, swipeLabel, spinnerCaption, followerCaption] {
            l.fontSize = 20
            l.textColor = Self.dimText
            l.alignment = .center
            l.isUserInteractionEnabled = false
            root.addSubview(l)
        }
        targetLabel.text = "Small target: 0 hits"
        swipeLabel.text = "Swipe on the grid"

        // Swipes anywhere on the background; markers keep following those fingers.
        let swipe = SwipeGestureRecognizer { [unowned self] r in
            let d = (r as! SwipeGestureRecognizer).recognizedDirection
            let name = d == .left ? "← left" : d == .right ? "→ right" : d == .up ? "↑ up" : "↓ down"
            swipeLabel.text = "Swipe: \(name)"
            swipeLabel.textColor = Self.accent
            swipeLabel.alpha = 0.2
            View.animate(duration: 0.4, animations: { self.swipeLabel.alpha = 1 })
        }
        swipe.direction = [.left, .right, .up, .down]
        swipe.cancelsTouchesInView = false
        grid.addGestureRecognizer(swipe)

        fingers.isUserInteractionEnabled = false
        root.addSubview(fingers)
    }

    private func applySpinner() {
        spinner.transform = AffineTransform(scaleX: spinnerScale, y: spinnerScale)
            .concatenating(AffineTransform(rotationAngle: spinnerAngle))
    }

    private func showBubble(_ on: Bool) {
        View.animate(duration: 0.15, animations: { self.bubble.alpha = on ? 1 : 0 })
    }

    // MARK: Layout

    var info: DisplayInfo { root.info }
    var markerRadius: Double { max(18, Self.markerMM * info.pointsPerMillimetre) }
    var trailWidth: Double { max(3, markerRadius / 6) }
    /// Marker radius in millimetres: about a fingertip, so the marker peeks out around it.
    static let markerMM = 9.0

    public override func layout(root: RootView) {
        let size = root.bounds.size
        grid.frame = Rect(origin: .zero, size: size)
        fingers.frame = Rect(origin: .zero, size: size)
        fingers.layoutChanged()
        var y = 32.0
        for l in [title, infoLine, counter, lastKey] {
            let h = root.fonts.font(points: l.fontSize, scale: info.scale)?.lineHeight ?? l.fontSize * 1.2
            l.frame = Rect(x: 32, y: y, width: max(10, size.width - 64), height: h)
            y += h + 8
        }
        updateInfoLine()
        updateCounters()

        // Widgets in a column on the right (landscape) or a band at the bottom (portrait).
        let mm = info.pointsPerMillimetre
        let slots: [Point]
        if size.width >= size.height {
            let x = size.width - max(170, 45 * mm)
            slots = [0.26, 0.52, 0.68, 0.82, 0.93].map { Point(x: x, y: size.height * $0) }
        } else {
            let y0 = size.height - max(330, 85 * mm)
            slots = [Point(x: size.width * 0.25, y: y0), Point(x: size.width * 0.68, y: y0),
                     Point(x: size.width * 0.25, y: y0 + max(160, 40 * mm)), Point(x: size.width * 0.68, y: y0 + max(140, 36 * mm)),
                     Point(x: size.width * 0.5, y: size.height - 40)]
        }
        let spin = max(120, 32 * mm)
        spinner.bounds = Rect(x: 0, y: 0, width: spin, height: spin)
        spinner.center = slots[0]
        let sq = max(56, 14 * mm)
        follower.bounds = Rect(x: 0, y: 0, width: sq, height: sq)
        follower.center = slots[1]
        holdButton.frame = Rect(x: slots[2].x - max(90, 24 * mm), y: slots[2].y - max(28, 7 * mm),
                                width: max(180, 48 * mm), height: max(56, 14 * mm))
        bubble.frame = Rect(x: slots[2].x - 170, y: holdButton.frame.minY - 56, width: 340, height: 44)
        let t = max(16, 5 * mm), hot = t + 2 * max(12, 4 * mm)
        target.frame = Rect(x: slots[3].x - t / 2, y: slots[3].y - t / 2, width: t, height: t)
        target.touchDownHitOutset = (hot - t) / 2
        targetHotArea.frame = Rect(x: slots[3].x - hot / 2, y: slots[3].y - hot / 2, width: hot, height: hot)
        targetLabel.frame = Rect(x: slots[3].x - 150, y: slots[3].y + hot / 2 + 4, width: 300, height: 26)
        swipeLabel.frame = Rect(x: slots[4].x - 170, y: slots[4].y - 15, width: 340, height: 30)
        spinnerCaption.frame = Rect(x: slots[0].x - 170, y: slots[0].y + spin / 2 + 6, width: 340, height: 26)
        followerCaption.frame = Rect(x: slots[1].x - 170, y: slots[1].y + sq / 2 + 6, width: 340, height: 26)
    }

    /// The screen's facts: they change only with the layout.
    private func updateInfoLine() {
        let orientation = info.isPortrait ? "portrait" : "landscape"
        let dpi = Int((info.pointsPerMillimetre * 25.4 * Double(info.scale)).rounded())
        var panel = ""
        if let p = info.physicalSize { panel = " · panel \(format(p.width))×\(format(p.height)) mm" }
        infoLine.text = "Touch test — \(info.size) pt · scale \(info.scale) · \(orientation) · \(dpi) dpi\(panel)"
    }

    /// The touch counters and last key: per batch, and only when they changed.
    private func updateCounters() {
        let counts = (model.touchCount, model.totalTouches)
        if counts != shownCounts {
            shownCounts = counts
            let n = counts.0
            counter.text = "\(n) touch point\(n == 1 ? "" : "s") · \(model.totalTouches) touch\(model.totalTouches == 1 ? "" : "es") since start"
        }
        lastKey.text = "Last key: \(model.lastKey ?? "none")"
    }
    private var shownCounts = (-1, -1)

    // MARK: Input and time

    public override func handle(_ batch: TouchBatch, at time: Double) {
        self.time = time
        let ids = Set(batch.points.map(\.id))
        for f in model.fingers + model.fading where ids.contains(f.id) { fingers.invalidate(f) }
        let changed = model.apply(batch, at: time)
        for f in model.fingers + model.fading where changed.contains(f.id) { fingers.invalidate(f) }
        updateCounters()
        super.handle(batch, at: time)
    }

    public override func handle(_ key: KeyEvent, at time: Double) {
        guard key.pressed else { return }
        let printable = !key.text.isEmpty && !key.text.unicodeScalars.contains { $0.value < 0x20 || $0.value == 0x7f }
        model.recordKey(printable ? key.text : "keysym 0x" + String(key.keysym, radix: 16))
        updateCounters()
    }

    public override func advance(to time: Double) {
        self.time = time
        if model.hasLiveTrails || !model.fading.isEmpty {
            // Trails fade continuously, so each frame repaints the (small) area they cover.
            for f in model.fingers where f.trail.count > 1 { fingers.invalidate(f, trailOnly: true) }
            for f in model.fading { fingers.invalidate(f, trailOnly: true) }
            model.prune(at: time)
        }
        super.advance(to: time)
    }

    public override var isAnimating: Bool { model.hasLiveTrails || root.isAnimating }

    func color(for id: Int32) -> Color {
        id < 0 ? Color(rgb: 0xffffff) : Self.palette[Int(id) % Self.palette.count]
    }
    var currentTime: Double { time }
}

/// The 10 mm grid: an operator can check that a touch lands where the finger is, and that the
/// panel's reported size is right (a square must measure 10 mm). Drawn straight into the frame.
final class GridView: View {
    override var drawsContent: Bool { true }
    override var drawsDirectly: Bool { true }
    override func drawDirectly(in canvas: Canvas, origin: Point, alpha: Double) {
        guard let info = root?.info else { return }
        let step = 10 * info.pointsPerMillimetre
        guard step >= 4 else { return }
        let w = 1.0 / Double(canvas.scale), size = bounds.size
        var x = step
        while x < size.width {
            let r = Rect(x: origin.x + x, y: origin.y, width: w, height: size.height)
            if canvas.isVisible(r) { canvas.fill(r, color: TouchTestScene.gridColor) }
            x += step
        }
        var y = step
        while y < size.height {
            let r = Rect(x: origin.x, y: origin.y + y, width: size.width, height: w)
            if canvas.isVisible(r) { canvas.fill(r, color: TouchTestScene.gridColor) }
            y += step
        }
    }
}

/// A wheel with spokes and a notch, so rotation and scale are easy to see.
final class SpinnerView: View {
    override var drawsContent: Bool { true }
    override func draw(in canvas: Canvas) {
        let c = Point(x: bounds.width / 2, y: bounds.height / 2), r = min(bounds.width, bounds.height) / 2 - 3
        canvas.fillCircle(center: c, radius: r, color: Color(rgb: 0x1c232c))
        canvas.strokeCircle(center: c, radius: r, width: 4, color: TouchTestScene.accent)
        for i in 0..<8 {
            let a = Double(i) / 8 * 2 * .pi
            canvas.strokeLine(from: c, to: Point(x: c.x + r * 0.85 * cos(a), y: c.y + r * 0.85 * sin(a)), width: 3,
                              color: TouchTestScene.accent.withAlpha(0.6))
        }
        canvas.fillCircle(center: Point(x: c.x, y: c.y - r * 0.7), radius: r * 0.12, color: Color(rgb: 0xffb74d))
        canvas.fillCircle(center: c, radius: r * 0.15, color: TouchTestScene.accent)
    }
}

/// Every finger's marker and trail, drawn straight into the frame; only the areas around
/// fingers that moved are repainted.
final class FingersView: View {
    weak var scene: TouchTestScene?
    private var markerLayers: [Int32: Image] = [:]
    override var drawsContent: Bool { true }
    override var drawsDirectly: Bool { true }

    func layoutChanged() { markerLayers.removeAll() }

    /// Damages a finger's marker and its trail in short runs of segments: a diagonal stroke then
    /// repaints a thin band instead of its whole bounding box, while the number of rectangles
    /// (each costs pixman a little on every drawing call) stays small.
    func invalidate(_ f: TouchTestModel.Finger, trailOnly: Bool = false) {
        guard let scene else { return }
        if f.liftedAt == nil && !trailOnly { setNeedsDisplay(in: Rect(center: f.location, radius: scene.markerRadius + 4)) }
        let pad = scene.trailWidth + 2
        var i = 0
        while i < f.trail.count {
            // Runs share their end point so the segment between two runs is covered.
            let run = f.trail[i..<min(f.trail.count, i + Self.segmentsPerDamageRect + 1)]
            setNeedsDisplay(in: run.reduce(Rect.zero) { $0.union(Rect(center: $1.location, radius: pad)) })
            i += Self.segmentsPerDamageRect
        }
    }
    /// Measured with `kiosk bench`: 1 → 0.47 ms and 0.6 % damaged; 4 → 0.39 ms and 0.7 %;
    /// the whole trail's box → 0.34 ms and 2.4 %.
    static let segmentsPerDamageRect = 4

    override func drawDirectly(in canvas: Canvas, origin: Point, alpha: Double) {
        guard let scene else { return }
        let model = scene.model
        for f in model.fading { drawTrail(f, canvas: canvas, scene: scene) }
        for f in model.fingers { drawTrail(f, canvas: canvas, scene: scene) }
        for f in model.fingers { drawMarker(f, canvas: canvas, scene: scene) }
    }

    private func drawTrail(_ f: TouchTestModel.Finger, canvas: Canvas, scene: TouchTestScene) {
        guard f.trail.count > 1 else { return }
        let c = scene.color(for: f.id), w = scene.trailWidth, now = scene.currentTime
        for i in 1..<f.trail.count {
            let a = f.trail[i - 1], b = f.trail[i]
            let life = 1 - (now - a.time) / TouchTestModel.trailDuration
            guard life > 0 else { continue }
            let seg = Rect(center: a.location, radius: w).union(Rect(center: b.location, radius: w))
            guard canvas.isVisible(seg) else { continue }
            let alpha = 0.7 * min(1, life)
            canvas.strokeLine(from: a.location, to: b.location, width: w, color: c.withAlpha(alpha))
            canvas.fillCircle(center: b.location, radius: w / 2, color: c.withAlpha(alpha))
        }
    }

    private func drawMarker(_ f: TouchTestModel.Finger, canvas: Canvas, scene: TouchTestScene) {
        let r = scene.markerRadius
        guard canvas.isVisible(Rect(center: f.location, radius: r + 4)),
              let layer = markerLayer(for: f.id, scale: canvas.scale, scene: scene) else { return }
        // Snap to whole device pixels: the layer is then a plain blit, never resampled.
        let s = Double(canvas.scale), half = layer.size.width / 2
        let x = (f.location.x * s).rounded() / s - half, y = (f.location.y * s).rounded() / s - half
        canvas.draw(layer, transform: AffineTransform(translationX: x, y: y))
    }

    /// Each finger's marker, drawn once into a layer and then only composited as it moves.
    private func markerLayer(for id: Int32, scale: Int, scene: TouchTestScene) -> Image? {
        if let l = markerLayers[id], l.scale == scale { return l }
        let r = scene.markerRadius, side = Int32(((r + 4) * 2 * Double(scale)).rounded(.up))
        guard let layer = Image(pixelSize: PixelSize(width: side, height: side), hasAlpha: true, scale: scale) else { return nil }
        let c = Canvas(image: layer)
        let centre = Point(x: layer.size.width / 2, y: layer.size.height / 2)
        let color = scene.color(for: id)
        c.fillCircle(center: centre, radius: r, color: color.withAlpha(0.25))
        c.strokeCircle(center: centre, radius: r, width: 3, color: color)
        if let run = root?.fonts.font(points: max(14, r * 0.6), scale: scale)?.layout(id < 0 ? "M" : String(id)) {
            let origin = Point(x: centre.x - run.width / 2, y: centre.y + run.font.ascent / 2 - run.font.descent / 2)
            c.draw(run, at: origin, color: TouchTestScene.textColor)
        }
        markerLayers[id] = layer
        return layer
    }
}

#if canImport(Glibc)
import Glibc
#endif
