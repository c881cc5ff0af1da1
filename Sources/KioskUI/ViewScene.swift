import KioskCore
import KioskRender

/// A scene built from views, as a UIKit view controller: subclass, build the content in
/// `build(in:)`, lay it out in `layout(view:)`. Its `view` is shown by a shell's window (one
/// view tree for the whole screen), or on its own in `host` (a snapshot, a benchmark, a test):
/// touches, animation, damage and drawing are the window's.
open class ViewScene: Responder, Scene {
    public let name: String
    /// The scene's content.
    public let view: SceneView
    /// The window that shows `view` when no shell does.
    public let host: RootView
    public var invalidation: Invalidation { host.invalidation }

    public init(name: String, fonts: FontCache, scheduler: Scheduler = ManualScheduler(),
                info: DisplayInfo = DisplayInfo(size: Size(width: 1280, height: 800))) {
        self.name = name
        view = SceneView(info: info, fonts: fonts, scheduler: scheduler)
        host = RootView(info: info, fonts: fonts, scheduler: scheduler)
        super.init()
        view.owner = self
        host.addSubview(view)
        build(in: view)
        applyTexts()
        host.invalidation.maximumRects = maximumDamageRects
    }

    /// The words the scene writes, in the language on screen. A new language is applied at once:
    /// texts set again, the layout mirrored or not, and everything laid out again.
    public var texts = Texts() {
        didSet {
            guard texts != oldValue else { return }
            view.layoutIsRightToLeft = texts.isRightToLeft
            applyTexts()
            // Not before the first real layout: laid out at the default size first, the views
            // would then animate from there into place (the tiles flew in).
            if hasLaidOut { layout(view: view) }
        }
    }
    /// Sets every text the scene shows from `texts` (after `build`, and on a new language).
    open func applyTexts() {}

    /// How many damaged rectangles the window keeps apart while this scene shows (see
    /// `Invalidation.maximumRects`).
    open var maximumDamageRects: Int { Invalidation.defaultMaximumRects }

    /// Whether the screensaver may take over after the idle timeout while this shows over
    /// the scenes (an admin panel may; a setup the installer stepped away from may not).
    open var yieldsToScreensaver: Bool { true }

    /// Creates the scene's views (called once).
    open func build(in view: SceneView) {}
    /// Positions views for `view.info` (called on every size, scale or panel change).
    open func layout(view: SceneView) {}

    /// Shown on its own (a snapshot, a test), in the large high-contrast mode.
    public var prefersLargeDisplay = false

    /// Whether `view` is shown on its own (not in a shell's window).
    private var isOnItsOwn: Bool { view.root === host }

    /// Whether `layout(_:)` has run: the view has the display's size, not the default.
    public private(set) var hasLaidOut = false

    open func layout(_ info: DisplayInfo) {
        hasLaidOut = true
        view.info = info
        if isOnItsOwn { host.setDisplay(info) }
        view.frame = Rect(origin: .zero, size: info.size)
        layout(view: view)
    }
    /// A touch batch, delivered by the window showing the scene.
    open func handle(_ batch: TouchBatch) { view.root?.handle(batch) }
    open func handle(_ key: KeyEvent) {}
    /// A contact the touch filter kept from the scene (`TouchFilter`), in the scene's points:
    /// nothing for visitors' scenes; the operators' touch test shows it.
    open func ignoredContact(at location: Point, rule: TouchFilter.Rule) {}
    /// Moves the scene's own state (physics, spawning) to `time`; on its own, its window too.
    open func advance(to time: Double) { if isOnItsOwn { host.advance(to: time) } }
    open var isAnimating: Bool { view.isAnimating }
    public func draw(in canvas: Canvas) { host.render(in: canvas) }
    public func prepareContent() { view.root?.prepareContent() }
    open func saveState() {}
    open func reset() {}
    /// Pausing cancels the touches in progress, so nothing stays pressed behind another scene;
    /// the scene's model (`SceneView.touchObserver`) lets go of its fingers with the views.
    open func setActive(_ active: Bool) {
        if !active { view.root?.cancelTouches(inside: view, at: view.scheduler.now) }
    }
}
