import CWayland
import KioskCore
import KioskRender

/// What the window asks of the layer above it.
package protocol WindowDelegate: AnyObject {
    /// The window's logical size, scale or output changed (also the first configure).
    func window(_ window: Window, didChange info: DisplayInfo)
    /// Whether the content changed or is animating. The one question that decides a frame:
    /// asked once per event-loop pass, only when a frame could be drawn now.
    func windowNeedsFrame(_ window: Window) -> Bool
    /// A frame is being made for `time` (monotonic seconds): move animations and timers there.
    func window(_ window: Window, advanceTo time: Double)
    /// The pixel damage since the last frame (empty: nothing visible changed, nothing drawn).
    func windowTakeDamage(_ window: Window) -> Region
    /// Draw into `canvas`, which is clipped to what the buffer needs repainted.
    func window(_ window: Window, draw canvas: Canvas)
}

/// The kiosk's one fullscreen xdg_toplevel, its buffers and its frame pacing.
///
/// Rendering is driven by frame callbacks: the event loop calls `renderIfNeeded()` once per
/// pass, which — when the window is configured and no frame callback is pending (unless an
/// acked configure awaits its commit) — asks its delegate once whether anything changed, and
/// draws into a free buffer if so. Nothing above pushes "redraw" requests: a change marks
/// itself where it happens, and bursts of input collapse into one frame per refresh. The
/// window's own reasons (a configure, a new size, a buffer come back) are `needsRedraw`.
package final class Window {
    let display: Display
    let surface: OpaquePointer
    private let xdgSurface: OpaquePointer
    private let toplevel: OpaquePointer
    private var decoration: OpaquePointer?
    private var idleInhibitor: OpaquePointer?
    private var frameCallback: OpaquePointer?
    private let chain: BufferChain
    private let log: Logger
    package weak var delegate: WindowDelegate?

    private(set) var configured = false
    private(set) var size = Size.zero
    private(set) var scale = 1
    private var committedScale: Int32 = 1
    /// Quarter turns clockwise from surface to buffer: the output's own rotation, so the buffer
    /// is drawn in the panel's orientation and the compositor shows it without a rotation pass
    /// (flipped outputs are left to the compositor). Above Platform frames are drawn straight
    /// into the turned buffer (`Canvas.turned`): under weston a rotated output then costs the
    /// compositor what an upright one does, where turning every damaged pixel itself doubled
    /// its share. With app rotation the two turns fold into one, or cancel out.
    private(set) package var bufferRotation = Rotation.upright
    private var committedTransform: Int32 = 0
    /// Buffers stored bottom row first, for a compositor that mishandles direct scan-out
    /// (`Quirks.flipsBuffers`); invisible above Platform.
    var flipsBuffers = false
    /// The wl_output transform (counter-clockwise quarter turns) matching `bufferRotation`.
    static func wlTransform(bufferRotation r: Rotation) -> Int32 { Int32(r.inverse.quarterTurns) }
    /// The turn a buffer takes for an output with transform `t` (flipped ones: none).
    static func bufferRotation(outputTransform t: Int32) -> Rotation {
        t >= 0 && t < 4 ? Rotation(quarterTurns: -Int(t)) : .upright
    }
    private var pendingSize: (Int32, Int32)?
    private var enteredOutputs: [OpaquePointer] = []
    private(set) var needsRedraw = false
    private(set) package var framesPresented = 0
    private var lastInfo: DisplayInfo?
    /// Called once, right after the first buffer is committed.
    package var onFirstFrame: (() -> Void)?

    package init(display: Display, log: Logger) {
        self.display = display
        self.log = log
        chain = BufferChain(shm: display.shm!, log: log)
        surface = wl_compositor_create_surface(display.compositor!)
        xdgSurface = xdg_wm_base_get_xdg_surface(display.wmBase!, surface)
        toplevel = xdg_surface_get_toplevel(xdgSurface)
        chain.onRelease = { [weak self] in self?.bufferReleased() }
        wl_surface_add_listener(surface, Window.surfaceListener, ListenerToken.userData(for: self))
        xdg_surface_add_listener(xdgSurface, Window.xdgSurfaceListener, ListenerToken.userData(for: self))
        xdg_toplevel_add_listener(toplevel, Window.toplevelListener, ListenerToken.userData(for: self))
        xdg_toplevel_set_app_id(toplevel, "kiosk")
        xdg_toplevel_set_title(toplevel, "Kiosk")
        if let mgr = display.decorationManager {
            decoration = zxdg_decoration_manager_v1_get_toplevel_decoration(mgr, toplevel)
            zxdg_toplevel_decoration_v1_add_listener(decoration, Window.decorationListener, nil)
        }
        setIdleInhibited(true)
        // The initial commit carries no buffer: it asks for the first configure.
        wl_surface_commit(surface)
        askForFullscreen()
    }

    /// Sent after the initial commit, in the same flush, so the first configure still carries
    /// them: a compositor that answers them with a configure at once logs an error when the
    /// surface is not yet initialized (cage 0.2.0, wlroots 0.18: Tests/E2E/compositors.md).
    private func askForFullscreen() {
        // Fullscreen needs no decorations; asking for server-side ones stops a compositor
        // from expecting us to draw a title bar if it ever un-fullscreens the window.
        if let decoration {
            zxdg_toplevel_decoration_v1_set_mode(decoration, ZXDG_TOPLEVEL_DECORATION_V1_MODE_SERVER_SIDE.rawValue)
        }
        xdg_toplevel_set_fullscreen(toplevel, nil)
    }

    deinit {
        if let frameCallback { destroyCallback(frameCallback) }
        if let idleInhibitor { zwp_idle_inhibitor_v1_destroy(idleInhibitor) }
        if let decoration { zxdg_toplevel_decoration_v1_destroy(decoration) }
        let t = xdg_toplevel_get_user_data(toplevel), x = xdg_surface_get_user_data(xdgSurface)
        let s = wl_surface_get_user_data(surface)
        xdg_toplevel_destroy(toplevel)
        xdg_surface_destroy(xdgSurface)
        wl_surface_destroy(surface)
        ListenerToken.release(t); ListenerToken.release(x); ListenerToken.release(s)
        chain.destroyAll()
        // Keep the connection open until everything above is destroyed.
        withExtendedLifetime(display) {}
    }

    /// Creates and pre-faults the buffer for the size the first configure will most likely
    /// bring (the output's), while the compositor is still answering. Wrong guesses cost nothing
    /// but memory: a buffer of another size is dropped on first use.
    package func prepareBuffer(logicalSize: Size, scale: Int) {
        let w = Int32((logicalSize.width * Double(scale)).rounded()), h = Int32((logicalSize.height * Double(scale)).rounded())
        // In the panel's orientation, as the frames will be (see `bufferRotation`).
        let turned = Window.bufferRotation(outputTransform: display.expectedOutputTransform).swapsSides
        let px = turned ? PixelSize(width: h, height: w) : PixelSize(width: w, height: h)
        let flip = Quirks.flipsBuffers(output: display.primaryOutput, announced: display.announced)
        guard px.width > 0, px.height > 0, let b = try? chain.acquire(size: px, flipped: flip) else { return }
        b.prefault()
    }

    /// Keeps the compositor from blanking or locking the screen while set.
    package func setIdleInhibited(_ on: Bool) {
        if on, idleInhibitor == nil, let mgr = display.idleInhibitManager {
            idleInhibitor = zwp_idle_inhibit_manager_v1_create_inhibitor(mgr, surface)
            log.debug("idle inhibitor taken: the screen stays on")
        } else if !on, let i = idleInhibitor {
            zwp_idle_inhibitor_v1_destroy(i)
            idleInhibitor = nil
            log.debug("idle inhibitor released: the screen may sleep")
        }
    }
    var isIdleInhibited: Bool { idleInhibitor != nil }

    /// The output this window is on (the first it entered, else the primary).
    private var currentOutput: Output? {
        for p in enteredOutputs { if let o = display.outputs.values.first(where: { $0.proxy == p }) { return o } }
        return display.primaryOutput
    }

    /// Re-derives scale and display info after an output or surface change.
    package func outputsChanged() {
        let entered = display.outputs.values.filter { enteredOutputs.contains($0.proxy) }
        let newScale = Int(entered.map(\.scale).max() ?? currentOutput?.scale ?? 1)
        if newScale != scale {
            log.info("buffer scale \(scale) → \(newScale)")
            scale = max(1, newScale)
        }
        publishInfo()
    }

    private func publishInfo() {
        guard configured else { return }
        let o = currentOutput
        Quirks.flipBuffersWhereScanOutGoesStale(self, output: o, announced: display.announced, log: log)
        let turns = Window.bufferRotation(outputTransform: o?.transform ?? 0)
        if turns != bufferRotation { bufferRotation = turns; lastInfo = nil }
        let fitted = Window.fitting(requestedSize, scale: scale)
        if fitted != size {
            if fitted != requestedSize {
                log.warning("the compositor asked for \(requestedSize) at scale \(scale): using \(fitted), Kiosk's largest buffer (\(Int(Window.maxBufferSide)) pixels a side, \(Int(Window.maxBufferArea / 1e6)) Mpx)")
            }
            size = fitted
        }
        Quirks.turnTouchWherePlacedUnturned(display, surface: size, bufferRotation: bufferRotation, log: log)
        let info = DisplayInfo(size: size, scale: scale, physicalSize: o?.plausiblePhysicalSize, rotation: bufferRotation)
        guard info != lastInfo else { return }
        lastInfo = info
        delegate?.window(self, didChange: info)
        needsRedraw = true
    }

    // MARK: Configure

    private func configure(serial: UInt32) {
        // Ack first: the next commit must come after the ack of the configure it answers.
        xdg_surface_ack_configure(xdgSurface, serial)
        var w = Double(pendingSize?.0 ?? 0), h = Double(pendingSize?.1 ?? 0)
        pendingSize = nil
        if w <= 0 || h <= 0 {
            // 0×0 means "you choose": a kiosk fills the output it is on.
            if let o = currentOutput, !o.logicalSize.isEmpty {
                w = o.logicalSize.width; h = o.logicalSize.height
            } else if requestedSize.isEmpty {
                log.warning("the compositor gave no size and no output mode: using 1280×800")
                w = 1280; h = 800
            } else {
                w = requestedSize.width; h = requestedSize.height
            }
        }
        let newSize = Size(width: w, height: h)
        let first = !configured
        configured = true
        if newSize != requestedSize || first {
            if !first { log.info("configure: \(requestedSize) → \(newSize)") }
            requestedSize = newSize
        }
        outputsChanged()
        // Every configure is answered by a commit, even when nothing changed: the ack alone is
        // not applied until then (wlroots applies fullscreen and size on that commit).
        ackedUncommitted = true
        needsRedraw = true
    }
    /// The size the last configure asked for (0×0 resolved), before `fitting` limits it.
    private var requestedSize = Size.zero

    /// The largest buffer Kiosk allocates: 8192 pixels a side and 8192×4608 in all (151 MB).
    /// xdg-shell makes a fullscreen configure a maximum, so a larger one (16384×16384 would be
    /// 1 GiB a buffer, times the chain) gets the largest size of the same shape within it.
    static let maxBufferSide = 8192.0, maxBufferArea = 8192.0 * 4608
    static func fitting(_ s: Size, scale: Int) -> Size {
        let sc = Double(max(1, scale))
        let w = s.width * sc, h = s.height * sc
        guard w > 0, h > 0 else { return s }
        let sided = min(1, maxBufferSide / w, maxBufferSide / h)
        let f = sided * min(1, (maxBufferArea / (w * h * sided * sided)).squareRoot())
        guard f < 1 else { return s }
        return Size(width: max(1, (w * f).rounded(.down)) / sc, height: max(1, (h * f).rounded(.down)) / sc)
    }

    /// A configure was acked and no commit has carried the ack yet.
    private var ackedUncommitted = false

    // MARK: Rendering

    private var waitingForBuffer = false

    private func bufferReleased() {
        if waitingForBuffer { waitingForBuffer = false; needsRedraw = true }
    }

    /// Draws and commits one frame if one is needed and allowed now: the scene is advanced to
    /// the time of the frame callback that allowed it, else to `time` (now).
    package func renderIfNeeded(time: Double) throws {
        // An acked configure is answered at once, even while a frame callback is outstanding: a
        // compositor that is slow with (or withholds) frame callbacks still gets its commit.
        guard configured, frameCallback == nil || ackedUncommitted, let delegate else { return }
        guard needsRedraw || delegate.windowNeedsFrame(self) else { return }
        let px = bufferPixelSize
        guard px.width > 0, px.height > 0 else { return }
        let flip = flipsBuffers
        let transform = Quirks.bufferTransform(rotation: Window.wlTransform(bufferRotation: bufferRotation), flipped: flip)
        // A new size, scale or transform replaces the whole picture (and the first frame is one).
        let whole = Int32(scale) != committedScale || transform != committedTransform || px != committedSize
        guard let buffer = try chain.acquire(size: px, flipped: flip) else {
            // Every buffer is held by the compositor: draw when one comes back. An ack that
            // changes nothing on screen need not wait for one.
            waitingForBuffer = true
            if ackedUncommitted && !whole { commit(frameCallback: false) }
            return
        }
        needsRedraw = false
        // A callback handled long ago (nothing was drawn for it) says nothing about this frame.
        let due = frameTime.flatMap { time - $0 <= frameClock.slack ? $0 : nil } ?? time
        advancedTo = max(advancedTo, due)
        frameTime = nil
        delegate.window(self, advanceTo: advancedTo)
        let damage = delegate.windowTakeDamage(self)
        let bounds = PixelRect(x: 0, y: 0, width: px.width, height: px.height)
        damage.intersect(bounds)
        if damage.isEmpty && !whole {
            // Nothing visible changed (an animation can be wholly off screen for a moment, or
            // move less than a pixel; a configure can repeat the size): no buffer, but the ack
            // is committed, and while the scene animates the next frame comes from a timer
            // (see `Quirks.invisibleFrameInterval`).
            if ackedUncommitted { commit(frameCallback: false) }
            if delegate.windowNeedsFrame(self) { Quirks.drawAgainAfterAnInvisibleFrame(self) }
            return
        }
        let paint = buffer.damage.repaint(for: damage)
        paint.intersect(bounds)
        let canvas = Canvas(target: buffer.image, scale: scale, shared: true)
        canvas.setClip(paint)
        delegate.window(self, draw: canvas)
        canvas.setClip(nil)

        wl_surface_attach(surface, buffer.proxy, 0, 0)
        // The whole surface is opaque (XRGB, fullscreen): said once per size, so the compositor
        // never paints what lies beneath it (weston 10 otherwise fills its background under
        // every damaged pixel first: a quarter of its repaint time with falling words).
        if whole { declareOpaque() }
        if Int32(scale) != committedScale {
            wl_surface_set_buffer_scale(surface, Int32(scale))
            committedScale = Int32(scale)
        }
        if transform != committedTransform {
            wl_surface_set_buffer_transform(surface, transform)
            committedTransform = transform
        }
        committedSize = px
        let changed = whole ? Region(bounds) : damage
        // A flipped buffer's rows are counted from the bottom.
        for r in Quirks.damageToReport(changed, width: px.width).rects {
            wl_surface_damage_buffer(surface, r.x, flip ? px.height - r.y - r.height : r.y, r.width, r.height)
        }
        requestPresentationFeedback()
        commit()
        chain.didPresent(buffer, damage: changed)
        framesPresented += 1
        if framesPresented == 1 { onFirstFrame?() }
    }

    /// A copy of what the window last committed, turned `r` from the buffer (nil before the
    /// first frame). The committed buffer always holds the whole frame, so this costs one copy
    /// when asked and nothing per frame.
    package func copyOfPresentedFrame(turnedBy r: Rotation) -> Image? {
        guard let b = chain.lastPresented else { return nil }
        return Image.copy(of: b.image, turnedBy: r)
    }

    private func declareOpaque() {
        guard let region = wl_compositor_create_region(display.compositor!) else { return }
        wl_region_add(region, 0, 0, Int32(size.width.rounded(.up)), Int32(size.height.rounded(.up)))
        wl_surface_set_opaque_region(surface, region)
        wl_region_destroy(region)
    }

    /// The buffer's size in pixels: the window's size at its scale, turned with the buffer.
    private var bufferPixelSize: PixelSize {
        DisplayInfo(size: size, scale: scale).pixelSize(turned: bufferRotation)
    }
    /// Size of the buffer committed last (zero before the first).
    private var committedSize = PixelSize(width: 0, height: 0)

    /// Commits what is pending, with a frame callback unless one is still outstanding (or none
    /// is wanted: a commit without damage may never be answered).
    private func commit(frameCallback wanted: Bool = true) {
        if wanted && frameCallback == nil { requestFrameCallback() }
        wl_surface_commit(surface)
        ackedUncommitted = false
    }

    /// A timer in place of a frame callback (`Quirks.drawAgainAfterAnInvisibleFrame`).
    var invisibleFrameTimer: EventLoop.TimerID?

    private func requestFrameCallback() {
        let cb = wl_surface_frame(surface)!
        wl_callback_add_listener(cb, Window.frameListener, ListenerToken.userData(for: self))
        frameCallback = cb
    }
    private func destroyCallback(_ cb: OpaquePointer) {
        let data = wl_callback_get_user_data(cb)
        wl_callback_destroy(cb)
        ListenerToken.release(data)
    }
    private func frameDone(milliseconds: UInt32) {
        if let cb = frameCallback { destroyCallback(cb) }
        frameCallback = nil
        frameTime = frameClock.time(milliseconds: milliseconds, handledAt: MonotonicClock.now())
        if !firstFrameShown {
            // The compositor has repainted with our buffer: the kiosk is on screen and input
            // can find it (weston picks touch targets from the view list of its last repaint).
            firstFrameShown = true
            onFirstFrameShown?()
        }
    }
    private var firstFrameShown = false
    private var frameClock = CompositorClock(slack: CompositorClock.frameSlack)
    /// When the frame the compositor last asked for was due (its callback's time), until a
    /// frame is drawn for it.
    private var frameTime: Double?
    /// The time the scene was last advanced to: never backwards.
    private var advancedTo = 0.0

    // MARK: Presentation feedback

    /// What the compositor did with the frames committed (wp_presentation, where offered), for
    /// one frame in `feedbackEvery`: `followed` asked about, then shown on the output or
    /// replaced before it was shown; `skipped`: due to be followed while the compositor still
    /// owed answers for `feedbackLimit` earlier ones, so not asked about. A frame drawn is not
    /// a frame seen.
    package private(set) var presentation = (followed: 0, presented: 0, discarded: 0, skipped: 0)
    package var offersPresentationFeedback: Bool { display.presentation != nil }
    /// A sample: weston answers a frame's feedback apart from its frame callback, so following
    /// every frame woke the kiosk a third time per frame (docs/measurements.md).
    package static let feedbackEvery = 8
    private var framesUntilFollowed = 0
    /// Feedback objects the compositor has not answered yet.
    private var feedbackPending = 0

    private func requestPresentationFeedback() {
        guard let p = display.presentation else { return }
        framesUntilFollowed -= 1
        guard framesUntilFollowed <= 0 else { return }
        framesUntilFollowed = Window.feedbackEvery
        guard !Quirks.feedbackUnanswered(pending: feedbackPending, skippedSoFar: presentation.skipped, log: log) else {
            presentation.skipped += 1
            return
        }
        guard let fb = wp_presentation_feedback(p, surface) else { return }
        wp_presentation_feedback_add_listener(fb, Window.feedbackListener, ListenerToken.userData(for: self))
        feedbackPending += 1
        presentation.followed += 1
    }
    private static func feedbackDone(_ data: UnsafeMutableRawPointer?, _ fb: OpaquePointer?, presented: Bool) {
        if let w = ListenerToken.owner(data, as: Window.self) {
            if presented { w.presentation.presented += 1 } else { w.presentation.discarded += 1 }
            w.feedbackPending -= 1
        }
        if let fb { wp_presentation_feedback_destroy(fb) }
        ListenerToken.release(data)
    }
    /// Called once, when the first frame callback completes.
    package var onFirstFrameShown: (() -> Void)?

    // MARK: Listeners

    nonisolated(unsafe) private static let frameListener = makeListener(wl_callback_listener(
        done: { data, _, milliseconds in ListenerToken.owner(data, as: Window.self)?.frameDone(milliseconds: milliseconds) }
    ))
    // Built against Debian 12's and 13's libwayland headers alike: events a newer header adds
    // (preferred_buffer_scale and _transform, wl_compositor 6) stay nil; it is bound at 5 at most.
    nonisolated(unsafe) private static let surfaceListener: UnsafeMutablePointer<wl_surface_listener> = {
        var l = wl_surface_listener()
        l.enter = { data, _, output in
            guard let w = ListenerToken.owner(data, as: Window.self), let output else { return }
            w.enteredOutputs.append(output)
            // Logged because it is the moment the compositor shows the surface (tests wait on it).
            let name = w.display.outputs.values.first { $0.proxy == output }?.name ?? ""
            w.log.debug("surface entered output \(name.isEmpty ? "(unnamed)" : name)")
            w.outputsChanged()
        }
        l.leave = { data, _, output in
            guard let w = ListenerToken.owner(data, as: Window.self) else { return }
            w.enteredOutputs.removeAll { $0 == output }
            w.outputsChanged()
        }
        return makeListener(l)
    }()
    nonisolated(unsafe) private static let xdgSurfaceListener = makeListener(xdg_surface_listener(
        configure: { data, _, serial in ListenerToken.owner(data, as: Window.self)?.configure(serial: serial) }
    ))
    nonisolated(unsafe) private static let toplevelListener = makeListener(xdg_toplevel_listener(
        configure: { data, _, w, h, _ in ListenerToken.owner(data, as: Window.self)?.pendingSize = (w, h) },
        close: { data, _ in
            // A kiosk does not close because the compositor asks; the operator stops the service.
            ListenerToken.owner(data, as: Window.self)?.log.info("the compositor asked the window to close: ignored (kiosk)")
        },
        configure_bounds: { _, _, _, _ in },
        wm_capabilities: { _, _, _ in }
    ))
    nonisolated(unsafe) private static let feedbackListener = makeListener(wp_presentation_feedback_listener(
        sync_output: { _, _, _ in },
        presented: { data, fb, _, _, _, _, _, _, _ in Window.feedbackDone(data, fb, presented: true) },
        discarded: { data, fb in Window.feedbackDone(data, fb, presented: false) }
    ))
    nonisolated(unsafe) private static let decorationListener = makeListener(zxdg_toplevel_decoration_v1_listener(
        configure: { _, _, _ in }
    ))
}
