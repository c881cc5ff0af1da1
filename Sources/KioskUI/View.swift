import KioskCore
import KioskRender

/// Something that can take touches: a view, a scene. Unhandled events go to `next`.
open class Responder {
    public init() {}
    /// The next responder: a view's superview, the root's owner for the root.
    open var next: Responder? { nil }
    open func touchesBegan(_ touches: Set<Touch>, event: TouchEvent) { next?.touchesBegan(touches, event: event) }
    open func touchesMoved(_ touches: Set<Touch>, event: TouchEvent) { next?.touchesMoved(touches, event: event) }
    open func touchesEnded(_ touches: Set<Touch>, event: TouchEvent) { next?.touchesEnded(touches, event: event) }
    open func touchesCancelled(_ touches: Set<Touch>, event: TouchEvent) { next?.touchesCancelled(touches, event: event) }
}

/// A rectangle on screen with UIKit's semantics: geometry (`center`, `bounds`, `transform`,
/// derived `frame`), appearance, ordered subviews back to front, touches, gesture recognizers.
///
/// Content is drawn by `draw(in:)` once into a cached layer (a pixman image at the screen scale)
/// and only recomposited afterwards: moving, fading, rotating or scaling a view never calls
/// `draw` again; `setNeedsDisplay()` is the only way to redraw it. Plain rectangles (a background
/// colour with no corner radius, border or custom drawing) need no layer and are filled directly.
/// Every change damages the view's old and new screen area in its root.
open class View: Responder {
    // MARK: Geometry (model values; animations change the presentation values)

    /// Whether a change takes effect at once, with nothing animating it: then the hot
    /// setters write model and presentation directly.
    private var setsDirectly: Bool {
        guard let root else { return false }
        return !root.animator.isActive && AnimationContext.current == nil
    }

    /// Position of the view's centre in the superview's coordinates.
    public var center: Point {
        get { model.center }
        set {
            // The hot path (moving views every frame) without key paths: measured at ~1.8 µs
            // per assignment through `set(_:_:)` against well under 1 µs here.
            guard setsDirectly else { return set(\.center, newValue) }
            guard newValue != model.center || newValue != presentation.center else { return }
            model.center = newValue; willChange(); presentation.center = newValue
        }
    }
    /// The view's own coordinate space; its size is the view's size.
    public var bounds: Rect {
        get { Rect(origin: boundsOrigin, size: model.size) }
        set {
            let sizeChanged = newValue.size != model.size
            if newValue.origin != boundsOrigin { willChange(); boundsOrigin = newValue.origin }
            if sizeChanged { set(\.size, newValue.size); sizeDidChange() }
        }
    }
    /// Applied about the centre.
    public var transform: AffineTransform {
        get { model.transform }
        set { set(\.transform, newValue) }
    }
    /// The frame in the superview: exact while `transform` is the identity, else its bounding box.
    public var frame: Rect {
        get { frame(of: model) }
        set {
            // Like UIKit, setting a frame keeps the transform and sets centre and size.
            center = Point(x: newValue.midX, y: newValue.midY)
            if newValue.size != model.size { bounds = Rect(origin: boundsOrigin, size: newValue.size) }
        }
    }

    // MARK: Appearance

