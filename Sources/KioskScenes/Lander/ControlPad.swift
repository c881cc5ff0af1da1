import KioskCore
import KioskRender
import KioskUI

/// Three translucent buttons — turn port, fire engine, turn starboard — flown with true
/// multi-touch: one thumb can hold the engine while the other turns; a finger sliding from one
/// button to the next switches buttons; lifting or a cancel stops exactly what that finger did.
/// With one finger: a tap on the engine keeps it burning until the next tap, so one finger can
/// turn meanwhile (nobody has to hold two at once). Touch-and-hold the grip bar for a second,
/// then drag, to move the pad (it rides above the finger so it stays visible).
final class ControlPad: View {
    enum Role: Int, CaseIterable { case port, fire, starboard }

    let buttons = Role.allCases.map { PadButton(role: $0) }
    let grip = GripView()
    private(set) var engine = false
    private(set) var turning = 0
    /// The engine left burning by a tap on it (until the next tap, a hold, or a new flight).
    private(set) var engineLatched = false
    /// The engine or the turn changed, at the time of the touch that changed it (nil: no touch).
    var onChange: (_ at: Double?) -> Void = { _ in }
    var onMoved: (Point) -> Void = { _ in }
    /// A turn button chosen by a screen reader's double tap or a keypad: one step that way.
    var onTurnStep: (Int) -> Void = { _ in }
    /// The longest press on the engine that counts as a tap (a longer one is a hold).
    static let tapTime = 0.3
    private var fingers: [ObjectIdentifier: Finger] = [:]
    private struct Finger {
        var touch: Touch
        var role: Role?
        let startRole: Role?
        let began: Double
    }
    private var mm = DisplayInfo.fallbackPointsPerMillimetre
    private var moving = false

    override init(frame: Rect = .zero) {
        super.init(frame: frame)
        isMultipleTouchEnabled = true
        for b in buttons { addSubview(b) }
        grip.isMultipleTouchEnabled = true
        grip.accessibilityIdentifier = "move the controls"
        addSubview(grip)
        let hold = LongPressGestureRecognizer { [unowned self] r in
            guard let sv = superview else { return }
            switch r.state {
            case .began:
                moving = true
                grip.isHeld = true
                fallthrough
            case .changed:
                let f = r.location(in: sv)
                // Keep the pad just above the finger so the finger does not hide it.
                center = Point(x: f.x, y: f.y - bounds.height / 2 - 2 * mm)
            case .ended, .cancelled:
                moving = false
                grip.isHeld = false
                onMoved(center)
            default: break
            }
        }
        hold.minimumPressDuration = 1
        hold.allowableMovement = .millimetres(3)
        grip.addGestureRecognizer(hold)
    }

    /// Buttons at least 16 mm wide on the real panel (~9 mm is the minimum for a fingertip).
    /// `large`: the large high-contrast mode (15 mm targets; the buttons opaque).
    func layout(mm: Double, large: Bool) {
        self.mm = mm
        // The grip is a fingertip (9 mm, 15 mm in the large mode) tall to touch; its bar is drawn 5 mm tall.
        let side = max(large ? 44 : 64, 16 * mm), gap = max(8, 2.5 * mm), gripH = max(34, (large ? 15 : 9) * mm)
        for b in buttons { b.isOpaqueForLowVision = large }
        let width = 3 * side + 2 * gap
        bounds = Rect(x: 0, y: 0, width: width, height: gripH + gap + side)
        grip.frame = Rect(x: width / 2 - side / 2, y: 0, width: side, height: gripH)
        grip.barHeight = max(18, 5 * mm)
        for (i, b) in buttons.enumerated() {
            b.frame = Rect(x: Double(i) * (side + gap), y: gripH + gap, width: side, height: side)
        }
    }

    /// The button a finger at `p` (pad coordinates) is on. A finger already on a button keeps it
    /// within a wider margin (hysteresis), so a shaky thumb does not flicker between buttons.
    func role(at p: Point, current: Role?) -> Role? {
        if let current, buttons[current.rawValue].frame.insetBy(dx: -5 * mm, dy: -5 * mm).contains(p) {
            let others = buttons.filter { $0.role != current && $0.frame.contains(p) }
            if others.isEmpty { return current }
        }
        let margin = current == nil ? 2.5 * mm : 5 * mm
        return buttons.filter { $0.frame.insetBy(dx: -margin, dy: -margin).contains(p) }
            .min { $0.frame.center.distance(to: p) < $1.frame.center.distance(to: p) }?.role
    }

    override func touchesBegan(_ touches: Set<Touch>, event: TouchEvent) {
        for t in touches where t.view !== grip {
            let r = role(at: t.location(in: self), current: nil)
            fingers[ObjectIdentifier(t)] = Finger(touch: t, role: r, startRole: r, began: t.timestamp)
        }
        update(at: event.timestamp)
    }
    override func touchesMoved(_ touches: Set<Touch>, event: TouchEvent) {
        for t in touches {
            guard let f = fingers[ObjectIdentifier(t)] else { continue }
            fingers[ObjectIdentifier(t)]?.role = role(at: t.location(in: self), current: f.role)
        }
        update(at: event.timestamp)
    }
    override func touchesEnded(_ touches: Set<Touch>, event: TouchEvent) {
        for t in touches {
            if let f = fingers.removeValue(forKey: ObjectIdentifier(t)), f.startRole == .fire, f.role == .fire {
                // A tap leaves the engine burning (or stops it if it was); a hold ends with it.
                engineLatched = t.timestamp - f.began < Self.tapTime ? !engineLatched : false
            }
        }
        update(at: event.timestamp)
    }
    override func touchesCancelled(_ touches: Set<Touch>, event: TouchEvent) {
        for t in touches { fingers[ObjectIdentifier(t)] = nil }
        update(at: event.timestamp)
    }

