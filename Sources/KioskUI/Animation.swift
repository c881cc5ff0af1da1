#if canImport(Glibc)
import Glibc
#endif
import KioskCore

/// Values an animation can blend.
public protocol Interpolatable: Equatable {
    static func interpolate(_ a: Self, _ b: Self, _ t: Double) -> Self
}
extension Double: Interpolatable {
    public static func interpolate(_ a: Double, _ b: Double, _ t: Double) -> Double { a + (b - a) * t }
}
extension Point: Interpolatable {
    public static func interpolate(_ a: Point, _ b: Point, _ t: Double) -> Point {
        Point(x: .interpolate(a.x, b.x, t), y: .interpolate(a.y, b.y, t))
    }
}
extension Size: Interpolatable {
    public static func interpolate(_ a: Size, _ b: Size, _ t: Double) -> Size {
        Size(width: max(0, .interpolate(a.width, b.width, t)), height: max(0, .interpolate(a.height, b.height, t)))
    }
}
extension AffineTransform: Interpolatable {
    /// Component-wise, which keeps rotations smooth for the small steps UI animations make;
    /// large rotations should animate through a scene-level angle instead.
    public static func interpolate(_ a: AffineTransform, _ b: AffineTransform, _ t: Double) -> AffineTransform {
        AffineTransform(a: .interpolate(a.a, b.a, t), b: .interpolate(a.b, b.b, t), c: .interpolate(a.c, b.c, t),
                        d: .interpolate(a.d, b.d, t), tx: .interpolate(a.tx, b.tx, t), ty: .interpolate(a.ty, b.ty, t))
    }
}
extension Color: Interpolatable {
    public static func interpolate(_ a: Color, _ b: Color, _ t: Double) -> Color {
        Color(red: .interpolate(a.red, b.red, t), green: .interpolate(a.green, b.green, t),
              blue: .interpolate(a.blue, b.blue, t), alpha: .interpolate(a.alpha, b.alpha, t))
    }
}
extension Optional: Interpolatable where Wrapped == Color {
    /// nil is a clear version of the other colour, so fades in and out keep their hue.
    public static func interpolate(_ a: Color?, _ b: Color?, _ t: Double) -> Color? {
        switch (a, b) {
        case (nil, nil): return nil
        case let (x?, nil): return t >= 1 ? nil : Color.interpolate(x, x.withAlpha(0), t)
        case let (nil, y?): return Color.interpolate(y.withAlpha(0), y, t)
        case let (x?, y?): return Color.interpolate(x, y, t)
        }
    }
}

/// Timing curves, mapping linear progress 0...1 to eased progress.
public enum AnimationCurve: Equatable, Sendable {
    case linear, easeIn, easeOut, easeInOut
    /// A damped spring settling at 1; `damping` 1 is critical (no overshoot), 0.5 bounces.
    case spring(damping: Double)

    public func value(_ t: Double) -> Double {
        let t = max(0, min(1, t))
        switch self {
        case .linear: return t
        case .easeIn: return t * t * t
        case .easeOut: let u = 1 - t; return 1 - u * u * u
        case .easeInOut: return t < 0.5 ? 4 * t * t * t : 1 - pow(-2 * t + 2, 3) / 2
        case .spring(let damping):
            if t >= 1 { return 1 }
            let z = max(0.05, min(1, damping)), w = 12.0
            if z >= 0.999 { return 1 - (1 + w * t) * exp(-w * t) }
            let wd = w * (1 - z * z).squareRoot()
            return 1 - exp(-z * w * t) * (cos(wd * t) + z * w / wd * sin(wd * t))
        }
    }
}

/// One `View.animate` call: its timing and its completion, which fires exactly once.
/// `@unchecked Sendable`: created and used on the thread that runs the animation block (a task
/// local only carries it into the property setters called from that block).
final class AnimationContext: @unchecked Sendable {
    @TaskLocal static var current: AnimationContext?