    public var alpha: Double {
        get { model.alpha }
        set {
            let v = max(0, min(1, newValue))
            guard setsDirectly else { return set(\.alpha, v) }
            guard v != model.alpha || v != presentation.alpha else { return }
            model.alpha = v; willChange(); presentation.alpha = v
        }
    }
    public var backgroundColor: Color? {
        get { model.backgroundColor }
        set { set(\.backgroundColor, newValue); setNeedsDisplayIfLayered() }
    }
    public var isHidden = false {
        // Damage while visible: before hiding, after showing.
        willSet { if newValue && !isHidden { damageSubtree() } }
        didSet { if !isHidden && oldValue { damageSubtree() } }
    }
    public var cornerRadius: Double = 0 { didSet { if cornerRadius != oldValue { setNeedsDisplay() } } }
    public var borderWidth: Double = 0 { didSet { if borderWidth != oldValue { setNeedsDisplay() } } }
    public var borderColor: Color = .black { didSet { if borderColor != oldValue, borderWidth > 0 { setNeedsDisplay() } } }
    public var clipsToBounds = false { didSet { if clipsToBounds != oldValue { damageSubtree() } } }
    public var isUserInteractionEnabled = true
    public var isMultipleTouchEnabled = false
    public var tag = 0
    /// A name for tests and the debug log ("scene bar tiles"), never spoken (UIKit's).
    public var accessibilityIdentifier: String?
    /// Whether a screen reader speaks this view as one thing (its subviews then are not).
    /// Buttons and labels are; a container is not.
    public var isAccessibilityElement = false
    /// What a screen reader says it is, in the language on screen; a button's title or a
    /// label's text without one.
    public var accessibilityLabel: String?
    /// Its value where it has one ("Tile 5 of 24" has none; a slider's "40 percent").
    public var accessibilityValue: String?
    public var accessibilityTraits: AccessibilityTraits = []
    /// The label a screen reader speaks: `accessibilityLabel`, else what the view shows.
    open var spokenLabel: String? { accessibilityLabel }
    /// A screen reader's double tap on this view; false: it has no action of its own, and the
    /// reader taps its centre instead (as VoiceOver does).
    open func accessibilityActivate() -> Bool { false }
    /// Subclasses that draw in `draw(in:)` return true (controls do); see the type's comment.
    open var drawsContent: Bool { false }
    /// Views that composite faster straight from shared caches (text from fcft's glyph cache)
    /// than from a layer return true and implement `drawDirectly`; used while the view is only
    /// translated (a rotated or scaled view falls back to its layer).
    open var drawsDirectly: Bool { false }
    /// Draws the content at `origin` (root coordinates, pixel-snapped) with `alpha`.
    open func drawDirectly(in canvas: Canvas, origin: Point, alpha: Double) {}

    /// Extra margin (points) around the bounds that still counts as inside for a touch that
    /// begins: small targets get a finger-sized hot area without looking bigger.
    public var touchDownHitOutset: Double = 0

    // MARK: Hierarchy

    public private(set) weak var superview: View?
    public private(set) var subviews: [View] = []
    /// The root this view is shown in, if any (kept up to date on insertion and removal:
    /// every property change needs it, so it is not searched for each time).
    public var root: RootView? { cachedRoot }
    /// Weak: a root holds its subtree, not the other way round (a root points at itself).
    weak var cachedRoot: RootView?
    /// The fonts and the display this view is measured for: its window's, or while it is in
    /// none (a scene laid out before the shell shows it), its scene's (`SceneView`).
    public var measuring: (fonts: FontCache, info: DisplayInfo)? {
        if let root { return (root.fonts, root.info) }
        var v: View? = self
        while let view = v {
            if let scene = view as? SceneView { return (scene.fonts, scene.info) }
            v = view.superview
        }
        return nil
    }
    private func updateRoot(_ r: RootView?) {
        cachedRoot = r
        for s in subviews { s.updateRoot(r) }
    }
    public private(set) var gestureRecognizers: [GestureRecognizer] = []
    /// Whether this view's elements are read together, in their own order, where it stands
    /// (UIKit's accessibility container): a scroll view's, part of which is out of view.
    open var groupsAccessibilityElements: Bool { false }
    /// What this view does on each frame (`addDisplayLink`); its window runs them.
    var displayLinks: [DisplayLink] = []

    open override var next: Responder? { superview }

    public init(frame: Rect = .zero) {
        model = Presentation(center: Point(x: frame.midX, y: frame.midY), size: frame.size)
        presentation = model
        super.init()
    }

    // MARK: State

    /// Animatable values. `model` is what was last set; `presentation` is what is on screen.
    struct Presentation: Equatable {
        var center: Point
        var size: Size
        var transform: AffineTransform = .identity
        var alpha: Double = 1
        var backgroundColor: Color?
    }
    var model: Presentation
    var presentation: Presentation
    private var boundsOrigin = Point.zero
    var layer: Image?
    var layerIsValid = false
    var needsLayout = true

    /// Sets an animatable property: inside an animation block it animates from what is on screen,
    /// otherwise it changes the presentation at once.
    func set<T: Equatable & Interpolatable>(_ key: WritableKeyPath<Presentation, T>, _ value: T) {
        guard model[keyPath: key] != value || presentation[keyPath: key] != value else { return }
        model[keyPath: key] = value
        guard let root else {
            presentation[keyPath: key] = value
            return
        }
        if let context = AnimationContext.current {
            root.animator.animate(self, key, to: value, context: context)
        } else {
            if root.animator.isActive { root.animator.removeAnimations(of: self, key) }
            willChange()
            presentation[keyPath: key] = value
        }
    }

    /// Called by the animator for each animated frame.
    func setPresentation<T>(_ key: WritableKeyPath<Presentation, T>, _ value: T) {
        willChange()
        presentation[keyPath: key] = value
    }

