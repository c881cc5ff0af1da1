#if canImport(Glibc)
import Glibc
#endif
import KioskCore

/// A length given in points or in millimetres on the real panel (converted with the root's
/// display info; 96 dpi when the panel's size is unknown).
public enum Length: Equatable, Sendable {
    case points(Double)
    case millimetres(Double)
    public func points(perMillimetre ppmm: Double) -> Double {
        switch self {
        case .points(let p): return p
        case .millimetres(let mm): return mm * ppmm
        }
    }
}

/// UIKit's gesture recognizer: sees the touches of its view (and the view's subviews) before
/// the view does, and moves through possible → began → changed → ended/cancelled (continuous)
/// or possible → recognized/failed (discrete). `require(toFail:)` makes it wait for another
/// recognizer to fail; once it recognizes, the others sharing its touches fail, and with
/// `cancelsTouchesInView` its touches' views get `touchesCancelled`.
open class GestureRecognizer {
    public enum State: Equatable, Sendable {
        case possible, began, changed, ended, cancelled, failed
        /// Discrete recognizers end in `recognized` (the same value as `ended`, as in UIKit).
        public static let recognized = State.ended
        var isTerminal: Bool { self == .ended || self == .cancelled || self == .failed }
        var isActive: Bool { self == .began || self == .changed }
    }

    public internal(set) var state: State = .possible
    public internal(set) weak var view: View?
    public var isEnabled = true
    public var cancelsTouchesInView = true
    /// Return true for recognizers allowed to recognize together with this one (pinch + rotate).
    public var recognizesSimultaneously: (GestureRecognizer) -> Bool = { _ in false }
    /// What the gesture is called in diagnostics (`GestureRecognizer.onRecognized`).
    public var name = ""
    /// Told whenever any named recognizer begins or recognizes: the live kiosk logs it at
    /// debug level, so a gesture performed on a panel can be checked from its journal.
    nonisolated(unsafe) public static var onRecognized: ((GestureRecognizer, State) -> Void)?
    /// Whether this recognizer is to see `touch` at all, asked once at touch-down (UIKit's
    /// delegate `gestureRecognizer(_:shouldReceive:)`): a touch refused is not tracked and
    /// cannot make the recognizer fail.
    public var shouldReceive: ((Touch) -> Bool)?

    /// Each receives the recognizer as its own type (`GestureActions.addTarget`).
    private var actions: [() -> Void] = []
    var failureRequirements: [GestureRecognizer] = []
    /// A recognition waiting for `failureRequirements` to fail.
    var pendingState: State?
    /// Touches this recognizer is tracking (down and not lifted).
    public internal(set) var trackedTouches: [Touch] = []
    weak var root: RootView?

    public init() {}

    func addAction(_ action: @escaping () -> Void) { actions.append(action) }

    /// This recognizer recognizes only after `other` has failed.
    public func require(toFail other: GestureRecognizer) {
        if !failureRequirements.contains(where: { $0 === other }) { failureRequirements.append(other) }
    }

    public var numberOfTouches: Int { trackedTouches.count }

    /// The centroid of the tracked touches in `view`'s coordinates.
    public func location(in view: View?) -> Point {
        let pts = trackedTouches.isEmpty ? [lastCentroid] : trackedTouches.map { $0.location }
        let c = Point(x: pts.map(\.x).reduce(0, +) / Double(pts.count), y: pts.map(\.y).reduce(0, +) / Double(pts.count))
        guard let view else { return c }
        return view.convert(c, from: nil)
    }
    var lastCentroid = Point.zero

    /// Converts a threshold to points on this recognizer's screen.
    public func points(_ length: Length) -> Double {
        length.points(perMillimetre: (root ?? view?.root)?.info.pointsPerMillimetre ?? DisplayInfo.fallbackPointsPerMillimetre)
    }
    /// The time of the touches being delivered; between deliveries (a timer), the clock's.
    var now: Double { root.map { $0.eventTime ?? $0.scheduler.now } ?? 0 }
    /// A timer for `time` on the touches' clock: input handled late leaves it less to wait.
    func schedule(at time: Double, _ action: @escaping () -> Void) -> ScheduledTimer? {
        guard let s = root?.scheduler else { return nil }
        return s.schedule(after: max(0, time - s.now), action)
    }

    // MARK: Subclass hooks (touches in root coordinates via `Touch.location(in:)`)

    open func touchesBegan(_ touches: Set<Touch>) {}
    open func touchesMoved(_ touches: Set<Touch>) {}
    open func touchesEnded(_ touches: Set<Touch>) {}
    open func touchesCancelled(_ touches: Set<Touch>) {
        if state.isActive { setState(.cancelled) } else if state == .possible { setState(.failed) }
    }
    /// Back to `possible` after a gesture; subclasses clear their own state.
    open func reset() {}
    /// True while a recognizer with no touches down still expects more (a tap waiting for the
    /// next tap); otherwise it fails when its last touch lifts without recognizing.
    open var isAwaitingTouches: Bool { false }

