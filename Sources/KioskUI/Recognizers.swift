#if canImport(Glibc)
import Glibc
#endif
import KioskCore

/// Taps: `numberOfTapsRequired` taps of `numberOfTouchesRequired` fingers, each finger moving at
/// most `allowableMovement`, each tap shorter than `maximumTapDuration`, the next one starting
/// within `maximumTapInterval` near the first.
public final class TapGestureRecognizer: GestureRecognizer, PlainGestureRecognizer {
    public var numberOfTapsRequired = 1
    public var numberOfTouchesRequired = 1
    public var allowableMovement: Length = .points(10)
    public var maximumTapDuration = 0.75
    public var maximumTapInterval = 0.3
    /// How far a later tap may land from the first.
    public var maximumTapDistance: Length = .millimetres(8)

    private var tapsSoFar = 0
    private var fingersThisTap = 0
    private var tapStart = 0.0
    private var lastTapEnd = 0.0
    private var firstTapLocation: Point?
    private var timer: ScheduledTimer?

    public override var isAwaitingTouches: Bool { tapsSoFar > 0 && state == .possible }

    public override func touchesBegan(_ touches: Set<Touch>) {
        timer?.cancel()
        if trackedTouches.count == touches.count { // first finger(s) of a new tap
            // Judged by the touches' own times too: their timers may not have run yet.
            if tapsSoFar > 0 && now - lastTapEnd > maximumTapInterval { return setState(.failed) }
            fingersThisTap = 0
            tapStart = now
            if let first = firstTapLocation, let t = touches.first,
               t.location.distance(to: first) > points(maximumTapDistance) { return setState(.failed) }
        }
        fingersThisTap = max(fingersThisTap, trackedTouches.count)
        if fingersThisTap > numberOfTouchesRequired { return setState(.failed) }
        // A tap held too long is a press, not a tap.
        timer = schedule(at: tapStart + maximumTapDuration) { [weak self] in self?.setState(.failed) }
    }

    public override func touchesMoved(_ touches: Set<Touch>) {
        let limit = points(allowableMovement)
        if touches.contains(where: { $0.location.distance(to: $0.startLocation) > limit }) { setState(.failed) }
    }

    public override func touchesEnded(_ touches: Set<Touch>) {
        guard trackedTouches.count == touches.count else { return } // fingers still down
        timer?.cancel()
        guard fingersThisTap == numberOfTouchesRequired, now - tapStart <= maximumTapDuration else { return setState(.failed) }
        tapsSoFar += 1
        lastTapEnd = now
        if firstTapLocation == nil { firstTapLocation = touches.first?.startLocation }
        if tapsSoFar >= numberOfTapsRequired {
            setState(.recognized)
        } else {
            timer = schedule(at: lastTapEnd + maximumTapInterval) { [weak self] in self?.setState(.failed) }
        }
    }

    public override func reset() {
        timer?.cancel()
        timer = nil
        tapsSoFar = 0
        fingersThisTap = 0
        firstTapLocation = nil
    }
}

/// A finger held still for `minimumPressDuration`: begins then, changes as it moves, ends on lift.
public final class LongPressGestureRecognizer: GestureRecognizer, PlainGestureRecognizer {
    public var minimumPressDuration = 0.5
    public var allowableMovement: Length = .points(10)
    public var numberOfTouchesRequired = 1
    private var timer: ScheduledTimer?
    /// When the last required finger went down (nil: not all of them yet).
    private var pressStart: Double?

