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
        return scene.invalidation.take(scale: info.scale, bounds: PixelRect(x: 0, y: 0, width: px.width, height: px.height))
    }

    /// Shapes and layers this stage's frames reuse.
    let cache = RenderCache()

    func draw(in canvas: Canvas) {
        canvas.cache = cache
        scene.draw(in: canvas)
    }
}