    let duration: Double
    let delay: Double
    let curve: AnimationCurve
    private var completion: ((Bool) -> Void)?
    var running = 0
    var interrupted = false

    init(duration: Double, delay: Double, curve: AnimationCurve, completion: ((Bool) -> Void)?) {
        self.duration = max(0, duration); self.delay = max(0, delay); self.curve = curve; self.completion = completion
    }
    func finishOne(interrupted wasInterrupted: Bool) {
        running -= 1
        if wasInterrupted { interrupted = true }
        if running <= 0 { complete(finished: !interrupted) }
    }
    func complete(finished: Bool) {
        let c = completion
        completion = nil
        c?(finished)
    }
}

extension View {
    /// Animates the property changes made in `animations` (frame, center, bounds, alpha,
    /// transform, backgroundColor) over `duration` seconds on the frame clock. The new values are
    /// the views' values at once; the screen follows. A new animation of a property starts from
    /// where the running one is on screen; `completion` runs once with false when interrupted.
    public static func animate(duration: Double, delay: Double = 0, curve: AnimationCurve = .easeInOut,
                               animations: () -> Void, completion: ((Bool) -> Void)? = nil) {
        let context = AnimationContext(duration: duration, delay: delay, curve: curve, completion: completion)
        AnimationContext.$current.withValue(context) { animations() }
        if context.running == 0 { context.complete(finished: true) } // nothing to animate
    }
}

/// Runs a root's property animations on its frame clock.
final class Animator {
    private struct Running {
        let view: View
        let key: PartialKeyPath<View.Presentation>
        let context: AnimationContext
        let start: Double
        let step: (Double) -> Void
    }
    private var running: [Running] = []
    /// The clock animations start on.
    var clock: () -> Double = { 0 }

    var isActive: Bool { !running.isEmpty }

    func animate<T: Interpolatable>(_ view: View, _ key: WritableKeyPath<View.Presentation, T>, to value: T, context: AnimationContext) {
        let from = view.presentation[keyPath: key] // from what is on screen now
        removeAnimations(of: view, key)
        guard context.duration > 0 || context.delay > 0 else {
            view.setPresentation(key, value)
            return
        }
        context.running += 1
        let curve = context.curve, duration = context.duration
        running.append(Running(view: view, key: key, context: context, start: clock() + context.delay, step: { [unowned view] p in
            // The last frame lands exactly on the model value (a + (b - a)·1 need not equal b).
            view.setPresentation(key, p >= 1 || duration <= 0 ? value : T.interpolate(from, value, curve.value(p)))
        }))
    }

    /// Stops any animation of `key` on `view` (its completion learns it was interrupted).
    func removeAnimations(of view: View, _ key: PartialKeyPath<View.Presentation>) {
        guard !running.isEmpty else { return }
        var stopped: [AnimationContext] = []
        running.removeAll { r in
            if r.view === view && r.key == key { stopped.append(r.context); return true }
            return false
        }
        for c in stopped { c.finishOne(interrupted: true) }
    }

    /// Removes every animation of views inside `view` (it left the root).
    func removeAnimations(inside view: View) {
        var stopped: [AnimationContext] = []
        running.removeAll { r in
            if r.view.isDescendant(of: view) { stopped.append(r.context); return true }
            return false
        }
        for c in stopped { c.finishOne(interrupted: true) }
    }

    /// Moves every animation to `time`; finished ones are removed and complete.
    func step(to time: Double) {
        guard !running.isEmpty else { return }
        var done: [Int] = []
        for (i, r) in running.enumerated() where time >= r.start {
            let p = r.context.duration > 0 ? (time - r.start) / r.context.duration : 1
            r.step(min(1, p))
            if p >= 1 { done.append(i) }
        }
        let finished = done.map { running[$0].context }
        for i in done.reversed() { running.remove(at: i) }
        for c in finished { c.finishOne(interrupted: false) }
    }
}