    public override func touchesBegan(_ touches: Set<Touch>) {
        guard state == .possible else { return }
        if trackedTouches.count > numberOfTouchesRequired { return setState(.failed) }
        timer?.cancel()
        if trackedTouches.count == numberOfTouchesRequired {
            pressStart = now
            timer = schedule(at: now + minimumPressDuration) { [weak self] in
                guard let self, self.state == .possible else { return }
                self.setState(.began)
            }
        }
    }
    /// Held long enough by the touches' own times, though the timer has not run yet (input
    /// handled late): the press begins now.
    private func beginIfHeldLongEnough() {
        if state == .possible, let s = pressStart, now - s >= minimumPressDuration { setState(.began) }
    }
    public override func touchesMoved(_ touches: Set<Touch>) {
        beginIfHeldLongEnough()
        if state == .possible {
            let limit = points(allowableMovement)
            if touches.contains(where: { $0.location.distance(to: $0.startLocation) > limit }) { setState(.failed) }
        } else if state.isActive {
            setState(.changed)
        }
    }
    public override func touchesEnded(_ touches: Set<Touch>) {
        beginIfHeldLongEnough()
        if state.isActive { setState(.ended) } else { setState(.failed) }
    }
    public override func reset() {
        timer?.cancel()
        timer = nil
        pressStart = nil
    }
}

/// Dragging: begins once the touches' centroid moves past `minimumDistance` (slop).
public final class PanGestureRecognizer: GestureRecognizer, PlainGestureRecognizer {
    public var minimumDistance: Length = .points(10)
    public var minimumNumberOfTouches = 1
    public var maximumNumberOfTouches = Int.max
    private var origin = Point.zero
    private var offset = Point.zero
    private var samples: [(time: Double, p: Point)] = []

    /// Movement since the gesture's first touch went down (or since the last `setTranslation`).
    public func translation(in view: View?) -> Point {
        let c = centroid
        let d = Point(x: c.x - origin.x + offset.x, y: c.y - origin.y + offset.y)
        guard let view else { return d }
        let a = view.convert(Point.zero, from: nil), b = view.convert(d, from: nil)
        return b - a
    }
    public func setTranslation(_ t: Point, in view: View?) {
        origin = centroid
        offset = t
    }
    /// Points per second over the last ~100 ms.
    public func velocity(in view: View?) -> Point {
        guard let first = samples.first, let last = samples.last, last.time > first.time else { return .zero }
        let dt = last.time - first.time
        return Point(x: (last.p.x - first.p.x) / dt, y: (last.p.y - first.p.y) / dt)
    }
    private var centroid: Point {
        guard !trackedTouches.isEmpty else { return lastCentroid }
        let n = Double(trackedTouches.count)
        return Point(x: trackedTouches.map(\.location.x).reduce(0, +) / n, y: trackedTouches.map(\.location.y).reduce(0, +) / n)
    }
    private func sample() {
        samples.append((now, centroid))
        samples.removeAll { now - $0.time > 0.1 }
    }

    public override func touchesBegan(_ touches: Set<Touch>) {
        if trackedTouches.count > maximumNumberOfTouches { return state == .possible ? setState(.failed) : () }
        if state == .possible && trackedTouches.count == touches.count { origin = centroid; offset = .zero }
        else if state.isActive {
            // A finger joining keeps the translation continuous.
            let t = translation(in: nil); origin = centroid; offset = t
        }
        sample()
    }
    public override func touchesMoved(_ touches: Set<Touch>) {
        sample()
        if state == .possible {
            guard trackedTouches.count >= minimumNumberOfTouches else { return }
            let t = translation(in: nil)
            if (t.x * t.x + t.y * t.y).squareRoot() >= points(minimumDistance) { setState(.began) }
        } else if state.isActive {
            setState(.changed)
        }
    }
    public override func touchesEnded(_ touches: Set<Touch>) {
        let remaining = trackedTouches.count - touches.count
        if remaining == 0 {
            lastCentroid = centroid
            if state.isActive { setState(.ended) } else { setState(.failed) }
        } else if state.isActive {
            let t = translation(in: nil)
            let left = trackedTouches.filter { !touches.contains($0) }
            let n = Double(left.count)
            origin = Point(x: left.map(\.location.x).reduce(0, +) / n, y: left.map(\.location.y).reduce(0, +) / n)
            offset = t
        }
    }
    public override func reset() { samples.removeAll(); offset = .zero }
}