    func frame(of p: Presentation) -> Rect {
        let local = Rect(x: -p.size.width / 2, y: -p.size.height / 2, width: p.size.width, height: p.size.height)
        return p.transform.concatenating(AffineTransform(translationX: p.center.x, y: p.center.y)).apply(local)
    }

    private func sizeDidChange() {
        layer = nil
        layerIsValid = false
        setNeedsLayout()
    }

    // MARK: Damage

    /// A change marks the view dirty once per frame, remembering where it was on screen; the
    /// root damages old and new extents together when the frame is taken. Setting several
    /// properties, or one property many times, costs one extent computation per frame.
    private func willChange() {
        guard !isDirty, let root else { return }
        isDirty = true
        extentBeforeChange = isShownInRoot ? damageExtent() : nil
        root.markDirty(self)
    }
    var isDirty = false
    var extentBeforeChange: Rect?

    /// Damages the screen area of this view and everything in it.
    func damageSubtree() {
        guard let root, isShownInRoot else { return }
        root.damage(damageExtent())
    }

    /// What compositing may paint for this view and its subviews: `screenExtent`, and one device
    /// pixel around it unless every box in it lies on whole device pixels, because origins snap
    /// to whole pixels and layers are whole pixels wide (a 67.2-point tile at x = 0.5 is drawn
    /// over pixels 1...68). Damage narrower than that leaves a sliver of antialiased edge in one
    /// buffer and not in the other.
    func damageExtent() -> Rect {
        let scale = Double(max(1, root?.info.scale ?? 1))
        let e = screenExtent()
        return liesOnPixels(scale: scale) ? e : e.insetBy(dx: -1 / scale, dy: -1 / scale)
    }
    private func liesOnPixels(scale: Double) -> Bool {
        let r = screenTransform().apply(Rect(origin: boundsOrigin, size: presentation.size))
        for v in [r.minX, r.minY, r.maxX, r.maxY] where (v * scale).rounded() != v * scale { return false }
        return clipsToBounds || subviews.allSatisfy { $0.isHidden || $0.liesOnPixels(scale: scale) }
    }

    /// True when this view and all its ancestors are visible.
    var isShownInRoot: Bool {
        var v: View? = self
        while let cur = v { if cur.isHidden { return false }; v = cur.superview }
        return true
    }

    /// Bounding box in root coordinates of this view and its subviews (as presented).
    func screenExtent() -> Rect {
        let t = screenTransform()
        var r = t.apply(Rect(origin: boundsOrigin, size: presentation.size))
        if !clipsToBounds {
            for s in subviews where !s.isHidden { r = r.union(s.screenExtent()) }
        }
        return r
    }

    /// Maps this view's bounds coordinates to root coordinates (presentation values).
    func screenTransform() -> AffineTransform { toTop { $0.localToSuperview() } }

    /// Concatenates `step` of this view and each ancestor below the topmost one.
    private func toTop(_ step: (View) -> AffineTransform) -> AffineTransform {
        var t = AffineTransform.identity
        var v: View? = self
        while let cur = v, let s = cur.superview {
            t = t.concatenating(step(cur))
            v = s
        }
        return t
    }

    /// Bounds coordinates → superview bounds coordinates, using what is on screen.
    func localToSuperview() -> AffineTransform { toSuperview(presentation) }

    /// Bounds → superview coordinates for one set of values (on screen, or as last set).
    private func toSuperview(_ p: Presentation) -> AffineTransform {
        AffineTransform(translationX: -boundsOrigin.x - p.size.width / 2, y: -boundsOrigin.y - p.size.height / 2)
            .concatenating(p.transform)
            .concatenating(AffineTransform(translationX: p.center.x, y: p.center.y))
    }

    // MARK: Drawing

    /// Draws the view's content in its own coordinates (0,0 at the bounds origin). Called once
    /// after `setNeedsDisplay()`, into the cached layer; never because the view moved.
    open func draw(in canvas: Canvas) {}

    /// Marks the content for redrawing before the next frame.
    public func setNeedsDisplay() {
        layerIsValid = false
        damageSubtree()
    }
    private func setNeedsDisplayIfLayered() { if needsLayer { setNeedsDisplay() } }

    /// Marks part of the content (bounds coordinates) for redrawing. Views that draw directly
    /// repaint just that part of the screen; layered views redraw their layer.
    public func setNeedsDisplay(in rect: Rect) {
        guard drawsDirectly else { return setNeedsDisplay() }
        guard let root, isShownInRoot else { return }
        root.damage(screenTransform().apply(rect))
    }

