import KioskCore
import KioskRender

/// The top of the view tree: the window, the whole screen (a shell's scenes, its chrome and
/// the admin panel are all in it). It owns what the tree shares (fonts, render cache, animator,
/// gesture arena, timers), turns every view change into damage, composites the damaged region,
/// and delivers touches to views and gesture recognizers, once, in one hit test.
public final class RootView: View {
    public let fonts: FontCache
    package let renderCache = RenderCache()
    let animator = Animator()
    let arena = GestureArena()
    public let scheduler: Scheduler
    public private(set) var info: DisplayInfo
    /// Damage since the last frame, in root (logical) coordinates.
    public let invalidation = Invalidation()
    /// Where unhandled touches go after the root.
    public weak var owner: Responder?
    var needsLayoutPass = true

    private var touches: [Int32: Touch] = [:]
    private var tapCounter = TapCounter()

    public init(info: DisplayInfo, fonts: FontCache, scheduler: Scheduler) {
        self.info = info
        self.fonts = fonts
        self.scheduler = scheduler
        super.init(frame: Rect(origin: .zero, size: info.size))
        cachedRoot = self
        arena.root = self
        animator.clock = { [unowned self] in self.scheduler.now }
        invalidation.addAll()
    }

    public override var next: Responder? { owner }

    func damage(_ rect: Rect) { invalidation.add(rect) }

    private var dirtyViews: [View] = []
    func markDirty(_ view: View) {
        dirtyViews.append(view)
        invalidation.notePending()
    }
    /// Turns dirty views into damage: where each was and where it is now.
    func flushDamage() {
        guard !dirtyViews.isEmpty else { return }
        for v in dirtyViews {
            if let old = v.extentBeforeChange { invalidation.add(old) }
            if v.root === self && v.isShownInRoot { invalidation.add(v.damageExtent()) }
            v.isDirty = false
            v.extentBeforeChange = nil
        }
        dirtyViews.removeAll(keepingCapacity: true)
    }

    /// A new screen size, scale or panel: resize, relayout and redraw everything.
    public func setDisplay(_ newInfo: DisplayInfo) {
        let drawnAnew = newInfo.scale != info.scale || newInfo.isLarge != info.isLarge
        info = newInfo
        frame = Rect(origin: .zero, size: newInfo.size)
        if drawnAnew { invalidateLayers(self) }
        setNeedsLayout()
        invalidation.addAll()
    }
    private func invalidateLayers(_ v: View) {
        v.layerIsValid = false
        v.layer = nil
        for s in v.subviews { invalidateLayers(s) }
    }

    /// The display links of the views in this window, in the order they came.
    private var linksInWindow: [DisplayLink] = []
    func register(_ link: DisplayLink) {
        if !linksInWindow.contains(where: { $0 === link }) { linksInWindow.append(link) }
    }

    /// Whether the next frame has anything to show: damage, or the window changes by itself.
    /// The one answer to the question: scenes and the stage ask here.
    public var needsFrame: Bool { !invalidation.isEmpty || isAnimating }
    /// Whether the window changes by itself: animations run, or a display link wants frames.
    public var isAnimating: Bool { animator.isActive || linksInWindow.contains { $0.wantsFrames() } }

    /// Runs the display links, then timers and animations to `time`, and lays out what needs it.
    public func advance(to time: Double) {
        for link in linksInWindow where link.view?.root === self { link.step(time) }
        scheduler.advance(to: time)
        animator.step(to: time)
        layoutPass()
        flushDamage()
    }
    func layoutPass() {
        // Laying a view out may ask for layout again (a subview's new frame): the pass repeats
        // until the tree is still, as a bounded guard against a layout that never settles.
        for _ in 0..<8 where needsLayoutPass {
            needsLayoutPass = false
            layoutIfNeeded()
        }
    }

    func viewWillLeave(_ view: View) {
        animator.removeAnimations(inside: view)
        linksInWindow.removeAll { $0.view?.isDescendant(of: view) ?? true }
    }

    /// Lays out, shapes text and draws layers for everything visible, ahead of the first frame.
    public func prepareContent() {
        layoutPass()
        func visit(_ v: View) {
            guard !v.isHidden else { return }
            v.prepareContent(scale: info.scale)
            for s in v.subviews { visit(s) }
        }
        visit(self)
    }

    // MARK: Compositing

