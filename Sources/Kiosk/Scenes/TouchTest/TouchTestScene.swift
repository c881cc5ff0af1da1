/// The Touch test scene: a panel check for operators. Dark background with a 10 mm grid, the
/// kiosk name and screen facts, a marker with its id under every finger, and fading trails.
/// Only the areas around what changed are repainted.
public final class TouchTestScene: Scene {
    public let name = "touch"
    public let invalidation = Invalidation()
    public private(set) var model = TouchTestModel()
    private let fonts: FontCache
    private var info = DisplayInfo(size: Size(width: 1, height: 1))
    private var time = 0.0

    private struct Line { var text: String; var run: TextRun?; var origin: Point; var rect: Rect }
    private var lines: [Line] = []
    private var labelRuns: [Int32: TextRun] = [:]
    /// Each finger's marker, drawn once into a layer and then only composited as it moves.
    private var markerLayers: [Int32: Image] = [:]

    static let background = Color(rgb: 0x101418)
    static let gridColor = Color(rgb: 0x1f2630)
    static let textColor = Color(rgb: 0xe8eef4)
    static let dimText = Color(rgb: 0x8a97a6)
    static let palette: [Color] = [0x4fc3f7, 0xffb74d, 0x81c784, 0xf06292, 0xba68c8, 0xfff176, 0x4db6ac, 0xe57373, 0x9575cd, 0xa1887f].map { Color(rgb: $0) }

    /// Marker radius in millimetres: about a fingertip, so the marker peeks out around it.
    static let markerMM = 9.0
    private var markerRadius: Double { max(18, Self.markerMM * info.pointsPerMillimetre) }
    private var trailWidth: Double { max(3, markerRadius / 6) }

    public init(fonts: FontCache) { self.fonts = fonts }

    public func layout(_ info: DisplayInfo) {
        self.info = info
        labelRuns.removeAll()
        markerLayers.removeAll()
        lines.removeAll()
        updateText()
        invalidation.addAll()
    }

    public func handle(_ batch: TouchBatch, at time: Double) {
        self.time = time
        let ids = Set(batch.points.map(\.id))
        // What those fingers covered before and cover after: old and new marker and trail.
        for f in model.fingers + model.fading where ids.contains(f.id) { invalidate(f) }
        let changed = model.apply(batch, at: time)
        for f in model.fingers + model.fading where changed.contains(f.id) { invalidate(f) }
        updateText()
    }

    /// Damages a finger's marker and its trail in short runs of segments: a diagonal stroke then
    /// repaints a thin band instead of its whole bounding box, while the number of rectangles
    /// (each costs pixman a little on every drawing call) stays small.
    private func invalidate(_ f: TouchTestModel.Finger, trailOnly: Bool = false) {
        if f.liftedAt == nil && !trailOnly { invalidation.add(Rect(center: f.location, radius: markerRadius + 4)) }
        let pad = trailWidth + 2
        var i = 0
        while i < f.trail.count {
            // Runs share their end point so the segment between two runs is covered.
            let run = f.trail[i..<min(f.trail.count, i + Self.segmentsPerDamageRect + 1)]
            invalidation.add(run.reduce(Rect.zero) { $0.union(Rect(center: $1.location, radius: pad)) })
            i += Self.segmentsPerDamageRect
        }
    }
    /// Measured with `kiosk bench`: 1 → 0.47 ms/0.6 % damaged; 4 → see the closing note; whole
    /// trail → 0.34 ms/2.4 %.
    static let segmentsPerDamageRect = 4

    public func handle(_ key: KeyEvent, at time: Double) {
        guard key.pressed else { return }
        model.recordKey(key.text.isEmpty || key.text.unicodeScalars.allSatisfy({ $0.value < 0x20 }) ? String(format: key.keysym) : key.text)
        updateText()
    }

    public func advance(to time: Double) {
        self.time = time
        guard model.hasLiveTrails || !model.fading.isEmpty else { return }
        // Trails fade continuously, so each frame repaints the (small) area they cover.
        for f in model.fingers where f.trail.count > 1 { invalidate(f, trailOnly: true) }
        for f in model.fading { invalidate(f, trailOnly: true) }
        model.prune(at: time)
    }

    public var isAnimating: Bool { model.hasLiveTrails }

    // MARK: Geometry

    private func visualBounds(_ f: TouchTestModel.Finger) -> Rect {
        let pad = trailWidth + 2
        var r = f.liftedAt == nil ? Rect(center: f.location, radius: markerRadius + 4) : .zero
        for p in f.trail { r = r.union(Rect(center: p.location, radius: pad)) }
        return r
    }

