import KioskCore
import KioskRender

/// A scene built from views: subclass, build the tree in `build(in:)`, lay it out in
/// `layout(root:)`. Touches, animation, damage and drawing are handled by the root.
open class ViewScene: Responder, Scene {
    public let name: String
    public let root: RootView
    public var invalidation: Invalidation { root.invalidation }

    public init(name: String, fonts: FontCache, scheduler: Scheduler = ManualScheduler(),
                info: DisplayInfo = DisplayInfo(size: Size(width: 1280, height: 800))) {
        self.name = name
        root = RootView(info: info, fonts: fonts, scheduler: scheduler)
        super.init()
        root.owner = self
        build(in: root)
    }

    /// Creates the scene's views (called once).
    open func build(in root: RootView) {}
    /// Positions views for `root.info` (called on every size, scale or panel change).
    open func layout(root: RootView) {}

    open func layout(_ info: DisplayInfo) {
        root.setDisplay(info)
        layout(root: root)
    }
    open func handle(_ batch: TouchBatch) { root.handle(batch) }
    open func handle(_ key: KeyEvent) {}
    open func advance(to time: Double) { root.advance(to: time) }
    open var isAnimating: Bool { root.isAnimating }
    public func draw(in canvas: Canvas) { root.render(in: canvas) }
    public func prepareContent() { root.prepareContent() }
    open func saveState() {}
    open func reset() {}
    /// Pausing cancels the touches in progress, so nothing stays pressed behind another scene:
    /// through `handle`, the path a `wl_touch.cancel` takes, so the scene's own model lets go
    /// of its fingers with the views.
    open func setActive(_ active: Bool) {
        if !active, let cancel = root.cancellationOfAllTouches(at: root.scheduler.now) { handle(cancel) }
    }
}