    /// Composites the tree into `canvas`, which is clipped to the region to repaint. Layout was
    /// settled by `advance(to:)`, which runs first in every frame (or by `prepareContent()`,
    /// for a picture taken between frames); changes not yet turned into damage are the next
    /// frame's.
    public func render(in canvas: Canvas) {
        assert(!needsLayoutPass, "render(in:) before advance(to:) or prepareContent()")
        canvas.cache = renderCache
        composite(self, parent: .identity, alpha: 1, canvas: canvas)
    }

    private func composite(_ v: View, parent: AffineTransform, alpha parentAlpha: Double, canvas: Canvas) {
        guard !v.isHidden else { return }
        let alpha = parentAlpha * v.presentation.alpha
        guard alpha > 0.001 else { return }
        let t = v === self ? AffineTransform.identity : v.localToSuperview().concatenating(parent)
        let box = v.bounds.size == v.presentation.size ? v.bounds : Rect(origin: v.bounds.origin, size: v.presentation.size)
        let screen = t.apply(box)
        let translationOnly = t.a == 1 && t.b == 0 && t.c == 0 && t.d == 1
        // As far as drawing may reach (see `View.damageExtent`): a clip holding only the pixel
        // a snapped edge falls on must still draw that edge.
        let device = 1 / Double(canvas.scale)
        if canvas.isVisible(screen.insetBy(dx: -device, dy: -device)) {
            draw(v, transform: t, translationOnly: translationOnly, box: box, screen: screen, alpha: alpha, canvas: canvas)
        }
        guard !v.subviews.isEmpty else { return }
        var savedClip: Region?
        if v.clipsToBounds {
            // Axis-aligned clip to the view's screen box (a rotated clipping view clips to its
            // bounding box: an approximation we accept for now).
            guard canvas.isVisible(screen) else { return }
            savedClip = canvas.clip?.copy()
            let c = savedClip?.copy() ?? Region(PixelRect(x: 0, y: 0, width: canvas.pixelSize.width, height: canvas.pixelSize.height))
            c.intersect(canvas.pixelBounds(of: snapped(screen, scale: canvas.scale)))
            canvas.setClip(c)
        }
        for s in v.subviews { composite(s, parent: t, alpha: alpha, canvas: canvas) }
        if v.clipsToBounds { canvas.setClip(savedClip) }
    }

    private func snapped(_ r: Rect, scale: Int) -> Rect {
        let s = Double(scale)
        return Rect(x: (r.minX * s).rounded() / s, y: (r.minY * s).rounded() / s, width: r.width, height: r.height)
    }

    private func draw(_ v: View, transform t: AffineTransform, translationOnly: Bool, box: Rect, screen: Rect, alpha: Double, canvas: Canvas) {
        let s = Double(canvas.scale)
        if v.needsLayer {
            if translationOnly, v.drawsDirectly {
                fillBackground(v, screen: snapped(screen, scale: canvas.scale), alpha: alpha, canvas: canvas)
                v.drawDirectly(in: canvas, origin: snapped(screen, scale: canvas.scale).origin, alpha: alpha)
                return
            }
            guard let layer = v.renderLayer(scale: canvas.scale) else { return }
            // The layer holds the model size; during a size animation it is stretched.
            let sx = v.model.size.width > 0 ? v.presentation.size.width / v.model.size.width : 1
            let sy = v.model.size.height > 0 ? v.presentation.size.height / v.model.size.height : 1
            var lt = AffineTransform(scaleX: sx, y: sy)
                .concatenating(AffineTransform(translationX: box.minX, y: box.minY)).concatenating(t)
            if lt.a == 1 && lt.b == 0 && lt.c == 0 && lt.d == 1 {
                // Origins snap to whole device pixels: never blurry, and a plain blit.
                lt.tx = (lt.tx * s).rounded() / s
                lt.ty = (lt.ty * s).rounded() / s
            }
            // A stretched layer reaches past the box by its padding pixel (the layer is whole
            // pixels wide) scaled up, plus the filter's half pixel: keep it within the damage
            // extent (`View.damageExtent`: the box and one device pixel).
            let stretched = sx != 1 || sy != 1
            canvas.draw(layer, transform: lt, alpha: alpha, within: stretched ? screen.insetBy(dx: -1 / s, dy: -1 / s) : nil)
        } else if let bg = v.presentation.backgroundColor {
            if translationOnly {
                fillBackground(v, screen: snapped(screen, scale: canvas.scale), alpha: alpha, canvas: canvas)
            } else {
                let corners = [Point(x: box.minX, y: box.minY), Point(x: box.maxX, y: box.minY),
                               Point(x: box.maxX, y: box.maxY), Point(x: box.minX, y: box.maxY)].map { t.apply($0) }
                canvas.fillPolygon(corners, color: bg.withAlpha(bg.alpha * alpha))
            }
        }
    }

