import KioskCore
import KioskRender

/// Collects the logical rectangles that changed since the last frame.
public final class Invalidation {
    public private(set) var rects: [Rect] = []
    public private(set) var everything = false
    public init() {}
    public func add(_ rect: Rect) { if !everything && !rect.isEmpty { rects.append(rect) } }
    public func addAll() { everything = true; rects.removeAll() }
    /// Something changed whose damage is computed at frame time (a dirty view).
    public func notePending() { pending = true }
    private var pending = false
    public var isEmpty: Bool { !everything && rects.isEmpty && !pending }

    /// More rectangles than this and the damage is simplified to its bounding box: every
    /// drawing call walks the clip's rectangles, so a fragmented clip costs more than the
    /// extra pixels (measured with `kiosk bench --scene labels`).
    public static let defaultMaximumRects = 48
    /// A scene whose drawing walks the damage once (not once per item) may allow more.
    public var maximumRects = Invalidation.defaultMaximumRects

    /// The damage as a pixel region at `scale`, then empties itself.
    public func take(scale: Int, bounds: PixelRect) -> Region {
        defer { rects.removeAll(keepingCapacity: true); everything = false; pending = false }
        if everything { return Region(bounds) }
        let r = Region(rects: rects.map { $0.pixelBounds(scale: scale) })
        r.intersect(bounds)
        if r.rectCount > maximumRects { return Region(r.extents) }
        return r
    }
}

/// A full-screen scene: it lays itself out for a display, takes input, advances with time,
/// records what it changed in `invalidation` and draws any part of itself on request.
public protocol Scene: AnyObject {
    var name: String { get }
    var invalidation: Invalidation { get }
    /// A new size, scale or panel: relayout, keep state, and invalidate what moved.
    func layout(_ info: DisplayInfo)
    /// Input, timed by when it happened (`TouchBatch.time`, `KeyEvent.time`).
    func handle(_ batch: TouchBatch)
    func handle(_ key: KeyEvent)
    /// Moves time-based state (animations, fades, physics) to `time`.
    func advance(to time: Double)
    /// Whether the next frame has anything to show: its window's answer (`RootView.needsFrame`).
    var needsFrame: Bool { get }
    /// Draws the scene; the canvas is clipped to what needs repainting.
    func draw(in canvas: Canvas)
    /// Does the first frame's expensive preparation now (text shaping, layers), so that it can
    /// run on a helper thread while the window is being set up.
    func prepareContent()
    /// Hands what should survive a restart to the saved-state store (called at shutdown).
    func saveState()
    /// Shown and running (true) or paused behind another scene or the screensaver (false):
    /// physics and timers stop while paused and resume where they were.
    func setActive(_ active: Bool)
    /// Back to the state a new visitor should find (a new game, nothing selected, nothing
    /// counted), keeping the layout and settings; what it saves from now on is that state.
    func reset()
    /// Whether the scene wants the large high-contrast mode now: its stage then lays it out at
    /// half the points, twice the scale, and draws it in high contrast (`DisplayInfo.isLarge`).
    var prefersLargeDisplay: Bool { get }
}

extension Scene {
    public func prepareContent() {}
    public func saveState() {}
    public func setActive(_ active: Bool) {}
    public func reset() {}
    public var prefersLargeDisplay: Bool { false }
}