    /// Marks several parts of the content at once: one walk up the tree for all of them
    /// (a view drawing hundreds of moving items calls this once per frame).
    public func setNeedsDisplay(inRects rects: [Rect]) {
        guard drawsDirectly else { return setNeedsDisplay() }
        guard !rects.isEmpty, let root, isShownInRoot else { return }
        let t = screenTransform()
        for r in rects { root.damage(t.apply(r)) }
    }

    /// The edge drawn in the high-contrast mode where the view would otherwise vanish into what
    /// is behind it (a control on a dark fill); nil: none.
    open var highContrastOutline: Color? { nil }

    /// Whether the view needs a cached layer, or can be a direct fill.
    var needsLayer: Bool { drawsContent || cornerRadius > 0 || borderWidth > 0 }

    /// Draws background, border and content into a layer at `scale`.
    func renderLayer(scale: Int) -> Image? {
        let px = PixelSize(width: Int32((model.size.width * Double(scale)).rounded(.up)),
                           height: Int32((model.size.height * Double(scale)).rounded(.up)))
        guard px.width > 0, px.height > 0 else { return nil }
        if layer == nil || layer!.pixelSize != px || layer!.scale != scale {
            layer = Image(pixelSize: px, hasAlpha: true, scale: scale)
            layerIsValid = false
        }
        guard let layer else { return nil }
        if !layerIsValid {
            let canvas = Canvas(image: layer)
            canvas.cache = root?.renderCache
            canvas.highContrast = root?.info.isLarge ?? false
            canvas.clear(.clear)
            let box = Rect(origin: .zero, size: model.size)
            if let bg = model.backgroundColor { canvas.fillRoundedRect(box, radius: cornerRadius, color: bg) }
            draw(in: canvas)
            if borderWidth > 0 {
                canvas.strokeRoundedRect(box, radius: cornerRadius, width: borderWidth, color: borderColor)
            } else if canvas.highContrast, let outline = highContrastOutline {
                let w = 2.0
                canvas.strokeRoundedRect(box.insetBy(dx: w / 2, dy: w / 2), radius: max(0, cornerRadius - w / 2), width: w, color: outline)
            }
            layerIsValid = true
        }
        return layer
    }

    /// Readies what the first composite would otherwise do: the layer, or direct content.
    open func prepareContent(scale: Int) {
        if needsLayer && !drawsDirectly { _ = renderLayer(scale: scale) }
    }

    // MARK: Layout

    public func setNeedsLayout() {
        needsLayout = true
        root?.needsLayoutPass = true
    }
    /// Lays out subviews after a size change; override to position them.
    open func layoutSubviews() {}

    /// Whether this view's content reads right to left (Arabic): labels align to the right,
    /// controls that have a leading side put it there. Inherited from the scene's view
    /// (`SceneView.layoutIsRightToLeft`), as UIKit's `effectiveUserInterfaceLayoutDirection`.
    open var isRightToLeft: Bool { superview?.isRightToLeft ?? false }
    /// Turns a layout written left to right around for a right-to-left language: each of `views`
    /// (subviews of this one) moves to the mirror image of its place across this view's width.
    public func mirrorHorizontally(_ views: [View]) {
        // By centre: a turned view keeps its size (its frame is only its bounding box).
        for v in views where v.superview === self { v.center = Point(x: bounds.width - v.center.x, y: v.center.y) }
    }

    /// The direction changed above this view: what depends on it is laid out again.
    open func layoutDirectionDidChange() {
        setNeedsLayout()
        for s in subviews { s.layoutDirectionDidChange() }
    }

    func layoutIfNeeded() {
        if needsLayout {
            needsLayout = false
            layoutSubviews()
        }
        for s in subviews { s.layoutIfNeeded() }
    }

    // MARK: Subviews

    public func addSubview(_ view: View) { insertSubview(view, at: subviews.count) }

