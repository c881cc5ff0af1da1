#if canImport(Glibc)
import Glibc
#endif
import KioskCore

/// How a flight ended, if it has.
public enum LanderOutcome: String, Codable, Sendable {
    case flying, landed, hardLanding, crashed
}

/// Everything a flight needs to continue after a restart. Positions are fractions of the play
/// area (0...1 across, 0 at the bottom, 1 at the top), so a new screen size or a rotation keeps
/// the ship where it was in proportion; velocities are m/s in the world.
public struct LanderState: Codable, Equatable, Sendable {
    public var x = 0.5
    public var y = 0.5
    public var vx = 0.0
    public var vy = 0.0
    /// Radians from straight up, clockwise positive.
    public var heading = 0.0
    /// Percent, 0...100.
    public var fuel = 100.0
    public var outcome = LanderOutcome.flying

    public init() {}

    /// Whether every value is within what a flight can produce (saved files can be damaged).
    public var isPlausible: Bool {
        let finite = [x, y, vx, vy, heading, fuel].allSatisfy { $0.isFinite }
        return finite && (0...1).contains(x) && (-0.1...5).contains(y) && abs(vx) < 500 && abs(vy) < 500
            && (0...100).contains(fuel) && abs(heading) <= 2 * .pi + 0.01
    }
}

/// The ground: a polyline across the world with one flat landing pad.
public struct Terrain: Equatable, Sendable {
    /// (x, height) in metres, x ascending from 0 to the world width.
    public let points: [Point]
    public let padStart: Double
    public let padEnd: Double
    public var padHeight: Double { height(at: (padStart + padEnd) / 2) }

    /// Deterministic for a seed and width: the same ground after a restart or a rotation
    /// (regenerated to the new width, the pad at the same proportion).
    public init(seed: UInt64, width: Double) {
        var rng = SplitMix64(seed: seed)
        let segments = max(8, Int(width / 6))
        let step = width / Double(segments)
        let padWidth = 14.0
        let padFraction = 0.2 + rng.next(below: 0.6)
        let padX0 = min(width - padWidth - step, max(step, padFraction * width - padWidth / 2))
        let padH = 6 + rng.next(below: 14)
        var pts: [Point] = []
        var h = 8 + rng.next(below: 20)
        var x = 0.0
        while x <= width + 1e-9 {
            h = max(3, min(38, h + rng.next(below: 16) - 8))
            if x >= padX0 - 1e-9 && x <= padX0 + padWidth + 1e-9 {
                pts.append(Point(x: x, y: padH))
            } else if abs(x - padX0) >= step / 2 && abs(x - padX0 - padWidth) >= step / 2 {
                // Not too close to the pad's edges: slopes there, not cliffs.
                pts.append(Point(x: x, y: h))
            }
            x += step
        }
        // Exact pad edges so the flat part is exactly padWidth wide.
        pts.append(Point(x: padX0, y: padH)); pts.append(Point(x: padX0 + padWidth, y: padH))
        pts.sort { $0.x < $1.x }
        var unique: [Point] = []
        for p in pts where unique.last.map({ abs($0.x - p.x) > 1e-9 }) ?? true { unique.append(p) }
        // Points between the edges are flat at pad height.
        points = unique.map { p in (p.x >= padX0 && p.x <= padX0 + padWidth) ? Point(x: p.x, y: padH) : p }
        padStart = padX0
        padEnd = padX0 + padWidth
    }

    /// Ground height at `x` (metres), linearly between points; wraps outside the world.
    public func height(at x: Double) -> Double {
        guard let last = points.last, last.x > 0 else { return 0 }
        var xx = x.truncatingRemainder(dividingBy: last.x)
        if xx < 0 { xx += last.x }
        var lo = 0, hi = points.count - 1
        while hi - lo > 1 { let mid = (lo + hi) / 2; if points[mid].x <= xx { lo = mid } else { hi = mid } }
        let a = points[lo], b = points[hi]
        guard b.x > a.x else { return a.y }
        return a.y + (b.y - a.y) * (xx - a.x) / (b.x - a.x)
    }

    public func isOnPad(_ x: Double, halfWidth: Double) -> Bool { x - halfWidth >= padStart && x + halfWidth <= padEnd }
}

/// The lander's physics: pure Swift, no views and no clock of its own. Fixed 120 Hz steps under
/// lunar gravity, thrust along the heading, a turn rate, fuel burn; the same inputs and steps
/// give the same flight on any machine.
public struct LanderModel: Equatable, Sendable {
    public static let gravity = 1.62           // m/s², the Moon's
    public static let thrust = 4.2             // m/s² at full throttle: ~2.6 g_moon
    public static let turnRate = Double.pi / 2 // rad/s
    public static let burnRate = 100.0 / 40    // % per second: 40 s of engine
    public static let step = 1.0 / 120
    /// The play area is this tall in metres; its width follows the screen's aspect.
    public static let worldHeight = 100.0
    public static let shipHalfWidth = 2.0
    public static let maxTilt = 10.0 * .pi / 180

    public var state = LanderState()
    public private(set) var terrain: Terrain
    public private(set) var worldWidth: Double
    public let seed: UInt64
    /// Inputs, held while a button or key is down.
    public var engineOn = false
    /// -1 turns port (anticlockwise), +1 starboard, 0 none (set with `setTurning`).
    public private(set) var turning = 0
    private var accumulator = 0.0
    public private(set) var steps = 0