    private func updateText() {
        let orientation = info.isPortrait ? "portrait" : "landscape"
        let dpi = Int((info.pointsPerMillimetre * 25.4 * Double(info.scale)).rounded())
        var panel = ""
        if let p = info.physicalSize { panel = " · panel \(format(p.width))×\(format(p.height)) mm" }
        let n = model.touchCount
        let texts: [(String, Double, Color)] = [
            ("Kiosk", 40, Self.textColor),
            ("Touch test — \(info.size) pt · scale \(info.scale) · \(orientation) · \(dpi) dpi\(panel)", 20, Self.dimText),
            ("\(n) touch point\(n == 1 ? "" : "s") · \(model.totalTouches) touch\(model.totalTouches == 1 ? "" : "es") since start", 24, Self.textColor),
            ("Last key: \(model.lastKey ?? "none")", 20, Self.dimText),
        ]
        var y = 32.0
        for (i, (text, size, _)) in texts.enumerated() {
            let font = fonts.font(points: size, scale: info.scale)
            let ascent = font?.ascent ?? size, lineH = font?.lineHeight ?? size * 1.2
            let origin = Point(x: 32, y: y + ascent)
            if i < lines.count, lines[i].text == text, lines[i].origin == origin {
                y += lineH + 8
                continue
            }
            let run = font?.layout(text)
            let rect = Rect(x: 32, y: y, width: (run?.width ?? 0) + 2, height: lineH)
            if i < lines.count {
                invalidation.add(lines[i].rect)
                lines[i] = Line(text: text, run: run, origin: origin, rect: rect)
            } else {
                lines.append(Line(text: text, run: run, origin: origin, rect: rect))
            }
            invalidation.add(rect)
            y += lineH + 8
        }
    }

    private func color(for id: Int32) -> Color {
        id < 0 ? Color(rgb: 0xffffff) : Self.palette[Int(id) % Self.palette.count]
    }

    private func label(for id: Int32) -> TextRun? {
        if let r = labelRuns[id] { return r }
        let r = fonts.font(points: max(14, markerRadius * 0.6), scale: info.scale)?.layout(id < 0 ? "M" : String(id))
        labelRuns[id] = r
        return r
    }

    // MARK: Drawing

    public func draw(in canvas: Canvas) {
        canvas.clear(Self.background)
        drawGrid(canvas)
        let colors = [Self.textColor, Self.dimText, Self.textColor, Self.dimText]
        for (i, line) in lines.enumerated() {
            if let run = line.run, canvas.isVisible(line.rect) { canvas.draw(run, at: line.origin, color: colors[i % colors.count]) }
        }
        for f in model.fading { drawTrail(f, canvas: canvas) }
        for f in model.fingers { drawTrail(f, canvas: canvas) }
        for f in model.fingers { drawMarker(f, canvas: canvas) }
    }

    private func drawGrid(_ canvas: Canvas) {
        // 10 mm squares: an operator can check that a touch lands where the finger is, and
        // that the panel's reported size is right (a square must measure 10 mm).
        let step = 10 * info.pointsPerMillimetre
        guard step >= 4 else { return }
        let w = 1.0 / Double(canvas.scale)
        var x = step
        while x < info.size.width {
            let r = Rect(x: x, y: 0, width: w, height: info.size.height)
            if canvas.isVisible(r) { canvas.fill(r, color: Self.gridColor) }
            x += step
        }
        var y = step
        while y < info.size.height {
            let r = Rect(x: 0, y: y, width: info.size.width, height: w)
            if canvas.isVisible(r) { canvas.fill(r, color: Self.gridColor) }
            y += step
        }
    }

    private func drawTrail(_ f: TouchTestModel.Finger, canvas: Canvas) {
        guard f.trail.count > 1, canvas.isVisible(visualBounds(f)) else { return }
        let c = color(for: f.id)
        for i in 1..<f.trail.count {
            let a = f.trail[i - 1], b = f.trail[i]
            let life = 1 - (time - a.time) / TouchTestModel.trailDuration
            guard life > 0 else { continue }
            let alpha = 0.7 * min(1, life)
            canvas.strokeLine(from: a.location, to: b.location, width: trailWidth, color: c.withAlpha(alpha))
            canvas.fillCircle(center: b.location, radius: trailWidth / 2, color: c.withAlpha(alpha))
        }
    }

    private func drawMarker(_ f: TouchTestModel.Finger, canvas: Canvas) {
        let r = markerRadius
        guard canvas.isVisible(Rect(center: f.location, radius: r + 4)),
              let layer = markerLayer(for: f.id, scale: canvas.scale) else { return }
        // Snap to whole device pixels: the layer is then a plain blit, never resampled.
        let s = Double(canvas.scale), half = layer.size.width / 2
        let x = (f.location.x * s).rounded() / s - half, y = (f.location.y * s).rounded() / s - half
        canvas.draw(layer, transform: AffineTransform(translationX: x, y: y))
    }

    private func markerLayer(for id: Int32, scale: Int) -> Image? {
        if let l = markerLayers[id] { return l }
        let r = markerRadius, side = Int32(((r + 4) * 2 * Double(scale)).rounded(.up))
        guard let layer = Image(pixelSize: PixelSize(width: side, height: side), hasAlpha: true, scale: scale) else { return nil }
        let c = Canvas(image: layer)
        let centre = Point(x: layer.size.width / 2, y: layer.size.height / 2)
        let color = color(for: id)
        c.fillCircle(center: centre, radius: r, color: color.withAlpha(0.25))
        c.strokeCircle(center: centre, radius: r, width: 3, color: color)
        if let run = label(for: id) {
            let origin = Point(x: centre.x - run.width / 2, y: centre.y + run.font.ascent / 2 - run.font.descent / 2)
            c.draw(run, at: origin, color: Self.textColor)
        }
        markerLayers[id] = layer
        return layer
    }
}

private extension String {
    init(format keysym: UInt32) { self = "keysym 0x" + String(keysym, radix: 16) }
}
