import KioskCore

/// One finger (or the mouse's button) from touch-down to lift, as UIKit's UITouch: the same
/// object for the whole sequence, bound to the view it began in.
public final class Touch: Hashable {
    public enum Phase: Equatable, Sendable { case began, moved, ended, cancelled }

    /// The platform's id for this sequence (ids are reused after a lift; the object is not).
    public let id: Int32
    public internal(set) var phase: Phase
    /// Seconds on the scene clock of the latest change.
    public internal(set) var timestamp: Double
    /// 1 for a single tap; counts up for taps in quick succession at the same place.
    public let tapCount: Int
    /// The view the touch began in (it stays there while the finger moves).
    public internal(set) weak var view: View?
    public internal(set) weak var root: RootView?
    /// Recognizers that see this touch: those of its view and the view's ancestors at touch-down.
    public internal(set) var gestureRecognizers: [GestureRecognizer] = []
    /// Root coordinates.
    var location: Point
    var previousLocation: Point
    let startLocation: Point
    let startTime: Double
    /// Set when a recognizer took the touch: its view has been sent touchesCancelled.
    var deliveryCancelled = false
    /// The scene view whose observer hears this touch, and whether it has let go of it.
    weak var observer: SceneView?
    var observerDropped = false

    init(id: Int32, location: Point, time: Double, tapCount: Int, view: View?, root: RootView) {
        self.id = id
        phase = .began
        timestamp = time
        self.tapCount = tapCount
        self.view = view
        self.root = root
        self.location = location
        previousLocation = location
        startLocation = location
        startTime = time
    }

    /// Where the touch is, in `view`'s coordinates (root coordinates for nil).
    public func location(in view: View?) -> Point {
        guard let view else { return location }
        return view.convert(location, from: nil)
    }
    public func previousLocation(in view: View?) -> Point {
        guard let view else { return previousLocation }
        return view.convert(previousLocation, from: nil)
    }

    public static func == (a: Touch, b: Touch) -> Bool { a === b }
    public func hash(into h: inout Hasher) { h.combine(ObjectIdentifier(self)) }
}

/// The batch a touch callback belongs to: every touch currently down, and the time.
public struct TouchEvent {
    public let timestamp: Double
    public let allTouches: Set<Touch>
    /// The touches of `allTouches` that are in `view`.
    public func touches(for view: View) -> Set<Touch> { allTouches.filter { $0.view === view } }
}

/// Counts taps: a touch-down within `interval` seconds and `radius` points of the previous
/// tap's lift continues the count.
struct TapCounter {
    var interval = 0.3
    var radius = 10.0
    private var last: (location: Point, time: Double, count: Int)?

    mutating func countForDown(at p: Point, time: Double) -> Int {
        if let l = last, time - l.time <= interval, l.location.distance(to: p) <= radius { return l.count + 1 }
        return 1
    }
    mutating func recordTap(at p: Point, time: Double, count: Int) { last = (p, time, count) }
}