/// A finger that comes in from one edge of the screen (UIKit's UIScreenEdgePanGestureRecognizer):
/// it must touch down within `edgeWidth` of `edge` and travel `minimumTravel` inwards, mostly
/// across the edge (sideways less than half as far); it then begins, changes as it moves and
/// ends on lift. Touches that start elsewhere are not its own.
public final class ScreenEdgePanGestureRecognizer: GestureRecognizer {
    public enum Edge: Sendable { case left, right }
    public let edge: Edge
    public var edgeWidth: Length = .millimetres(6)
    public var minimumTravel: Length = .millimetres(30)

    public init(edge: Edge, action: ((ScreenEdgePanGestureRecognizer) -> Void)? = nil) {
        self.edge = edge
        super.init()
        shouldReceive = { [unowned self] t in self.startsAtEdge(t) }
        if let action { addTarget(action) }
    }

    private func startsAtEdge(_ t: Touch) -> Bool {
        guard let root = t.root else { return false }
        let x = t.location(in: nil).x, zone = edgeWidth.points(perMillimetre: root.info.pointsPerMillimetre), width = root.bounds.width
        return edge == .left ? x <= zone : x >= width - zone
    }

    /// How far the first finger has come in from where it touched down (negative: outwards).
    public var travel: Double {
        guard let t = trackedTouches.first else { return 0 }
        let dx = t.location.x - t.startLocation.x
        return edge == .left ? dx : -dx
    }

    public override func touchesMoved(_ touches: Set<Touch>) {
        guard let t = trackedTouches.first else { return }
        if state == .possible {
            let dx = t.location.x - t.startLocation.x, dy = t.location.y - t.startLocation.y
            if abs(dx) >= points(minimumTravel) && abs(dy) < abs(dx) / 2 { setState(.began) }
        } else if state.isActive {
            setState(.changed)
        }
    }
    public override func touchesEnded(_ touches: Set<Touch>) {
        guard trackedTouches.count == touches.count else { return }
        if state.isActive { setState(.ended) } else { setState(.failed) }
    }
}

/// A quick straight stroke in one of `direction`.
public final class SwipeGestureRecognizer: GestureRecognizer, PlainGestureRecognizer {
    public struct Direction: OptionSet, Sendable {
        public let rawValue: Int
        public init(rawValue: Int) { self.rawValue = rawValue }
        public static let right = Direction(rawValue: 1), left = Direction(rawValue: 2)
        public static let up = Direction(rawValue: 4), down = Direction(rawValue: 8)
        /// "left", "right", "up", "down" (several joined by "+").
        public var words: String {
            [(Direction.left, "left"), (.right, "right"), (.up, "up"), (.down, "down")]
                .filter { contains($0.0) }.map(\.1).joined(separator: "+")
        }
    }
    public var direction: Direction = .right
    public var numberOfTouchesRequired = 1
    public var minimumDistance: Length = .millimetres(12)
    /// Points per second along the stroke.
    public var minimumVelocity = 300.0
    public var maximumDuration = 0.6
    /// The direction that was recognized.
    public private(set) var recognizedDirection: Direction = []

    public override func touchesBegan(_ touches: Set<Touch>) {
        if trackedTouches.count > numberOfTouchesRequired { setState(.failed) }
    }
    public override func touchesMoved(_ touches: Set<Touch>) { evaluate(final: false) }
    public override func touchesEnded(_ touches: Set<Touch>) {
        if state == .possible { evaluate(final: true) }
        if state == .possible { setState(.failed) }
    }
    private func evaluate(final: Bool) {
        guard state == .possible, let t = trackedTouches.first else { return }
        let dt = max(1e-3, now - t.startTime)
        if dt > maximumDuration { return setState(.failed) }
        let dx = t.location.x - t.startLocation.x, dy = t.location.y - t.startLocation.y
        let horizontal = abs(dx) >= abs(dy)
        let along = horizontal ? abs(dx) : abs(dy), across = horizontal ? abs(dy) : abs(dx)
        // A stroke that wanders off its axis is not a swipe.
        if along > points(.millimetres(4)) && across > along * 0.6 { return setState(.failed) }
        let dir: Direction = horizontal ? (dx > 0 ? .right : .left) : (dy > 0 ? .down : .up)
        if along >= points(minimumDistance) {
            guard direction.contains(dir) else { return setState(.failed) }
            if along / dt >= minimumVelocity && trackedTouches.count == numberOfTouchesRequired {
                recognizedDirection = dir
                setState(.recognized)
            } else if final {
                setState(.failed)
            }
        }
    }
    public override func reset() { recognizedDirection = [] }
}

