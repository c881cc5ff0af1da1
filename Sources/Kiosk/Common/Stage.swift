import KioskCore
import KioskRender
import KioskUI
import KioskPlatform

/// Hosts one scene at one display size and turns its invalidations into pixel damage.
/// The same object drives the live window and headless renders, so both draw identically.
///
/// App rotation (for compositors that cannot rotate their output): turned by `rotation`, the
/// scene is laid out in the rotated size and drawn through a turned canvas straight into the
/// buffer (`Canvas.turned`); `toScene` maps touch coordinates back.
/// A rotated output's buffer (`bufferRotation`) is drawn the same way.
final class Stage: SetupStage {
    let scene: Scene
    /// The screen as the window has it (buffer orientation).
    private(set) var windowInfo: DisplayInfo
    private(set) var rotation: Rotation
    /// The screen as the scene sees it (rotated, zoomed in the large mode), less the stats
    /// overlay when it is shown.
    var info: DisplayInfo {
        var i = Stage.sceneInfo(windowInfo, rotation: rotation, large: isLarge)
        if showsStats { i.safeAreaInsets = Stage.insets(covering: statsRectInScene, in: i.size) }
        return i
    }

    /// Insets that keep a scene of `size` clear of `r`, a strip along one edge: that edge's.
    static func insets(covering r: Rect, in size: Size, margin: Double = 6) -> EdgeInsets {
        let gaps = [r.minY, size.height - r.maxY, r.minX, size.width - r.maxX]
        switch gaps.firstIndex(of: gaps.min()!)! {
        case 0: return EdgeInsets(top: r.maxY + margin)
        case 1: return EdgeInsets(bottom: size.height - r.minY + margin)
        case 2: return EdgeInsets(left: r.maxX + margin)
        default: return EdgeInsets(right: size.width - r.minX + margin)
        }
    }

    /// `laidOutFor`: the display the scene was already laid out for (by `ScenePreparation`);
    /// it is laid out again only if that differs.
    init(scene: Scene, info: DisplayInfo, rotation: Rotation = .upright, laidOutFor prepared: DisplayInfo? = nil) {
        self.scene = scene
        windowInfo = info
        self.rotation = rotation
        isLarge = scene.prefersLargeDisplay
        if prepared != self.info { scene.layout(self.info) }
    }

    /// The large high-contrast mode, as the scene asks for it (`Scene.prefersLargeDisplay`): the
    /// scene gets half the window's points at twice the scale, so text and targets come out
    /// twice as large and every scene lays itself out again; every colour is drawn in high
    /// contrast. Touches are mapped back through the same zoom.
    private(set) var isLarge = false
    private var zoom: Int { isLarge ? 2 : 1 }

    /// Follows the scene's wish for the large mode: a relayout and a whole repaint on a change.
    private func followLargeMode() {
        guard scene.prefersLargeDisplay != isLarge else { return }
        isLarge.toggle()
        repaintsAll = true
        scene.layout(info)
        onLargeModeChange?()
    }
    /// Told after the scene was laid out for the large mode, or back from it.
    var onLargeModeChange: (() -> Void)?

    static func rotated(_ i: DisplayInfo, _ r: Rotation) -> DisplayInfo {
        var o = i
        o.size = r.apply(i.size)
        return o
    }

    /// What a scene is given on a window of `i`: turned by `r`, and in the large mode half the
    /// points at twice the scale.
    static func sceneInfo(_ i: DisplayInfo, rotation r: Rotation, large: Bool) -> DisplayInfo {
        var o = rotated(i, r)
        let zoom = large ? 2.0 : 1
        o.size = Size(width: o.size.width / zoom, height: o.size.height / zoom)
        o.scale *= Int(zoom)
        o.isLarge = large
        return o
    }

    /// The turn from the window (surface) to the buffer: set when the output is rotated, so
    /// the buffer arrives in the panel's own orientation (`wl_surface.set_buffer_transform`)
    /// and the compositor need not rotate every frame.
    private(set) var bufferRotation = Rotation.upright

    /// The buffer's size in pixels.
    var pixelSize: PixelSize { windowInfo.pixelSize(turned: bufferRotation) }
    private var scenePixelSize: PixelSize { info.pixelSize() }
    /// Whether the scene is drawn through a turned canvas.
    private var drawsTurned: Bool { rotation.then(bufferRotation) != .upright }

    func relayout(_ newInfo: DisplayInfo) {
        guard newInfo != windowInfo else { return }
        windowInfo = newInfo
        repaintsAll = true
        scene.layout(info)
    }

    /// The window's buffer is now turned `r` from the surface.
    func setBufferRotation(_ r: Rotation) { turn(\.bufferRotation, to: r, relayout: false) }

    /// Changes the app rotation live: a relayout in the new size.
    func setRotation(_ r: Rotation) { turn(\.rotation, to: r, relayout: true) }