    private func fillBackground(_ v: View, screen: Rect, alpha: Double, canvas: Canvas) {
        guard let bg = v.presentation.backgroundColor else { return }
        if v.cornerRadius > 0 {
            canvas.fillRoundedRect(screen, radius: v.cornerRadius, color: bg.withAlpha(bg.alpha * alpha))
        } else {
            canvas.fill(screen, color: bg.withAlpha(bg.alpha * alpha))
        }
    }

    // MARK: Touch delivery

    /// With speech on, touches explore the screen instead of acting (`ScreenReader`).
    public private(set) lazy var screenReader = ScreenReader(root: self, scheduler: scheduler)

    /// One platform batch: the screen reader's when speech is on, else delivered.
    public func handle(_ batch: TouchBatch) {
        if screenReader.take(batch) { return }
        deliver(batch)
    }

    /// Delivers one batch: hit tests new touches, feeds recognizers first, then views.
    func deliver(_ batch: TouchBatch) {
        let time = batch.time
        eventTime = time
        defer { eventTime = nil }
        var observed: [(TouchPoint, Touch)] = []
        var began = Set<Touch>(), moved = Set<Touch>(), ended = Set<Touch>(), cancelled = Set<Touch>()
        for p in batch.points {
            switch p.phase {
            case .began:
                if let stale = touches.removeValue(forKey: p.id) { stale.phase = .cancelled; cancelled.insert(stale) }
                let hit = hitTest(p.location)
                // A view that is not multi-touch takes only its first finger.
                let target = hit.flatMap { h in
                    (!h.isMultipleTouchEnabled && touches.values.contains { $0.view === h }) ? nil : h
                }
                let count = tapCounter.countForDown(at: p.location, time: time)
                let t = Touch(id: p.id, location: p.location, time: time, tapCount: count, view: target, root: self)
                t.observer = Self.observer(of: hit)
                observed.append((p, t))
                var recognizers: [GestureRecognizer] = []
                // A finger a single-touch view refuses is still seen by its ancestors' recognizers
                // (the window's admin hold counts every finger in its corner).
                var v: View? = target ?? hit?.superview
                while let cur = v {
                    recognizers += cur.gestureRecognizers.filter { $0.isEnabled && $0.shouldReceive?(t) != false }
                    v = cur.superview
                }
                t.gestureRecognizers = recognizers
                touches[p.id] = t
                began.insert(t)
            case .moved:
                guard let t = touches[p.id] else { continue }
                t.previousLocation = t.location
                t.location = p.location
                t.timestamp = time
                t.phase = .moved
                moved.insert(t)
                observed.append((p, t))
            case .ended:
                guard let t = touches.removeValue(forKey: p.id) else { continue }
                t.previousLocation = t.location
                t.location = p.location
                t.timestamp = time
                t.phase = .ended
                tapCounter.recordTap(at: p.location, time: time, count: t.tapCount)
                ended.insert(t)
                observed.append((p, t))
            case .cancelled:
                guard let t = touches.removeValue(forKey: p.id) else { continue }
                t.timestamp = time
                t.phase = .cancelled
                cancelled.insert(t)
                observed.append((p, t))
            }
        }
        let all = Set(touches.values).union(ended).union(cancelled)
        let event = TouchEvent(timestamp: time, allTouches: all)
        tellObservers(observed, time: time)
        feedRecognizers(began: began, moved: moved, ended: ended, cancelled: cancelled)
        deliverToViews(began, event) { $0.touchesBegan($1, event: event) }
        deliverToViews(moved, event) { $0.touchesMoved($1, event: event) }
        deliverToViews(ended, event) { $0.touchesEnded($1, event: event) }
        deliverToViews(cancelled, event) { $0.touchesCancelled($1, event: event) }
        if touches.isEmpty { arena.failUndecided() }
    }

    /// How many touches are down.
    var touchesInProgress: Int { touches.count }

    /// Cancels the touches that began inside `view` (a scene leaving the screen), for its
    /// views, recognizers and observer alike.
    public func cancelTouches(inside view: View, at time: Double) {
        let pts = touches.values.filter { $0.observer === view || $0.view?.isDescendant(of: view) == true }.sorted { $0.id < $1.id }
            .map { TouchPoint(id: $0.id, phase: .cancelled, location: $0.location) }
        if !pts.isEmpty { handle(TouchBatch(time: time, points: pts)) }
    }

