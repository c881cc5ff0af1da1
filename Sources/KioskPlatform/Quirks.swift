#if canImport(Glibc)
import Glibc
#endif
import KioskCore
import KioskRender

/// Workarounds for compositor bugs, kept in one place with the evidence for each (foot's
/// `quirks.c`): each is one function that detects its case from what the compositor told us,
/// says so once in the journal, and acts — called from one line of Window or Seat. A decision
/// that can be checked without a compositor is a pure function beside it (the tests call those).
/// Each can be forced on or off from the environment where noted, and costs nothing where it
/// does not apply. `Tests/E2E/compositors.md` has the longer story.
enum Quirks {
    // MARK: Window

    /// Stores `window`'s buffers bottom row first where the compositor shows a directly
    /// scanned-out buffer stale (`flipsBuffers`), said when it starts.
    static func flipBuffersWhereScanOutGoesStale(_ window: Window, output: Output?, announced: Set<String>, log: Logger) {
        let flip = flipsBuffers(output: output, announced: announced)
        guard flip != window.flipsBuffers else { return }
        window.flipsBuffers = flip
        if flip { log.info("buffers go out flipped: this compositor shows a directly scanned-out buffer stale (see Quirks.flipsBuffers)") }
    }

    /// Turns touch points back with the output where the compositor placed them unturned
    /// (`touchCorrection`), said when it starts.
    static func turnTouchWherePlacedUnturned(_ display: Display, surface: Size, bufferRotation: Rotation, log: Logger) {
        let correction = touchCorrection(announced: display.announced, surface: surface, bufferRotation: bufferRotation)
        guard (correction ?? .identity) != display.touchTransform else { return }
        display.touchTransform = correction ?? .identity
        if correction != nil { log.info("touch is turned with the output: this compositor places it unturned (see Quirks.touchCorrection)") }
    }

    /// A frame that drew nothing visible while the scene animates: the next one comes from a
    /// timer (`invisibleFrameInterval`), not from a frame callback that may never come.
    static func drawAgainAfterAnInvisibleFrame(_ window: Window) {
        guard window.invisibleFrameTimer == nil, let loop = window.display.loop else { return }
        window.invisibleFrameTimer = loop.schedule(after: invisibleFrameInterval) { [weak window] in
            window?.invisibleFrameTimer = nil
        }
    }

    /// Whether to ask for no more presentation feedback: the compositor owes answers for
    /// `feedbackLimit` frames already. Said once.
    ///
    /// Why: sway 1.7 on a headless output answers the first frame's (discarded) and then none:
    /// a feedback object a frame piled up in both processes for as long as the kiosk ran. A
    /// compositor that answers does so within a frame or two (weston: before the next frame).
    static func feedbackUnanswered(pending: Int, skippedSoFar: Int, log: Logger) -> Bool {
        guard pending >= feedbackLimit else { return false }
        if skippedSoFar == 0 {
            log.notice("the compositor has not answered presentation feedback for \(pending) followed frames: not asking for more until it does")
        }
        return true
    }
    static let feedbackLimit = 8

    /// What the compositor is told changed in a buffer `width` pixels wide: `damage` as it is,
    /// up to 256 boxes (more are sent grid-aligned: `Region.coarsened`), or, when it covers
    /// nine twentieths or more of the rows it touches, those rows whole.
    ///
    /// Why whole rows: weston 10 (pixman) copies every pixel it is told of twice, and whole
    /// rows stream through memory where parts of rows restart at each row — it is the broken
    /// rows, not the area, that cost (docs/measurements.md). The buffer holds the whole frame,
    /// so pixels told of beyond the damage are already right.
    static func damageToReport(_ damage: Region, width: Int32) -> Region {
        let rows = damage.wholeRows(width: width)
        if damage.area * 20 >= rows.area * 9 { return rows }
        return damage.coarsened(maxRects: 256)
    }

    // MARK: Seat

    /// Delivers the touch batch at the last finger's `up` (`deliversLastUpWithoutFrame`).
    static func deliverTheLastUpWithoutAFrame(_ seat: Seat, wasLastFinger: Bool) {
        if wasLastFinger && deliversLastUpWithoutFrame { seat.flushTouches() }
    }