    public init(seed: UInt64 = 7, aspect: Double = 16.0 / 9) {
        self.seed = seed
        worldWidth = Self.worldHeight * max(0.2, aspect)
        terrain = Terrain(seed: seed, width: worldWidth)
    }

    /// A new play-area shape: the ground is regenerated to the new width from the same seed;
    /// the ship keeps its proportional position and its velocity.
    public mutating func resize(aspect: Double) {
        let w = Self.worldHeight * max(0.2, aspect)
        guard abs(w - worldWidth) > 1e-9 else { return }
        worldWidth = w
        terrain = Terrain(seed: seed, width: w)
    }

    /// A fresh flight: centred high up, at rest, full tank.
    public mutating func reset() {
        state = LanderState()
        state.y = 0.75
        engineOn = false
        turning = 0
        headingOwed = 0
        accumulator = 0
    }

    public var positionMetres: Point { Point(x: state.x * worldWidth, y: state.y * Self.worldHeight) }
    public var isFlying: Bool { state.outcome == .flying }
    /// The flight as a recorder would note it (the debug log's `lander:` lines): where the ship
    /// is, how it moves and leans, where the pad is, the engine and the outcome.
    public var flightRecord: String {
        let p = positionMetres, s = state
        func f(_ v: Double, _ per: Double = 100) -> String { format((v * per).rounded() / per) }
        return "x \(f(p.x)) altitude \(f(p.y - terrain.height(at: p.x))) vx \(f(s.vx)) vy \(f(s.vy)) heading \(f(s.heading, 1000)) "
            + "pad \(f(terrain.padStart))-\(f(terrain.padEnd)) engine \(engineOn ? "on" : "off") \(s.outcome)"
    }
    public var engineFiring: Bool { engineOn && state.fuel > 0 && isFlying }

    /// Advances by `dt` seconds in whole fixed steps (the remainder carries to the next call).
    public mutating func advance(by dt: Double) {
        guard isFlying else { accumulator = 0; return }
        accumulator += max(0, min(dt, Self.longestStall)) // a stall never becomes a teleport
        while accumulator >= Self.step && isFlying {
            accumulator -= Self.step
            stepOnce()
        }
    }

    /// The most of a stall (a busy machine) that is flown: more would be a jump.
    public static let longestStall = 0.25

    /// The turn from now on (−1 port, +1 starboard, 0 none), changed `ago` seconds before the time
    /// already given to `advance` (an event handled late). A turn counts for exactly as long as it
    /// was held, not rounded to the physics' steps, even when it was shorter than a frame.
    public mutating func setTurning(_ direction: Int, changedAgo ago: Double = 0) {
        let before = turning.signum(), after = direction.signum()
        turning = direction
        guard isFlying, after != before else { return }
        // The time since the last step (or before it, for a late event) turned the other way.
        let flownOtherwise = accumulator - max(0, min(ago, Self.longestStall))
        headingOwed += Double(before - after) * Self.turnRate * flownOtherwise
    }
    /// Heading from a turn that changed between steps, given to the next step.
    private var headingOwed = 0.0

    /// One turn step (`direction` −1 port, +1 starboard) at once: the turn buttons' tap for a
    /// visitor who chooses them without holding them (a screen reader's double tap, a keypad).
    public mutating func turnStep(_ direction: Int) {
        guard isFlying else { return }
        state.heading += Double(direction.signum()) * Self.turnStep
        wrapHeading()
    }
    public static let turnStep = Double.pi / 12

    /// The heading kept within −π…π, however far the rocket has turned.
    private mutating func wrapHeading() {
        if state.heading > .pi { state.heading -= 2 * .pi } else if state.heading < -.pi { state.heading += 2 * .pi }
    }

    mutating func stepOnce() {
        let dt = Self.step
        steps += 1
        state.heading += Double(turning.signum()) * Self.turnRate * dt + headingOwed
        headingOwed = 0
        wrapHeading()
        var ax = 0.0, ay = -Self.gravity
        if engineOn && state.fuel > 0 {
            ax += Self.thrust * sin(state.heading)
            ay += Self.thrust * cos(state.heading)
            state.fuel = max(0, state.fuel - Self.burnRate * dt)
        }
        state.vx += ax * dt
        state.vy += ay * dt
        var p = positionMetres
        p.x += state.vx * dt
        p.y += state.vy * dt
        // Leaving sideways wraps around; the top is open.
        p.x = p.x.truncatingRemainder(dividingBy: worldWidth)
        if p.x < 0 { p.x += worldWidth }
        state.x = p.x / worldWidth
        state.y = p.y / Self.worldHeight
        let ground = terrain.height(at: p.x)
        if p.y <= ground {
            state.y = ground / Self.worldHeight
            state.outcome = Self.touchdown(onPad: terrain.isOnPad(p.x, halfWidth: Self.shipHalfWidth),
                                           tilt: abs(state.heading), vx: state.vx, vy: state.vy)
            state.vx = 0; state.vy = 0
        }
    }

    /// The touchdown rule: on a pad, tilt ≤ 10°, |vx| ≤ 1 m/s and a descent of ≤ 2 m/s is a
    /// landing, ≤ 5 m/s a hard landing; anything else, or ground off the pad, is a crash.
    public static func touchdown(onPad: Bool, tilt: Double, vx: Double, vy: Double) -> LanderOutcome {
        guard onPad, tilt <= maxTilt + 1e-9, abs(vx) <= 1 else { return .crashed }
        let descent = -vy
        if descent <= 2 { return .landed }
        if descent <= 5 { return .hardLanding }
        return .crashed
    }
}