    public func insertSubview(_ view: View, at index: Int) {
        if view.superview === self, let old = subviews.firstIndex(where: { $0 === view }) {
            view.damageSubtree()
            subviews.remove(at: old)
            subviews.insert(view, at: min(index, subviews.count))
            view.damageSubtree()
            return
        }
        view.removeFromSuperview()
        subviews.insert(view, at: max(0, min(index, subviews.count)))
        view.superview = self
        view.updateRoot(root)
        view.didMoveToRoot()
        view.damageSubtree()
    }
    public func insertSubview(_ view: View, aboveSubview sibling: View) {
        guard let i = subviews.firstIndex(where: { $0 === sibling }) else { return addSubview(view) }
        let j = view.superview === self ? subviews.firstIndex(where: { $0 === view }) : nil
        insertSubview(view, at: j.map { $0 < i ? i : i + 1 } ?? i + 1)
    }
    public func insertSubview(_ view: View, belowSubview sibling: View) {
        guard let i = subviews.firstIndex(where: { $0 === sibling }) else { return insertSubview(view, at: 0) }
        let j = view.superview === self ? subviews.firstIndex(where: { $0 === view }) : nil
        insertSubview(view, at: j.map { $0 < i ? i - 1 : i } ?? i)
    }
    public func removeFromSuperview() {
        guard let s = superview else { return }
        damageSubtree()
        if isDirty, let old = extentBeforeChange { root?.damage(old) }
        root?.viewWillLeave(self)
        s.subviews.removeAll { $0 === self }
        superview = nil
        updateRoot(nil)
    }
    public func bringSubviewToFront(_ view: View) { if view.superview === self { insertSubview(view, at: subviews.count) } }
    public func sendSubviewToBack(_ view: View) { if view.superview === self { insertSubview(view, at: 0) } }
    public func exchangeSubview(at i: Int, withSubviewAt j: Int) {
        guard subviews.indices.contains(i), subviews.indices.contains(j), i != j else { return }
        subviews[i].damageSubtree(); subviews[j].damageSubtree()
        subviews.swapAt(i, j)
    }
    /// True when `view` is this view or inside it.
    public func isDescendant(of view: View) -> Bool {
        var v: View? = self
        while let cur = v { if cur === view { return true }; v = cur.superview }
        return false
    }

    private func didMoveToRoot() {
        // A layer made at another scale (or never) is redrawn on first composite.
        layerIsValid = false
        // Marked dirty in another root (a scene's view moving into the shell's window): that
        // root will not flush it, and a view still marked would never be marked here.
        isDirty = false
        extentBeforeChange = nil
        needsLayout = true
        root?.needsLayoutPass = true
        for link in displayLinks { root?.register(link) }
        for s in subviews { s.didMoveToRoot() }
    }

    // MARK: Gesture recognizers

    public func addGestureRecognizer(_ r: GestureRecognizer) {
        r.view?.removeGestureRecognizer(r)
        gestureRecognizers.append(r)
        r.view = self
    }
    public func removeGestureRecognizer(_ r: GestureRecognizer) {
        gestureRecognizers.removeAll { $0 === r }
        if r.view === self { r.view = nil }
    }

    // MARK: Hit testing and conversion

    /// Whether `point` (in bounds coordinates) is inside; override for irregular shapes.
    open func point(inside point: Point) -> Bool {
        bounds.insetBy(dx: -touchDownHitOutset, dy: -touchDownHitOutset).contains(point)
    }

    /// The frontmost view under `point` (in this view's coordinates) that takes touches.
    open func hitTest(_ point: Point) -> View? {
        guard !isHidden, isUserInteractionEnabled, model.alpha >= 0.01, self.point(inside: point) || !clipsToBounds else { return nil }
        for s in subviews.reversed() {
            if let hit = s.hitTest(s.convert(point, from: self)) { return hit }
        }
        return self.point(inside: point) ? self : nil
    }

    /// Model (not presentation) transform from bounds to superview coordinates: hit testing and
    /// conversion use where views are going to be, as in UIKit.
    func modelToSuperview() -> AffineTransform { toSuperview(model) }
    /// Bounds coordinates → coordinates of the topmost ancestor.
    func modelToTop() -> AffineTransform { toTop { $0.modelToSuperview() } }

    public func convert(_ point: Point, to view: View?) -> Point {
        let toTop = modelToTop().apply(point)
        guard let view else { return toTop }
        return view.modelToTop().inverted?.apply(toTop) ?? toTop
    }
    public func convert(_ point: Point, from view: View?) -> Point {
        guard let view else { return modelToTop().inverted?.apply(point) ?? point }
        return view.convert(point, to: self)
    }
    public func convert(_ rect: Rect, to view: View?) -> Rect {
        let t = modelToTop().concatenating(view?.modelToTop().inverted ?? .identity)
        return t.apply(rect)
    }
    public func convert(_ rect: Rect, from view: View?) -> Rect {
        guard let view else { return (modelToTop().inverted ?? .identity).apply(rect) }
        return view.convert(rect, to: self)
    }
}