    /// Delivers touch points once everything read is handled, for a compositor that has sent
    /// no `wl_touch.frame` yet (`deliversTouchAtEndOfRead`).
    static func deliverTouchAtTheEndOfARead(_ seat: Seat) {
        if deliversTouchAtEndOfRead(framesSeen: seat.touchFramesSeen) { seat.flushTouches() }
    }

    // MARK: The decisions
    /// Whether the window's buffers go out vertically flipped (stored bottom row first, marked
    /// with a flipped `wl_surface.set_buffer_transform`) so the compositor never scans them out
    /// directly.
    ///
    /// Why: cage 0.1.4 (Debian 12, wlroots 0.15) hands a fullscreen client's buffer straight to
    /// the output whenever its scale and transform match the output's (cage v0.1.4 output.c:192
    /// `scan_out_primary_view`; the surface count meant to stop it is dead code, `n++` at :188
    /// bumps the pointer). Only wlroots's headless backend takes a wl_shm buffer there (its
    /// `output_commit` accepts any buffer; DRM, Wayland and X11 outputs need a dma-buf or shm
    /// attributes that a wlr_client_buffer does not give, so on a real panel the attempt fails
    /// and cage renders normally). While scanned out, wlr_output_damage adds the client's damage
    /// to the slot of the buffer rendered last (wlroots 0.15.1 types/wlr_output_damage.c:76), which
    /// that same age-1 buffer then never repaints (:168). As soon as cage renders again — every
    /// screencopy frame locks scan-out (types/wlr_screencopy_v1.c:446), so every grim or wayvnc
    /// capture — it shows a stale swapchain buffer: black, or only the last damage. Cage checks
    /// the transform before it tries (output.c:231), so a buffer whose transform differs from
    /// the output's is always composited, correctly. A vertical flip costs Kiosk nothing (the
    /// buffer's pixman image runs bottom-up with a negative stride) and the compositor ~0.7 ns
    /// a pixel it repaints. sway 1.7 repaints everything when it stops scanning out, so only a
    /// compositor without a layer shell (cage) on wlroots's headless output gets the flip. On a
    /// DRM panel (virtio-gpu, `make vm`) cage 0.1.4 showed every frame right with plain buffers.
    /// wlroots 0.18's headless output (cage 0.2.0) says make and model "Unknown" and needs no
    /// flip: its captures equal `kiosk snapshot` with plain buffers.
    ///
    /// `KIOSK_FLIP_BUFFERS=1` or `=0` forces it either way.
    static func flipsBuffers(output: Output?, announced: Set<String>) -> Bool {
        if let forced = environmentFlag("KIOSK_FLIP_BUFFERS") { return forced }
        guard let output else { return false }
        let wlrootsHeadless = output.make == "headless" && output.model == "headless"
        return wlrootsHeadless && !announced.contains("zwlr_layer_shell_v1")
    }

    /// The wl_output transform for a buffer turned `rotation` (a wl_output transform, 0...3) and
    /// then, when `flipped`, mirrored top to bottom in memory. Surface point (x, y) of a W×H
    /// surface lands in the buffer at: 0 → (x, y), 90 → (y, W−x), 180 → (W−x, H−y),
    /// 270 → (H−y, x); mirroring the buffer's rows turns these into (x, H−y) = FLIPPED_180,
    /// (y, x) = FLIPPED_90, (W−x, y) = FLIPPED and (H−y, W−x) = FLIPPED_270.
    static func bufferTransform(rotation: Int32, flipped: Bool) -> Int32 {
        guard flipped else { return rotation }
        return [6, 5, 4, 7][Int(rotation & 3)]
    }

    /// The output's physical size when it is believable, else nil (and layout assumes 96 dpi).
    ///
    /// Outputs lie: weston's headless backend reports its pixel size as millimetres, projectors and
    /// some EDIDs give 0, or only an aspect ratio (16×9 or 160×90 mm). Sizing touch targets from such
    /// a value would make them unusably small or huge, so only sizes between 20 and 1000 dpi that
    /// are not the pixel mode itself are trusted.
    static func plausiblePhysicalSize(mm: Size, mode: PixelSize) -> Size? {
        guard mm.width >= 20, mm.height >= 20, mode.width > 0, mode.height > 0 else { return nil }
        if Int(mm.width) == Int(mode.width) && Int(mm.height) == Int(mode.height) { return nil }
        // Compare the long sides: the physical size is in the panel's native orientation.
        let dpi = Double(max(mode.width, mode.height)) / (max(mm.width, mm.height) / 25.4)
        guard (20...1000).contains(dpi) else { return nil }
        return mm
    }

