import CWayland
import CXKBCommon
#if canImport(Glibc)
import Glibc
#endif
import KioskCore

/// Where the seat delivers plain input events.
package protocol InputSink: AnyObject {
    func handle(_ batch: TouchBatch)
    func handle(_ key: KeyEvent)
    /// The seat gained or lost touch (a touchscreen plugged in or out).
    func touchscreen(present: Bool)
}

/// Touch points accumulated between `wl_touch.frame`s. Pure logic, tested without Wayland.
struct TouchAccumulator {
    private(set) var active: [Int32: Point] = [:]
    /// Points the layers above have seen begin and not yet end: what a cancel must end.
    private var delivered: [Int32: Point] = [:]
    private var pending: [TouchPoint] = []
    private var pendingTime = 0.0

    mutating func down(id: Int32, at p: Point, time: Double) {
        if active[id] != nil {
            // A down for an id still held means we missed its up: end the old one first so the
            // layers above never see two sequences with one id.
            record(TouchPoint(id: id, phase: .ended, location: active[id]!), time: time)
        }
        active[id] = p
        record(TouchPoint(id: id, phase: .began, location: p), time: time)
    }
    mutating func motion(id: Int32, to p: Point, time: Double) {
        guard active[id] != nil else { return } // unknown id: ignore
        active[id] = p
        if let i = pending.lastIndex(where: { $0.id == id }), pending[i].phase != .ended {
            pending[i].location = p // several motions in one frame collapse into the last
            pendingTime = time
        } else {
            record(TouchPoint(id: id, phase: .moved, location: p), time: time)
        }
    }
    /// Returns true when this was the last finger (see `Quirks.deliversLastUpWithoutFrame`).
    mutating func up(id: Int32, time: Double) -> Bool {
        guard let p = active.removeValue(forKey: id) else { return false }
        record(TouchPoint(id: id, phase: .ended, location: p), time: time)
        return active.isEmpty
    }
    /// The batch since the last frame, or nil when nothing changed.
    mutating func frame() -> TouchBatch? {
        guard !pending.isEmpty else { return nil }
        defer { pending.removeAll(keepingCapacity: true) }
        for p in pending {
            if p.phase == .ended || p.phase == .cancelled { delivered[p.id] = nil } else { delivered[p.id] = p.location }
        }
        return TouchBatch(time: pendingTime, points: pending)
    }
    /// Every point down or known above, cancelled — including one whose `up` is still waiting
    /// for its frame (dropping that up with the other pending changes left the point pressed
    /// for good). Pending changes are dropped: they never took effect.
    mutating func cancel(at time: Double) -> TouchBatch? {
        pending.removeAll()
        let known = delivered.merging(active) { _, latest in latest }
        active.removeAll()
        delivered.removeAll()
        guard !known.isEmpty else { return nil }
        let pts = known.sorted { $0.key < $1.key }.map { TouchPoint(id: $0.key, phase: .cancelled, location: $0.value) }
        return TouchBatch(time: time, points: pts)
    }
    private mutating func record(_ p: TouchPoint, time: Double) {
        pending.append(p)
        pendingTime = time
    }
}