    private func turn(_ which: ReferenceWritableKeyPath<Stage, Rotation>, to r: Rotation, relayout: Bool) {
        guard r != self[keyPath: which] else { return }
        self[keyPath: which] = r
        repaintsAll = true
        if relayout { scene.layout(info) }
    }

    /// Scene (logical) → window coordinates, in points: the zoom, then the app rotation.
    var sceneToWindow: AffineTransform {
        AffineTransform(scaleX: Double(zoom), y: Double(zoom)).concatenating(turnToWindow)
    }
    /// The app rotation alone (the scene's pixels are the window's: a zoom only scales points).
    private var turnToWindow: AffineTransform { AffineTransform.turning(rotation, into: windowInfo.size.width, windowInfo.size.height) }
    /// The scene's pixel grid → the buffer's, as a turn of window points: the app rotation, then
    /// the buffer's.
    private var turnToBuffer: AffineTransform { turnToWindow.concatenating(windowToBuffer) }
    /// Scene points → points of the zoomed canvas over the buffer (a turn, translated in them).
    private var sceneToZoomedBuffer: AffineTransform {
        let z = Double(zoom)
        return AffineTransform(scaleX: z, y: z).concatenating(turnToBuffer).concatenating(AffineTransform(scaleX: 1 / z, y: 1 / z))
    }
    /// Window (surface) → buffer coordinates, in points: the buffer's turn.
    private var windowToBuffer: AffineTransform {
        let w = windowInfo.size.width, h = windowInfo.size.height
        let turned = bufferRotation.swapsSides ? (h, w) : (w, h)
        return AffineTransform.turning(bufferRotation, into: turned.0, turned.1)
    }
    /// Window (surface) coordinates → scene coordinates, for touches and the pointer.
    func toScene(_ p: Point) -> Point { sceneToWindow.inverted!.apply(p) }
    /// A touch batch where its fingers are on the scene: the touchscreen's calibration first
    /// (as libinput would apply it, on the window; never to the mouse), then the app rotation
    /// and the large mode's zoom.
    ///
    /// A point on the screen's far edge is kept on its last point: turned, a finger at the window's
    /// 0,0 lands exactly on the scene's width, where no view is (cage 0.2.0 puts every touch at
    /// 0,0 while its output is off: a Touch Display 2 turned by `rotate = 90` never woke).
    func toScene(_ batch: TouchBatch) -> TouchBatch {
        let calibration = touchMatrix.flatMap { TouchCalibration.transform(libinputMatrix: $0, size: windowInfo.size) }
        let turned = rotation != .upright || calibration != nil || isLarge
        let size = info.size
        guard turned || batch.points.contains(where: { $0.location.x >= size.width || $0.location.y >= size.height }) else { return batch }
        return TouchBatch(time: batch.time, points: batch.points.map { p in
            let onGlass = p.isPointer ? p.location : calibration?.apply(p.location) ?? p.location
            let q = turned ? toScene(onGlass) : onGlass
            return TouchPoint(id: p.id, phase: p.phase, location: Point(x: Self.offTheFarEdge(q.x, size.width), y: Self.offTheFarEdge(q.y, size.height)))
        })
    }
    /// `v` on the far edge `limit` (or a rounding past it) moved onto the last point before it.
    private static func offTheFarEdge(_ v: Double, _ limit: Double) -> Double {
        v >= limit && v < limit + 1e-6 ? limit.nextDown : v
    }
    /// libinput's calibration matrix for the touchscreen (`[touch] matrix`); nil: none.
    private(set) var touchMatrix: [Double]?

    /// The stage's part of the settings, its only source: the touchscreen's calibration. (The
    /// turn is `PanelOrientation`'s: the settings and the accelerometer.)
    func apply(_ s: Settings) {
        touchMatrix = s.touchMatrix
    }

    /// The calibration with `fit` composed on top: `fit` was found in scene coordinates from
    /// taps the current calibration had already turned, so the window's new map is the
    /// current one, then to the scene, the fit, and back to the window.
    func touchMatrix(after fit: AffineTransform) -> [Double] {
        let size = windowInfo.size
        let current = touchMatrix.flatMap { TouchCalibration.transform(libinputMatrix: $0, size: size) } ?? .identity
        let toWindow = sceneToWindow
        let composed = current.concatenating(toWindow.inverted!).concatenating(fit).concatenating(toWindow)
        return TouchCalibration.libinputMatrix(composed, size: size)
    }

    /// The stage itself changed (size, rotation, the overlay): the next frame is due whatever
    /// the scene says, and repaints everything.
    private var repaintsAll = false
    /// Whether a frame is due: the stage changed, or the scene's window says so (a new wish for
    /// the large mode damages that window too).
    var needsFrame: Bool { repaintsAll || scene.needsFrame }

    /// Moves the scene's animations and timers to `time`: once per frame, before `takeDamage`.
    func advance(to time: Double) {
        followLargeMode()
        scene.advance(to: time)
        frameTime = time
    }
    private var frameTime = 0.0