    /// Moves the state machine; the root arbitrates (requirements, exclusivity, cancelling).
    public func setState(_ new: State) {
        if let root { root.arena.transition(self, to: new) } else { apply(new) }
    }

    func apply(_ new: State) {
        state = new
        pendingState = nil
        if new != .failed && new != .possible { for a in actions { a() } }
        // With the state it reached: its action may already have moved it on (cancelled).
        if new == .began || new == .recognized, !name.isEmpty { Self.onRecognized?(self, new) }
    }

    func resetToPossible() {
        state = .possible
        pendingState = nil
        trackedTouches.removeAll()
        reset()
    }
}

/// Rules between recognizers: failure requirements, exclusivity, cancelling view delivery.
final class GestureArena {
    /// Recognizers with touches or pending decisions.
    private(set) var participants: [GestureRecognizer] = []
    weak var root: RootView?

    func join(_ r: GestureRecognizer) {
        if !participants.contains(where: { $0 === r }) { participants.append(r) }
        r.root = root
    }

    func transition(_ r: GestureRecognizer, to new: GestureRecognizer.State) {
        if (new == .began || new == .ended) && r.state == .possible {
            if r.failureRequirements.contains(where: { $0.state.isActive || $0.state == .ended }) {
                fail(r) // something it had to wait for has recognized
            } else if r.failureRequirements.contains(where: { $0.state != .failed }) {
                r.pendingState = new // wait for them to fail
            } else {
                recognize(r, new)
            }
        } else {
            switch new {
            case .changed: if r.state.isActive { r.apply(.changed) }
            case .ended: if r.state.isActive { r.apply(.ended) }
            case .cancelled: if r.state.isActive { r.apply(.cancelled) } else if r.state == .possible { fail(r) }
            case .failed: fail(r)
            case .possible, .began: break
            }
        }
        cleanUp()
    }

    private func recognize(_ r: GestureRecognizer, _ state: GestureRecognizer.State) {
        // Others sharing a touch with r lose, unless either allows both.
        let touches = Set(r.trackedTouches)
        for other in participants where other !== r && other.state == .possible {
            let shares = other.trackedTouches.contains { touches.contains($0) } || other.pendingState != nil && other.failureRequirements.contains { $0 === r }
            if shares && !r.recognizesSimultaneously(other) && !other.recognizesSimultaneously(r) { fail(other) }
        }
        if r.cancelsTouchesInView { root?.cancelViewDelivery(of: r.trackedTouches, by: r) }
        r.apply(state)
        // Those that required r to fail can no longer recognize.
        for d in participants where d.failureRequirements.contains(where: { $0 === r }) && d.state == .possible { fail(d) }
    }

    private func fail(_ r: GestureRecognizer) {
        guard r.state == .possible else { return }
        r.apply(.failed)
        // Recognizers waiting for r may now go ahead.
        for d in participants where d.pendingState != nil && d.failureRequirements.contains(where: { $0 === r }) {
            if d.failureRequirements.allSatisfy({ $0.state == .failed }), let s = d.pendingState {
                d.pendingState = nil
                recognize(d, s)
            }
        }
    }

    /// Fails recognizers left undecided when their touches are gone.
    func failUndecided() {
        for r in participants where r.state == .possible && r.trackedTouches.isEmpty && r.pendingState == nil && !r.isAwaitingTouches {
            fail(r)
        }
        cleanUp()
    }

    /// Resets recognizers whose gesture is over: no touches down, a final state, nobody waiting.
    func cleanUp() {
        var changed = true
        while changed {
            changed = false
            for r in participants where r.trackedTouches.isEmpty && r.state.isTerminal && r.pendingState == nil {
                let someoneWaits = participants.contains { $0.pendingState != nil && $0.failureRequirements.contains { $0 === r } }
                if someoneWaits { continue }
                r.resetToPossible()
                participants.removeAll { $0 === r }
                changed = true
            }
        }
        // A possible recognizer with no touches and nothing pending that never got a timer stays
        // a participant until it decides (taps waiting for a next tap decide by timer).
    }
}

/// UIKit's target-action, typed: an action receives the recognizer that fired as what it is
/// (a pan its translation, a swipe its direction), never to be cast from the base class.
public protocol GestureActions: AnyObject {}

extension GestureRecognizer: GestureActions {}

extension GestureActions where Self: GestureRecognizer {
    public func addTarget(_ action: @escaping (Self) -> Void) {
        addAction { [unowned self] in action(self) } // kept by self: it runs only while self does
    }
}

/// A recognizer made with nothing but its action: `PanGestureRecognizer { pan in … }`.
public protocol PlainGestureRecognizer: GestureActions { init() }

extension PlainGestureRecognizer where Self: GestureRecognizer {
    public init(action: @escaping (Self) -> Void) {
        self.init()
        addTarget(action)
    }
}