/// The kiosk's wl_seat: touch, pointer-as-touch and keyboard, turned into `InputSink` calls.
package final class Seat {
    let globalName: UInt32
    private let proxy: OpaquePointer
    private let version: UInt32
    private let log: Logger
    private let loop: EventLoop
    package weak var sink: InputSink?

    private var touch: OpaquePointer?
    /// Whether the seat offers touch (nil until the compositor has said).
    package private(set) var hasTouch: Bool?
    private var pointer: OpaquePointer?
    private var keyboard: OpaquePointer?
    private var touches = TouchAccumulator()
    /// Applied to every touch point (see `Quirks.touchCorrection`).
    package var touchTransform = AffineTransform.identity
    /// Whether the compositor has sent a `wl_touch.frame` (see `Quirks.deliversTouchAtEndOfRead`).
    var touchFramesSeen = false
    private var pointerLocation = Point.zero
    private var pointerDown = false
    private var pointerTime = 0.0
    /// The compositor's input timestamps on the monotonic clock.
    private var inputClock = CompositorClock(slack: CompositorClock.inputSlack)

    private let xkbContext: OpaquePointer?
    private var keymap: OpaquePointer?
    private var xkbState: OpaquePointer?
    /// The keymap text as the compositor sent it, compiled on the first key: compiling takes
    /// ~2 ms, which would otherwise sit on the path to the first frame (the focus, and with it a
    /// `modifiers` event, can come before it is drawn).
    private var pendingKeymap: [CChar]?
    /// Modifier state the compositor sent while the keymap waited: applied once it is compiled.
    private var pendingModifiers: (depressed: UInt32, latched: UInt32, locked: UInt32, group: UInt32)?
    private(set) var repeatRate: Int32 = 25
    private(set) var repeatDelay: Int32 = 600
    private var repeatTimer: EventLoop.TimerID?
    private var repeatKey: UInt32 = 0

    init(registry: OpaquePointer, name: UInt32, version: UInt32, log: Logger, loop: EventLoop) {
        globalName = name
        // v7: keymaps must be mapped MAP_PRIVATE (we do); v8: axis_value120 (handled, unused).
        self.version = min(version, 8)
        self.log = log
        self.loop = loop
        xkbContext = xkb_context_new(XKB_CONTEXT_NO_FLAGS)
        proxy = OpaquePointer(wl_registry_bind(registry, name, kiosk_wl_seat_interface(), self.version))!
        wl_seat_add_listener(proxy, Seat.seatListener, ListenerToken.userData(for: self))
    }

    deinit {
        stopRepeat()
        releaseTouch(); releasePointer(); releaseKeyboard()
        let data = wl_seat_get_user_data(proxy)
        if version >= 5 { wl_seat_release(proxy) } else { wl_seat_destroy(proxy) }
        ListenerToken.release(data)
        if let xkbContext { xkb_context_unref(xkbContext) }
    }

    private func capabilities(_ caps: UInt32) {
        let hasTouch = caps & WL_SEAT_CAPABILITY_TOUCH.rawValue != 0
        let hasPointer = caps & WL_SEAT_CAPABILITY_POINTER.rawValue != 0
        let hasKeyboard = caps & WL_SEAT_CAPABILITY_KEYBOARD.rawValue != 0
        if hasTouch, touch == nil {
            touch = wl_seat_get_touch(proxy)
            wl_touch_add_listener(touch, Seat.touchListener, ListenerToken.userData(for: self))
        } else if !hasTouch { releaseTouch() }
        if hasPointer, pointer == nil {
            pointer = wl_seat_get_pointer(proxy)
            wl_pointer_add_listener(pointer, Seat.pointerListener, ListenerToken.userData(for: self))
        } else if !hasPointer { releasePointer() }
        if hasKeyboard, keyboard == nil {
            keyboard = wl_seat_get_keyboard(proxy)
            wl_keyboard_add_listener(keyboard, Seat.keyboardListener, ListenerToken.userData(for: self))
        } else if !hasKeyboard { releaseKeyboard() }
        log.debug("seat capabilities: touch=\(hasTouch) pointer=\(hasPointer) keyboard=\(hasKeyboard)")
        if self.hasTouch != hasTouch {
            self.hasTouch = hasTouch
            sink?.touchscreen(present: hasTouch)
        }
    }

    private func releaseTouch() {
        guard let t = touch else { return }
        if let b = touches.cancel(at: MonotonicClock.now()) { sink?.handle(b) }
        release(t, wl_touch_get_user_data(t), wl_touch_release, wl_touch_destroy)
        touch = nil
    }
    private func releasePointer() {
        guard let p = pointer else { return }
        if pointerDown { pointerDown = false; deliverPointer(.cancelled) }
        release(p, wl_pointer_get_user_data(p), wl_pointer_release, wl_pointer_destroy)
        pointer = nil
    }
    private func releaseKeyboard() {
        guard let k = keyboard else { return }
        stopRepeat()
        release(k, wl_keyboard_get_user_data(k), wl_keyboard_release, wl_keyboard_destroy)
        keyboard = nil
        if let xkbState { xkb_state_unref(xkbState) }
        if let keymap { xkb_keymap_unref(keymap) }
        xkbState = nil; keymap = nil
    }
    /// Gives a device back: `release` from seat version 3 (the compositor forgets it too),
    /// else only our proxy goes; then the listener's token.
    private func release(_ proxy: OpaquePointer, _ data: UnsafeMutableRawPointer?,
                         _ release: (OpaquePointer?) -> Void, _ destroy: (OpaquePointer?) -> Void) {
        if version >= 3 { release(proxy) } else { destroy(proxy) }
        ListenerToken.release(data)
    }

    // MARK: Touch

    func flushTouches() {
        if let b = touches.frame() { sink?.handle(b) }
    }

    /// Called when every event read from the compositor has been dispatched.
    package func eventsDispatched() {
        Quirks.deliverTouchAtTheEndOfARead(self)
    }

    // MARK: Pointer (button 1 acts as one finger)

    private func deliverPointer(_ phase: TouchPhase) {
        sink?.handle(TouchBatch(time: pointerTime, points: [TouchPoint(id: TouchPoint.pointerID, phase: phase, location: pointerLocation)]))
    }

    // MARK: Keyboard

    private func keymap(format: UInt32, fd: Int32, size: UInt32) {
        defer { close(fd) }
        guard format == WL_KEYBOARD_KEYMAP_FORMAT_XKB_V1.rawValue, xkbContext != nil, size > 0 else {
            log.warning("keyboard: unsupported keymap format \(format); keys are ignored")
            return
        }
        guard let map = mmap(nil, Int(size), PROT_READ, MAP_PRIVATE, fd, 0), map != MAP_FAILED else {
            log.warning("keyboard: cannot map the keymap (\(String(cString: strerror(errno)))); keys are ignored")
            return
        }
        defer { munmap(map, Int(size)) }
        // The keymap string is NUL-terminated within `size` bytes; keep a terminated copy.
        var text = Array(UnsafeBufferPointer(start: map.assumingMemoryBound(to: CChar.self), count: Int(size)))
        if text.last != 0 { text.append(0) }
        pendingKeymap = text
    }

    /// Compiles the keymap received last, if it has not been compiled yet.
    private func compileKeymapIfNeeded() {
        guard let text = pendingKeymap, let ctx = xkbContext else { return }
        pendingKeymap = nil
        let km = text.withUnsafeBufferPointer {
            xkb_keymap_new_from_string(ctx, $0.baseAddress, XKB_KEYMAP_FORMAT_TEXT_V1, XKB_KEYMAP_COMPILE_NO_FLAGS)
        }
        guard let km, let st = xkb_state_new(km) else {
            log.warning("keyboard: the compositor's keymap does not compile; keys are ignored")
            return
        }
        if let xkbState { xkb_state_unref(xkbState) }
        if let keymap { xkb_keymap_unref(keymap) }
        keymap = km
        xkbState = st
        if let m = pendingModifiers { xkb_state_update_mask(st, m.depressed, m.latched, m.locked, 0, 0, m.group) }
        pendingModifiers = nil
    }

    private var modifiers: Modifiers {
        guard let st = xkbState else { return [] }
        var m: Modifiers = []
        func active(_ name: String) -> Bool {
            xkb_state_mod_name_is_active(st, name, XKB_STATE_MODS_EFFECTIVE) > 0
        }
        if active(XKB_MOD_NAME_SHIFT) { m.insert(.shift) }
        if active(XKB_MOD_NAME_CTRL) { m.insert(.control) }
        if active(XKB_MOD_NAME_ALT) { m.insert(.alt) }
        if active(XKB_MOD_NAME_LOGO) { m.insert(.logo) }
        return m
    }

    private func translate(key: UInt32, pressed: Bool, time: Double, isRepeat: Bool) -> KeyEvent? {
        compileKeymapIfNeeded()
        guard let st = xkbState else { return nil }
        let code = key + 8 // evdev → xkb keycode
        let sym = xkb_state_key_get_one_sym(st, code)
        var buf = [CChar](repeating: 0, count: 64)
        let n = xkb_state_key_get_utf8(st, code, &buf, buf.count)
        let text = n > 0 ? String(decoding: buf.prefix(Int(n)).map { UInt8(bitPattern: $0) }, as: UTF8.self) : ""
        return KeyEvent(keysym: sym, text: text, pressed: pressed, isRepeat: isRepeat, modifiers: modifiers, time: time)
    }

    private func key(_ key: UInt32, state: UInt32, time: Double) {
        let pressed = state == WL_KEYBOARD_KEY_STATE_PRESSED.rawValue
        guard let ev = translate(key: key, pressed: pressed, time: time, isRepeat: false) else { return }
        sink?.handle(ev)
        if pressed {
            stopRepeat()
            if let km = keymap, xkb_keymap_key_repeats(km, key + 8) != 0, repeatRate > 0 {
                repeatKey = key
                scheduleRepeat(after: Double(repeatDelay) / 1000)
            }
        } else if key == repeatKey {
            stopRepeat()
        }
    }

    private func scheduleRepeat(after delay: Double) {
        repeatTimer = loop.schedule(after: delay) { [weak self] in
            guard let self else { return }
            // A repeat happens here, on the kiosk's side: now is its time.
            if let ev = self.translate(key: self.repeatKey, pressed: true, time: MonotonicClock.now(), isRepeat: true) { self.sink?.handle(ev) }
            self.scheduleRepeat(after: 1 / Double(self.repeatRate))
        }
    }

    /// An event's `time` (compositor milliseconds) on the monotonic clock.
    private func eventTime(_ milliseconds: UInt32) -> Double {
        inputClock.time(milliseconds: milliseconds, handledAt: MonotonicClock.now())
    }
    private func stopRepeat() {
        if let t = repeatTimer { loop.cancel(t) }
        repeatTimer = nil
        repeatKey = 0
    }

    // MARK: Listener tables (every event has a handler: libwayland aborts on a NULL one)

    nonisolated(unsafe) private static let seatListener = makeListener(wl_seat_listener(
        capabilities: { data, _, caps in ListenerToken.owner(data, as: Seat.self)?.capabilities(caps) },
        name: { _, _, _ in }
    ))

    nonisolated(unsafe) private static let touchListener = makeListener(wl_touch_listener(
        down: { data, _, _, time, _, id, x, y in
            guard let s = ListenerToken.owner(data, as: Seat.self) else { return }
            s.touches.down(id: id, at: s.touchTransform.apply(Point(x: wl_fixed_to_double(x), y: wl_fixed_to_double(y))), time: s.eventTime(time))
        },
        up: { data, _, _, time, id in
            guard let s = ListenerToken.owner(data, as: Seat.self) else { return }
            Quirks.deliverTheLastUpWithoutAFrame(s, wasLastFinger: s.touches.up(id: id, time: s.eventTime(time)))
        },
        motion: { data, _, time, id, x, y in
            guard let s = ListenerToken.owner(data, as: Seat.self) else { return }
            s.touches.motion(id: id, to: s.touchTransform.apply(Point(x: wl_fixed_to_double(x), y: wl_fixed_to_double(y))), time: s.eventTime(time))
        },
        frame: { data, _ in
            guard let s = ListenerToken.owner(data, as: Seat.self) else { return }
            s.touchFramesSeen = true
            s.flushTouches()
        },
        cancel: { data, _ in
            guard let s = ListenerToken.owner(data, as: Seat.self) else { return }
            if let b = s.touches.cancel(at: MonotonicClock.now()) { s.sink?.handle(b) }
        },
        shape: { _, _, _, _, _ in },
        orientation: { _, _, _, _ in }
    ))

    // Built against Debian 12's and 13's libwayland headers alike: events a newer header adds
    // (axis_relative_direction, wl_seat 9) stay nil, and the seat is bound at 8, so none is sent.
    nonisolated(unsafe) private static let pointerListener: UnsafeMutablePointer<wl_pointer_listener> = {
        var l = wl_pointer_listener()
        l.enter = { data, pointer, serial, _, x, y in
            guard let s = ListenerToken.owner(data, as: Seat.self) else { return }
            // A kiosk shows no cursor: a touch panel reports no pointer, a mouse is for service.
            wl_pointer_set_cursor(pointer, serial, nil, 0, 0)
            s.pointerLocation = Point(x: wl_fixed_to_double(x), y: wl_fixed_to_double(y))
            s.log.debug("pointer entered at \(Int(s.pointerLocation.x)),\(Int(s.pointerLocation.y))")
        }
        l.leave = { data, _, _, _ in
            guard let s = ListenerToken.owner(data, as: Seat.self), s.pointerDown else { return }
            s.pointerDown = false
            s.deliverPointer(.cancelled)
        }
        l.motion = { data, _, time, x, y in
            guard let s = ListenerToken.owner(data, as: Seat.self) else { return }
            s.pointerLocation = Point(x: wl_fixed_to_double(x), y: wl_fixed_to_double(y))
            s.pointerTime = s.eventTime(time)
            if s.pointerDown { s.deliverPointer(.moved) }
        }
        l.button = { data, _, _, time, button, state in
            // BTN_LEFT from linux/input-event-codes.h.
            guard let s = ListenerToken.owner(data, as: Seat.self), button == 0x110 else { return }
            s.pointerTime = s.eventTime(time)
            let pressed = state == WL_POINTER_BUTTON_STATE_PRESSED.rawValue
            guard pressed != s.pointerDown else { return }
            s.pointerDown = pressed
            s.deliverPointer(pressed ? .began : .ended)
        }
        l.axis = { _, _, _, _, _ in }
        l.frame = { _, _ in }
        l.axis_source = { _, _, _ in }
        l.axis_stop = { _, _, _, _ in }
        l.axis_discrete = { _, _, _, _ in }
        l.axis_value120 = { _, _, _, _ in }
        return makeListener(l)
    }()

    nonisolated(unsafe) private static let keyboardListener = makeListener(wl_keyboard_listener(
        keymap: { data, _, format, fd, size in
            guard let s = ListenerToken.owner(data, as: Seat.self) else { close(fd); return }
            s.keymap(format: format, fd: fd, size: size)
        },
        enter: { _, _, _, _, _ in },
        leave: { data, _, _, _ in ListenerToken.owner(data, as: Seat.self)?.stopRepeat() },
        key: { data, _, _, time, key, state in
            guard let s = ListenerToken.owner(data, as: Seat.self) else { return }
            s.key(key, state: state, time: s.eventTime(time))
        },
        modifiers: { data, _, _, dep, lat, lock, group in
            guard let s = ListenerToken.owner(data, as: Seat.self) else { return }
            if s.pendingKeymap != nil { s.pendingModifiers = (dep, lat, lock, group); return }
            guard let st = s.xkbState else { return }
            xkb_state_update_mask(st, dep, lat, lock, 0, 0, group)
        },
        repeat_info: { data, _, rate, delay in
            guard let s = ListenerToken.owner(data, as: Seat.self) else { return }
            s.repeatRate = max(0, rate)
            s.repeatDelay = max(0, delay)
        }
    ))
}