    /// The scene view whose observer hears a touch that began on `view`.
    private static func observer(of view: View?) -> SceneView? {
        var v = view
        while let cur = v {
            if let s = cur as? SceneView, s.touchObserver != nil { return s }
            v = cur.superview
        }
        return nil
    }

    /// Hands each observer its touches' points of a batch, in the platform's order.
    private func tellObservers(_ observed: [(TouchPoint, Touch)], time: Double) {
        var byObserver: [(SceneView, [TouchPoint])] = []
        for (p, t) in observed {
            guard !t.observerDropped, let o = t.observer else { continue }
            if let i = byObserver.firstIndex(where: { $0.0 === o }) { byObserver[i].1.append(p) } else { byObserver.append((o, [p])) }
        }
        for (o, pts) in byObserver { o.touchObserver?(TouchBatch(time: time, points: pts)) }
    }

    /// The time of the input being delivered (nil between deliveries): what recognizers time
    /// a gesture by, as UIKit's touches carry their own timestamp.
    private(set) var eventTime: Double?

    private func feedRecognizers(began: Set<Touch>, moved: Set<Touch>, ended: Set<Touch>, cancelled: Set<Touch>) {
        func byRecognizer(_ set: Set<Touch>) -> [(GestureRecognizer, Set<Touch>)] {
            var out: [(GestureRecognizer, Set<Touch>)] = []
            for t in set {
                for r in t.gestureRecognizers {
                    if let i = out.firstIndex(where: { $0.0 === r }) { out[i].1.insert(t) } else { out.append((r, [t])) }
                }
            }
            return out
        }
        func live(_ r: GestureRecognizer) -> Bool { r.state == .possible && r.pendingState == nil || r.state.isActive }
        for (r, ts) in byRecognizer(began) where live(r) {
            arena.join(r)
            r.trackedTouches += ts.sorted { $0.id < $1.id }
            r.touchesBegan(ts)
        }
        for (r, ts) in byRecognizer(moved) where live(r) && r.trackedTouches.contains(where: ts.contains) {
            r.touchesMoved(ts.filter { r.trackedTouches.contains($0) })
        }
        for (r, ts) in byRecognizer(ended) {
            let mine = ts.filter { r.trackedTouches.contains($0) }
            guard !mine.isEmpty else { continue }
            if live(r) {
                r.lastCentroid = r.location(in: nil)
                r.touchesEnded(mine)
            }
            r.trackedTouches.removeAll { mine.contains($0) }
        }
        for (r, ts) in byRecognizer(cancelled) {
            let mine = ts.filter { r.trackedTouches.contains($0) }
            guard !mine.isEmpty else { continue }
            if live(r) { r.touchesCancelled(mine) }
            r.trackedTouches.removeAll { mine.contains($0) }
        }
        arena.cleanUp()
    }

    private func deliverToViews(_ set: Set<Touch>, _ event: TouchEvent, _ call: (View, Set<Touch>) -> Void) {
        var groups: [(View, Set<Touch>)] = []
        for t in set where !t.deliveryCancelled {
            guard let v = t.view else { continue }
            if let i = groups.firstIndex(where: { $0.0 === v }) { groups[i].1.insert(t) } else { groups.append((v, [t])) }
        }
        for (v, ts) in groups { call(v, ts) }
    }

    /// `recognizer` took these touches: their views hear `touchesCancelled` and nothing more,
    /// and so does the observer of a scene the recognizer is not in.
    func cancelViewDelivery(of list: [Touch], by recognizer: GestureRecognizer) {
        let taken = list.filter { t in t.observer.map { recognizer.view?.isDescendant(of: $0) != true } ?? false }
        tellObservers(taken.map { (TouchPoint(id: $0.id, phase: .cancelled, location: $0.location), $0) }, time: eventTime ?? scheduler.now)
        for t in taken { t.observerDropped = true }
        var groups: [(View, Set<Touch>)] = []
        for t in list where !t.deliveryCancelled {
            t.deliveryCancelled = true
            guard let v = t.view else { continue }
            if let i = groups.firstIndex(where: { $0.0 === v }) { groups[i].1.insert(t) } else { groups.append((v, [t])) }
        }
        let event = TouchEvent(timestamp: eventTime ?? scheduler.now, allTouches: Set(touches.values))
        for (v, ts) in groups { v.touchesCancelled(ts, event: event) }
    }
}
