/// Hosts one scene at one display size and turns its invalidations into pixel damage.
/// The same object drives the live window and headless renders, so both draw identically.
final class Stage {
    let scene: Scene
    private(set) var info: DisplayInfo

    /// `laidOutFor`: the display the scene was already laid out for (by `ScenePreparation`);
    /// it is laid out again only if that differs.
    init(scene: Scene, info: DisplayInfo, laidOutFor prepared: DisplayInfo? = nil) {
        self.scene = scene
        self.info = info
        if prepared != info { scene.layout(info) }
    }

    var pixelSize: PixelSize {
        PixelSize(width: Int32((info.size.width * Double(info.scale)).rounded()),
                  height: Int32((info.size.height * Double(info.scale)).rounded()))
    }

    func relayout(_ newInfo: DisplayInfo) {
        guard newInfo != info else { return }
        info = newInfo
        scene.layout(newInfo)
    }

    /// Advances the scene to `time` and takes the damage since the last frame.
    func takeDamage(at time: Double) -> Region {
        scene.advance(to: time)
        let px = pixelSize
        let damage = scene.invalidation.take(scale: info.scale, bounds: PixelRect(x: 0, y: 0, width: px.width, height: px.height))
        if showsStats || statsWasShown {
            // The overlay is refreshed only on frames drawn anyway: it never keeps the kiosk awake.
            if !damage.isEmpty || statsWasShown != showsStats { damage.add(statsRect.pixelBounds(scale: info.scale)) }
            if !damage.isEmpty { recordFrame(time: time, damage: damage) }
            statsWasShown = showsStats
        }
        return damage
    }

    // MARK: Stats overlay

    /// F12 toggles the overlay (keysym XKB_KEY_F12).
    static let statsKeysym: UInt32 = 0xffc9
    var showsStats = false
    private var statsWasShown = false
    private var statsText = ""
    private var lastFrameTimes: [Double] = []
    private var lastDrawDuration = 0.0
    private var statsRect: Rect { Rect(x: info.size.width - 430, y: 8, width: 420, height: 34) }

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

    /// Fonts for the overlay.
    var fonts: FontCache?

    func draw(in canvas: Canvas) {
        let start = EventLoop.now()
        canvas.cache = cache
        scene.draw(in: canvas)
        lastDrawDuration = EventLoop.now() - start
        if showsStats, canvas.isVisible(statsRect), let font = fonts?.font("DejaVu Sans Mono", points: 16, scale: info.scale) {
            canvas.fillRoundedRect(statsRect, radius: 8, color: Color.black.withAlpha(0.7))
            canvas.draw(font.layout(statsText), at: Point(x: statsRect.minX + 12, y: statsRect.midY + font.ascent / 2 - 2), color: Color(rgb: 0x81c784))
        }
    }
}