    /// Whether a touch batch is delivered at the last finger's `up` instead of at the `frame`
    /// that should follow it.
    ///
    /// Why: weston 10's default touch grab drops the touch focus after the last `up` and never
    /// sends that `wl_touch.frame` (libweston/input.c), so a kiosk waiting for it would leave the
    /// last finger pressed until the next touch. Compositors that do send the frame find
    /// nothing pending when it comes: delivering early costs them nothing.
    static let deliversLastUpWithoutFrame = true

    /// How long the window waits before drawing again when the scene animates but nothing
    /// visible changed (no damage, so nothing to commit).
    ///
    /// Why: a commit without damage may never be answered with a frame callback. wlroots 0.15
    /// compositors (cage 0.1.4, sway 1.7) send frame callbacks when the output repaints, and an
    /// output repaints only for damage: the lander's ship falling less than a pixel a frame at
    /// the start of a flight froze the scene under Debian's cage (`make vm`: no thrust, no fall,
    /// until a touch drew something). weston answers such a commit; waiting one refresh on a
    /// timer instead is right under all of them and costs nothing where nothing is drawn.
    static let invisibleFrameInterval = 1.0 / 60

    /// Whether touch points are delivered once the events read from the socket are all handled,
    /// instead of at a `wl_touch.frame`: for a compositor that has sent no frame yet.
    ///
    /// Why: cage 0.1.4 and 0.1.5 (Debian 12 ships 0.1.4) send `wl_touch` down, motion and up but
    /// never `frame` (seat.c has no touch-frame handler until cage commit 7ec7e3d, in 0.2.0), so a
    /// kiosk waiting for frames saw a finger only when it lifted: no marker under a held finger,
    /// no thrust while the lander's button was held. A compositor flushes the events of one
    /// input frame together, so they are read together: once one `frame` has come, frames are
    /// trusted and nothing is delivered early.
    static func deliversTouchAtEndOfRead(framesSeen: Bool) -> Bool { !framesSeen }

    /// The correction for touch points a compositor placed as if its output were not turned, or
    /// nil where touch needs none.
    ///
    /// Why: wlroots 0.15 and 0.18 map a touchscreen's normalized point onto the output's box in
    /// the layout without the output's transform (types/wlr_cursor.c,
    /// `wlr_cursor_absolute_to_layout_coords`), and cage 0.1.4 and 0.2.0 deliver touch at that
    /// point (cage issue #243): under `cage -r`, or cage 0.2.0 turned by `wlr-randr --transform`,
    /// a finger acts a quarter turn away from where it touched (both seen in `make vm`). A
    /// touchscreen reports in the panel's own frame, and Kiosk's buffer is drawn in that frame
    /// too: the compositor's point, scaled back to the panel's frame and turned back through the
    /// buffer's turn, is where the finger is. Decided from globals only wlroots offers; weston
    /// turns touch itself. `KIOSK_TOUCH_UNTURNED=1` or `=0` forces it either way.
    static func touchCorrection(announced: Set<String>, surface: Size, bufferRotation r: Rotation) -> AffineTransform? {
        let wlroots = announced.contains("zwlr_export_dmabuf_manager_v1") || announced.contains("zwlr_gamma_control_manager_v1")
        guard environmentFlag("KIOSK_TOUCH_UNTURNED") ?? wlroots, r != .upright,
              surface.width > 0, surface.height > 0 else { return nil }
        let (bw, bh) = r.swapsSides ? (surface.height, surface.width) : (surface.width, surface.height)
        let toBuffer = AffineTransform(scaleX: bw / surface.width, y: bh / surface.height)
        return AffineTransform.turning(r, into: bw, bh).inverted.map { toBuffer.concatenating($0) }
    }

    /// "1"/"on"/"true" → true, "0"/"off"/"false" → false, unset or anything else → nil (automatic).
    private static func environmentFlag(_ name: String) -> Bool? {
        guard let raw = getenv(name) else { return nil }
        switch String(cString: raw).lowercased() {
        case "1", "on", "true", "yes": return true
        case "0", "off", "false", "no": return false
        default: return nil
        }
    }
}