    /// The damage since the last frame, in buffer pixels.
    func takeDamage() -> Region {
        let time = frameTime
        let spx = scenePixelSize
        var damage = scene.invalidation.take(scale: info.scale, bounds: PixelRect(x: 0, y: 0, width: spx.width, height: spx.height))
        if repaintsAll { damage = Region(PixelRect(x: 0, y: 0, width: spx.width, height: spx.height)) }
        repaintsAll = false
        if drawsTurned {
            // The same pixels the turned canvas draws them to (`Canvas.turned`); were the turn
            // ever not a quarter turn, the bounds through points (never fewer pixels than drawn).
            let t = turnToBuffer, scale = windowInfo.scale, s = Double(scale)
            damage = Region(rects: damage.rects.map { r in
                r.quarterTurned(by: t, scale: scale)
                    ?? t.apply(Rect(x: Double(r.x) / s, y: Double(r.y) / s, width: Double(r.width) / s, height: Double(r.height) / s)).pixelBounds(scale: scale)
            })
        }
        if showsStats || statsWasShown {
            // The overlay is refreshed only on frames drawn anyway: it never keeps the kiosk awake.
            if !damage.isEmpty || statsWasShown != showsStats { damage.add(windowToBuffer.apply(statsRect).pixelBounds(scale: windowInfo.scale)) }
            if !damage.isEmpty { recordFrame(time: time, damage: damage) }
            statsWasShown = showsStats
        }
        return damage
    }

    // MARK: Stats overlay

    /// F12 toggles the overlay.
    static let statsKeysym = Key.f12
    /// Shown, it takes its strip from the scene's safe area (the scene relayouts around it).
    var showsStats = false {
        didSet { if showsStats != oldValue { repaintsAll = true; scene.layout(info) } }
    }
    private var statsWasShown = false
    private var statsText = ""
    private var lastFrameTimes: [Double] = []
    private var lastDrawDuration = 0.0
    /// At the window's top right, in window coordinates: upright on a rotated output (with app
    /// rotation it reads sideways: a diagnostic, kept simple).
    private var statsRect: Rect { Rect(x: windowInfo.size.width - 430, y: 8, width: 420, height: 34) }
    /// The overlay in scene coordinates.
    private var statsRectInScene: Rect { sceneToWindow.inverted!.apply(statsRect) }

    private func recordFrame(time: Double, damage: Region) {
        lastFrameTimes.append(time)
        if lastFrameTimes.count > 30 { lastFrameTimes.removeFirst() }
        var fps = 0.0
        if let first = lastFrameTimes.first, let last = lastFrameTimes.last, last > first {
            fps = Double(lastFrameTimes.count - 1) / (last - first)
        }
        let pct = Double(damage.area) / Double(max(1, pixelSize.area)) * 100
        statsText = "draw \(String(format2: lastDrawDuration * 1000)) ms · damaged \(String(format2: pct))% · \(Int(fps.rounded())) fps"
    }

    /// Shapes and layers this stage's frames reuse.
    let cache = RenderCache()

    /// Every frame's draw time since the start (for the fleet metrics).
    private(set) var drawTimes = Histogram.frameTimes()
    /// Frames drawn and time spent drawing them since the last `takeDrawStats()`.
    private var drawn = (frames: 0, seconds: 0.0, longest: 0.0)
    func takeDrawStats() -> (frames: Int, seconds: Double, longest: Double) {
        defer { drawn = (0, 0, 0) }
        return drawn
    }

    /// Fonts for the overlay.
    var fonts: FontCache?

    func draw(in canvas: Canvas) {
        let start = MonotonicClock.now()
        canvas.cache = cache
        canvas.highContrast = isLarge
        if let zoomed = isLarge ? canvas.zoomed(by: zoom) : canvas {
            if !drawsTurned {
                scene.draw(in: zoomed)
            } else if let turned = zoomed.turned(by: sceneToZoomedBuffer, size: info.size) {
                scene.draw(in: turned)
            }
        }
        canvas.highContrast = false
        lastDrawDuration = MonotonicClock.now() - start
        drawn.frames += 1
        drawn.seconds += lastDrawDuration
        drawn.longest = max(drawn.longest, lastDrawDuration)
        drawTimes.record(lastDrawDuration)
        if showsStats, let c = bufferRotation == .upright ? canvas : canvas.turned(by: windowToBuffer, size: windowInfo.size),
           c.isVisible(statsRect), let font = fonts?.font("DejaVu Sans Mono", points: 16, scale: windowInfo.scale) {
            c.fillRoundedRect(statsRect, radius: 8, color: Color.black.withAlpha(0.7))
            c.draw(font.layout(statsText), at: Point(x: statsRect.minX + 12, y: statsRect.midY + font.ascent / 2 - 2), color: Color.leaf)
        }
    }
}
