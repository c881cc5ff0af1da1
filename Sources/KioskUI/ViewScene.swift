import KioskCore
import KioskRender

/// A scene built from views, as a UIKit view controller: subclass, build the content in
/// `build(in:)`, lay it out in `layout(view:)`. Its `view` is shown by a shell's window (one
/// view tree for the whole screen; `isHostedElsewhere`), or on its own in `host` (a snapshot,
/// a benchmark, a test): touches, animation, damage and drawing are the window's.
open class ViewScene: Responder, Scene {
    public let name: String
    /// The scene's content.
    public let view: SceneView
    /// Shown in another's window (a shell's, or inside another scene's view), never on its
    /// own: set by whoever takes the scene, before its first layout. Such a scene has no
    /// window of its own.
    public var isHostedElsewhere = false
    /// The window that shows `view` when no other does, made when first needed.
    public private(set) lazy var host: RootView = {
        let host = RootView(info: view.info, fonts: view.fonts, scheduler: view.scheduler)
        host.addSubview(view)
        host.invalidation.maximumRects = maximumDamageRects
        return host
    }()
    /// The window showing `view` now: the other one while the scene is in it (nil while
    /// another scene shows), else its own.
    private var window: RootView? { isHostedElsewhere ? view.root : host }
    /// What changed in the window that shows the scene (nothing, while none does).
    public var invalidation: Invalidation { window?.invalidation ?? unshown }
    private let unshown = Invalidation()

    /// `texts`: the scene's own words (its part of the kiosk's), shown with the toolkit's in
    /// English until a shell gives it the kiosk's in a language.
    public init(name: String, fonts: FontCache, scheduler: Scheduler = ManualScheduler(),
                info: DisplayInfo = DisplayInfo(size: Size(width: 1280, height: 800)), texts: TextCatalog = .empty) {
        self.name = name
        self.texts = Texts(table: TextCatalog(gathering: [texts, ToolkitTexts.table]))
        view = SceneView(info: info, fonts: fonts, scheduler: scheduler)
        super.init()
        view.owner = self
        build(in: view)
        applyTexts()
    }

    /// The words the scene writes, in the language on screen. A new language is applied at once:
    /// texts set again, the layout mirrored or not, and everything laid out again.
    public var texts: Texts {
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

    /// Shown on its own (a snapshot, a test), in the large high-contrast mode: its stage lays it
    /// out again on the next frame.
    public var prefersLargeDisplay = false {
        didSet { if prefersLargeDisplay != oldValue { window?.invalidation.addAll() } }
    }


    /// Whether `layout(_:)` has run: the view has the display's size, not the default.
    public private(set) var hasLaidOut = false

    open func layout(_ info: DisplayInfo) {
        hasLaidOut = true
        view.info = info
        if !isHostedElsewhere { host.setDisplay(info) }
        view.frame = Rect(origin: .zero, size: info.size)
        layout(view: view)
    }
    /// A touch batch, delivered by the window showing the scene.
    open func handle(_ batch: TouchBatch) { window?.handle(batch) }
    open func handle(_ key: KeyEvent) {}
    /// A contact the touch filter kept from the scene (`TouchFilter`), in the scene's points:
    /// nothing for visitors' scenes; the operators' touch test shows it.
    open func ignoredContact(at location: Point, rule: TouchFilter.Rule) {}
    /// On its own, its window moved to `time` (its display links first: the scene's physics,
    /// spawning); hosted elsewhere, that window does it.
    public func advance(to time: Double) { if !isHostedElsewhere { host.advance(to: time) } }
    /// Its window's answer; nothing while another scene shows (its window is not this one's).
    public var needsFrame: Bool { window?.needsFrame ?? false }
    /// On its own: its window drawn (hosted elsewhere, that window draws it).
    public func draw(in canvas: Canvas) { if !isHostedElsewhere { host.render(in: canvas) } }
    public func prepareContent() { window?.prepareContent() }
    open func saveState() {}
    open func reset() {}
    /// Pausing cancels the touches in progress, so nothing stays pressed behind another scene;
    /// the scene's model (`SceneView.touchObserver`) lets go of its fingers with the views.
    open func setActive(_ active: Bool) {
        if !active { window?.cancelTouches(inside: view, at: view.scheduler.now) }
    }
}
