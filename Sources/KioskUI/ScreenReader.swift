import KioskCore

/// Explore by touch, as VoiceOver and TalkBack do it, for a kiosk that draws every pixel
/// itself (nothing outside it can read the screen). With speech on, touches explore instead of
/// acting: a finger that rests on or slides onto something hears it ("Tiles, scene,
/// selected"), a double tap anywhere activates what was last spoken, a flick right or left
/// moves to the next or previous thing. Two fingers tapped three times turn speech on or off,
/// from anywhere, without sight; nothing else in the kiosk uses that gesture. What it says goes
/// to `speak`; the sound is the caller's (off the frame loop).
public final class ScreenReader {
    public struct Utterance: Equatable, Sendable {
        public var text: String
        /// The language to speak it in (ISO 639-1, as `Language.code`).
        public var language: String
        public init(text: String, language: String) { (self.text, self.language) = (text, language) }
    }

    public private(set) var isOn = false
    /// While the screensaver or closing time's black shows, touches pass (a touch wakes them).
    public var isSuspended = false {
        didSet { if isSuspended { finger = nil; pendingFocus?.cancel(); focused = nil; silence() } }
    }
    /// What is focused moved or went away (a relayout, a scene change): the ring follows.
    public func refresh() {
        if let v = focused, v.isHidden || v.root !== root { focused = nil } else { showRing() }
    }
    /// The words of the language on screen, for roles and states.
    public var texts = Texts(table: ToolkitTexts.table)
    public var speak: (Utterance) -> Void = { _ in }
    /// Stops what is being said (nobody is there to hear it: the screensaver, a fresh start).
    public var silence: () -> Void = {}
    /// Told whenever speech is turned on or off (the speech pill shows it).
    public var onChange: ((Bool) -> Void)?
    public private(set) weak var focused: View? { didSet { showRing() } }
    /// Drawn around what is focused, for a visitor who sees the screen and moves with a keypad.
    private let ring = FocusRing()

    /// A finger's rest before what is under it is spoken (one that moves on is not resting).
    public static let restDelay = 0.15
    /// Longest and farthest a tap goes; the most between the two taps of a double tap.
    static let tapTime = 0.3, tapSlop = 20.0, doubleTapGap = 0.4
    /// A flick: at least this far sideways, twice as far as up or down, within `flickTime`; a
    /// finger that slides on for longer explores.
    static let flickDistance = 40.0, flickTime = 0.3
    /// The three two-finger taps that toggle speech lie within this.
    static let toggleWindow = 1.5

    private let scheduler: Scheduler
    private unowned let root: RootView
    private var finger: (id: Int32, start: Point, startTime: Double, location: Point)?
    private var fingersDown: [Int32: Double] = [:]
    private var twoFingerTapStart: Double?
    private var twoFingerTaps: [Double] = []
    private var lastTapTime: Double?
    private var pendingFocus: ScheduledTimer?

    public init(root: RootView, scheduler: Scheduler) {
        self.root = root
        self.scheduler = scheduler
    }

    /// Turns speech on or off, saying so either way unless `saying` is false (a fresh start
    /// for the next visitor, with no one there).
    public func setOn(_ on: Bool, saying: Bool = true) {
        guard on != isOn else { return }
        isOn = on
        onChange?(on)
        finger = nil
        pendingFocus?.cancel()
        if saying { say(texts[on ? "access.speechOn" : "access.speechOff"]) } else { silence() }
        if !on { focused = nil }
    }

    /// Says `text` now, over whatever was being said (a scene change, a landing).
    public func announce(_ text: String) {
        guard isOn else { return }
        if announcedWhileActivating != nil { announcedWhileActivating?.append(text) } else { say(text) }
    }
    /// What the scene announced while a control was activated: said after the control's new
    /// state, in one utterance ("Tile 1 of 24, button, selected. 1 selected"), not over it.
    private var announcedWhileActivating: [String]?

    /// Whether the batch was the reader's: with speech on, every touch is; with it off, none (the
    /// gesture that turns it on is watched and passed on).
    func take(_ batch: TouchBatch) -> Bool {
        guard !isSuspended else { return false }
        let toggled = watchForToggle(batch)
        guard isOn else { return false }
        if toggled { return true }
        for p in batch.points { follow(p, at: batch.time) }
        return true
    }

    // MARK: One finger

    private func follow(_ p: TouchPoint, at time: Double) {
        switch p.phase {
        case .began:
            guard finger == nil, fingersDown.count <= 1 else { finger = nil; return }
            finger = (p.id, p.location, time, p.location)
            pendingFocus?.cancel()
            pendingFocus = scheduler.schedule(after: Self.restDelay) { [weak self] in self?.focusUnderFinger() }
        case .moved:
            guard var f = finger, f.id == p.id else { return }
            f.location = p.location
            finger = f
            if time - f.startTime > Self.flickTime { focus(at: p.location) }
        case .ended:
            guard let f = finger, f.id == p.id else { return }
            finger = nil
            pendingFocus?.cancel()
            lifted(f, at: p.location, time: time)
        case .cancelled:
            if finger?.id == p.id { finger = nil; pendingFocus?.cancel() }
        }
    }

    private func lifted(_ f: (id: Int32, start: Point, startTime: Double, location: Point), at end: Point, time: Double) {
        let dx = end.x - f.start.x, dy = end.y - f.start.y, duration = time - f.startTime
        if duration <= Self.flickTime, abs(dx) >= Self.flickDistance, abs(dx) >= 2 * abs(dy) {
            move(by: dx > 0 ? 1 : -1)
            lastTapTime = nil
        } else if duration <= Self.tapTime, abs(dx) <= Self.tapSlop, abs(dy) <= Self.tapSlop {
            if let last = lastTapTime, f.startTime - last <= Self.doubleTapGap {
                lastTapTime = nil
                activate()
            } else {
                lastTapTime = time
                // A single tap speaks what it touched, unless a second tap follows.
                pendingFocus = scheduler.schedule(after: Self.doubleTapGap) { [weak self] in self?.focus(at: end) }
            }
        } else if duration >= Self.restDelay {
            focus(at: end)
        }
    }