    /// Stops everything (the scene is paused, a new flight).
    func cancelAll() {
        fingers.removeAll()
        engineLatched = false
        update(at: nil)
    }

    /// A button chosen without touching it (a screen reader's double tap): the engine's tap, or
    /// one turn step.
    func activate(_ role: Role) {
        switch role {
        case .fire: engineLatched.toggle(); update(at: nil)
        case .port: onTurnStep(-1)
        case .starboard: onTurnStep(1)
        }
    }

    private func update(at time: Double?) {
        let held = Set(fingers.values.compactMap(\.role))
        let e = held.contains(.fire) || engineLatched
        for b in buttons { b.isLit = b.role == .fire ? e : held.contains(b.role) }
        buttons[Role.fire.rawValue].accessibilityTraits = e ? [.button, .selected] : .button
        let t = (held.contains(.starboard) ? 1 : 0) - (held.contains(.port) ? 1 : 0)
        if e != engine || t != turning {
            engine = e
            turning = t
            onChange(time)
        }
    }
}

/// One pad button: translucent (alpha 0.5), lit (0.75) while a finger is on it; in the large
/// high-contrast mode opaque, lit by a thick edge.
final class PadButton: View {
    let role: ControlPad.Role
    override func accessibilityActivate() -> Bool {
        (superview as? ControlPad)?.activate(role)
        return true
    }
    var isLit = false { didSet { if isLit != oldValue { restyle() } } }
    var isOpaqueForLowVision = false { didSet { if isOpaqueForLowVision != oldValue { restyle() } } }
    private func restyle() {
        alpha = isOpaqueForLowVision ? 1 : isLit ? 0.75 : 0.5
        if isOpaqueForLowVision { setNeedsDisplay() }
    }
    override var drawsContent: Bool { true }

    init(role: ControlPad.Role) {
        self.role = role
        super.init()
        alpha = 0.5
        isMultipleTouchEnabled = true
        accessibilityIdentifier = ["turn port", "fire engine", "turn starboard"][role.rawValue]
        isAccessibilityElement = true
        accessibilityTraits = .button
    }

    /// What a screen reader calls it ("lander.thrust"), in the language on screen.
    static let textKeys = ["lander.turnLeft", "lander.thrust", "lander.turnRight"]

    override func draw(in canvas: Canvas) {
        let b = Rect(origin: .zero, size: bounds.size), w = b.width, h = b.height
        canvas.fillRoundedRect(b, radius: w * 0.18, color: Color(rgb: 0x2a3442))
        let litEdge = isOpaqueForLowVision && isLit
        canvas.strokeRoundedRect(b.insetBy(dx: litEdge ? 3 : 0, dy: litEdge ? 3 : 0), radius: w * 0.18, width: litEdge ? 6 : 2,
                                 color: litEdge ? Color.sky : Color.mist)
        let icon = Color.paper
        switch role {
        case .port:
            canvas.fillPolygon([Point(x: w * 0.25, y: h * 0.5), Point(x: w * 0.68, y: h * 0.25), Point(x: w * 0.68, y: h * 0.75)], color: icon)
        case .starboard:
            canvas.fillPolygon([Point(x: w * 0.75, y: h * 0.5), Point(x: w * 0.32, y: h * 0.25), Point(x: w * 0.32, y: h * 0.75)], color: icon)
        case .fire:
            canvas.fillPolygon([Point(x: w * 0.5, y: h * 0.18), Point(x: w * 0.72, y: h * 0.62), Point(x: w * 0.5, y: h * 0.82),
                                Point(x: w * 0.28, y: h * 0.62)], color: Color.amber)
            canvas.fillPolygon([Point(x: w * 0.5, y: h * 0.4), Point(x: w * 0.6, y: h * 0.64), Point(x: w * 0.5, y: h * 0.74),
                                Point(x: w * 0.4, y: h * 0.64)], color: Color.lemon)
        }
    }
}

/// The pad's grip: a fingertip-tall target showing a thin bar at its bottom, lit while held.
final class GripView: View {
    var isHeld = false { didSet { if isHeld != oldValue { setNeedsDisplay() } } }
    var barHeight = 18.0 { didSet { if barHeight != oldValue { setNeedsDisplay() } } }
    override var drawsContent: Bool { true }

    override func draw(in canvas: Canvas) {
        let h = min(barHeight, bounds.height)
        let bar = Rect(x: 0, y: bounds.height - h, width: bounds.width, height: h)
        // Opaque in high contrast: half of it lets the terrain through.
        canvas.fillRoundedRect(bar, radius: min(5, h / 2), color: isHeld ? Color.sky : Color.slate.withAlpha(canvas.highContrast ? 1 : 0.5))
    }
}