/// Two fingers moving apart or together: `scale` is their distance over the starting distance.
public final class PinchGestureRecognizer: GestureRecognizer, PlainGestureRecognizer {
    public private(set) var scale = 1.0
    public var minimumDistanceChange: Length = .points(8)
    private var startDistance = 0.0
    private var lastSample: (time: Double, scale: Double)?
    public private(set) var velocity = 0.0

    private var distance: Double {
        guard trackedTouches.count >= 2 else { return startDistance }
        return trackedTouches[0].location.distance(to: trackedTouches[1].location)
    }
    public override func touchesBegan(_ touches: Set<Touch>) {
        if trackedTouches.count == 2 && state == .possible { startDistance = max(1, distance) }
    }
    public override func touchesMoved(_ touches: Set<Touch>) {
        guard trackedTouches.count >= 2 else { return }
        let s = distance / startDistance
        if let l = lastSample, now > l.time { velocity = (s - l.scale) / (now - l.time) }
        lastSample = (now, s)
        scale = s
        if state == .possible {
            if abs(distance - startDistance) >= points(minimumDistanceChange) { setState(.began) }
        } else if state.isActive {
            setState(.changed)
        }
    }
    public override func touchesEnded(_ touches: Set<Touch>) {
        if trackedTouches.count - touches.count < 2 {
            if state.isActive { setState(.ended) } else if trackedTouches.count == touches.count { setState(.failed) }
        }
    }
    public override var isAwaitingTouches: Bool { false }
    public override func reset() { scale = 1; velocity = 0; lastSample = nil }
    /// Restarts the scale at `value` from the current finger distance.
    public func setScale(_ value: Double) {
        startDistance = max(1, distance / max(value, 1e-6))
        scale = value
    }
}

/// Two fingers turning: `rotation` in radians, clockwise positive (screen coordinates).
public final class RotationGestureRecognizer: GestureRecognizer, PlainGestureRecognizer {
    public private(set) var rotation = 0.0
    public var minimumRotation = 0.08
    private var startAngle = 0.0
    private var accumulated = 0.0
    private var lastAngle = 0.0

    private var angle: Double {
        guard trackedTouches.count >= 2 else { return lastAngle }
        let a = trackedTouches[0].location, b = trackedTouches[1].location
        return atan2(b.y - a.y, b.x - a.x)
    }
    public override func touchesBegan(_ touches: Set<Touch>) {
        if trackedTouches.count == 2 && state == .possible { startAngle = angle; lastAngle = startAngle; accumulated = 0 }
    }
    public override func touchesMoved(_ touches: Set<Touch>) {
        guard trackedTouches.count >= 2 else { return }
        var d = angle - lastAngle
        // Unwrap across ±π so a full turn accumulates.
        if d > .pi { d -= 2 * .pi } else if d < -.pi { d += 2 * .pi }
        accumulated += d
        lastAngle = angle
        rotation = accumulated
        if state == .possible {
            if abs(accumulated) >= minimumRotation { setState(.began) }
        } else if state.isActive {
            setState(.changed)
        }
    }
    public override func touchesEnded(_ touches: Set<Touch>) {
        if trackedTouches.count - touches.count < 2 {
            if state.isActive { setState(.ended) } else if trackedTouches.count == touches.count { setState(.failed) }
        }
    }
    public override func reset() { rotation = 0; accumulated = 0 }
    public func setRotation(_ value: Double) { accumulated = value; rotation = value; lastAngle = angle }
}