    /// The rest's timer: only a finger still near where it came down is resting.
    private func focusUnderFinger() {
        guard let f = finger, abs(f.location.x - f.start.x) <= Self.tapSlop, abs(f.location.y - f.start.y) <= Self.tapSlop else { return }
        focus(at: f.location)
    }

    /// What is under `point`: the smallest element there.
    private func focus(at point: Point) {
        guard let v = root.accessibilityElement(at: point), v !== focused else { return }
        focus(v)
    }

    private func focus(_ v: View) {
        // Out of view in a scroll view (a flick to the next paragraph): brought into view first.
        var container = v.superview
        while let c = container {
            if let scroll = c as? ScrollView { scroll.scrollToVisible(v.convert(v.bounds, to: scroll.content)) }
            container = c.superview
        }
        focused = v
        if isOn, let d = v.spokenDescription(texts) { say(d) }
    }

    private func move(by step: Int) {
        let elements = root.accessibilityElements()
        guard !elements.isEmpty else { return }
        let i = focused.flatMap { f in elements.firstIndex { $0 === f } }
        let next = i.map { $0 + step } ?? (step > 0 ? 0 : elements.count - 1)
        guard elements.indices.contains(next) else { return }
        focus(elements[next])
    }

    /// The focused view's own action, else a tap on its centre, as a finger would give it.
    /// What it says after is its new state, when that changed ("Tile 1 of 24, button, selected").
    private func activate() {
        guard let v = focused, v.root === root, !v.isHidden else { return }
        let before = v.spokenDescription(texts)
        announcedWhileActivating = []
        if !v.accessibilityActivate() {
            let c = v.convert(v.bounds, to: nil).center, now = scheduler.now, id = Int32.max - 1
            root.deliver(TouchBatch(time: now, points: [TouchPoint(id: id, phase: .began, location: c)]))
            root.deliver(TouchBatch(time: now + 0.05, points: [TouchPoint(id: id, phase: .ended, location: c)]))
        }
        let announced = announcedWhileActivating ?? []
        announcedWhileActivating = nil
        let after = v.spokenDescription(texts).flatMap { $0 != before && focused === v ? $0 : nil }
        // "Tiles, scene, selected" already says the scene change's "Tiles".
        let news = announced.filter { a in !(after?.hasPrefix(a) ?? false) }
        let said = (after.map { [$0] } ?? []) + news
        if !said.isEmpty { say(said.joined(separator: ". ")) }
    }

    // MARK: A keypad

    /// Tab and Shift+Tab move to the next and previous thing (the arrows too, with speech on:
    /// without it they are the scene's, the lander's steering); Enter chooses it; Escape leaves
    /// it. True when the key was the reader's.
    public func handle(_ key: KeyEvent) -> Bool {
        guard !isSuspended else { return false }
        // A key held down does not repeat its step (EN 301 549 5.7: no repeat to be slowed).
        let pressed = key.pressed && !key.isRepeat
        switch key.keysym {
        case Key.tab where key.modifiers.contains(.shift), Key.leftTab: if pressed { move(by: -1) }
        case Key.tab: if pressed { move(by: 1) }
        case Key.right where isOn, Key.down where isOn: if pressed { move(by: 1) }
        case Key.left where isOn, Key.up where isOn: if pressed { move(by: -1) }
        case Key.return, Key.keypadEnter: guard focused != nil else { return false }; if pressed { activate() }
        case Key.escape: guard focused != nil else { return false }; focused = nil
        default: return false
        }
        return true
    }

    private func showRing() {
        guard let v = focused, v.root === root else { ring.removeFromSuperview(); return }
        let f = v.convert(v.bounds, to: nil)
        ring.frame = f.insetBy(dx: -4, dy: -4)
        ring.cornerRadius = v.cornerRadius + 4
        root.addSubview(ring) // on top of everything
    }

    // MARK: Two fingers, three times

    /// Counts taps of exactly two fingers together; the third within `toggleWindow` turns speech
    /// on or off. True when this batch completed it.
    private func watchForToggle(_ batch: TouchBatch) -> Bool {
        for p in batch.points {
            switch p.phase {
            case .began:
                fingersDown[p.id] = batch.time
                if fingersDown.count == 2 { twoFingerTapStart = fingersDown.values.min() } else if fingersDown.count > 2 { twoFingerTapStart = nil }
            case .moved: break
            case .ended, .cancelled:
                fingersDown[p.id] = nil
                guard fingersDown.isEmpty, let start = twoFingerTapStart else { continue }
                twoFingerTapStart = nil
                guard p.phase == .ended, batch.time - start <= Self.tapTime * 2 else { twoFingerTaps = []; continue }
                twoFingerTaps = twoFingerTaps.filter { batch.time - $0 <= Self.toggleWindow } + [batch.time]
                if twoFingerTaps.count >= 3 {
                    twoFingerTaps = []
                    setOn(!isOn)
                    return true
                }
            }
        }
        return false
    }

    private func say(_ text: String) {
        speak(Utterance(text: text, language: texts.language.code))
    }
}

/// The focus ring: a thick bright outline, drawn over everything, touched by nothing.
final class FocusRing: View {
    override init(frame: Rect = .zero) {
        super.init(frame: frame)
        isUserInteractionEnabled = false
        borderWidth = 4
        borderColor = Color(rgb: 0xffd54f)
    }
}
