import KioskCore
import KioskRender
import KioskUI
import KioskScenes

/// The operator's settings panel, opened by the hidden admin gesture: the settings a touch can
/// change (falling-words speed, lander pad side, screensaver delay, rotation), behind an
/// optional PIN. It never edits the settings file: what it saves is kept in the state store and
/// applied over the file (see `PanelSettings`); "Use file settings" drops it again.
final class AdminPanel: ViewScene {
    enum Outcome: Equatable {
        case cancel, save(PanelSettings), useFile
        /// The setup screen at a step (the touch test, calibration, all of it), after keeping
        /// what was changed here.
        case setup(SetupScene.Step, PanelSettings)
    }

    static let speeds: [Double] = [30, 60, 90, 120, 150, 200, 300, 400, 600]
    static let idleTimes: [Double] = [0, 30, 60, 120, 300, 600, 1800, 3600]
    static var maxTries: Int { AdminLock.maxTries }
    static var lockout: Double { AdminLock.lockout }
    /// Closes by itself after this long without a touch.
    static let inactivity = 90.0

    private(set) var values: PanelSettings
    private let initial: PanelSettings
    /// Only what the operator changed here, so values from the file or the command line are not
    /// frozen into the panel's settings by a Save.
    var changes: PanelSettings {
        PanelSettings(speed: values.speed != initial.speed ? values.speed : nil,
                      padLeft: values.padLeft != initial.padLeft ? values.padLeft : nil,
                      idleTimeout: values.idleTimeout != initial.idleTimeout ? values.idleTimeout : nil,
                      rotate: values.rotate != initial.rotate ? values.rotate : nil)
    }
    private let pin: String?
    /// libinput's matrix in force (the file's or the setup's), shown on the touch row.
    private let touchMatrix: [Double]?
    private let lock: AdminLock
    private let onFinish: (Outcome) -> Void
    private(set) var unlocked: Bool
    private var entered = ""
    private var inactivityTimer: ScheduledTimer?

    private let card = View()
    private let title = Label()
    private let message = Label()
    // Settings page
    private var rows: [(name: Label, value: Label, buttons: [Button])] = []
    private let footer = [Button(), Button(), Button()]
    // PIN page
    private let dots = Label()
    private var keys: [Button] = []

    /// `lock` is the kiosk's: wrong PINs counted by an earlier panel still count here.
    init(fonts: FontCache, scheduler: Scheduler, settings: Settings, lock: AdminLock = AdminLock(),
         onFinish: @escaping (Outcome) -> Void) {
        let padSide = settings.padSide ?? .trailing(rightToLeft: settings.language.isRightToLeft)
        values = PanelSettings(speed: settings.words.speed, padLeft: padSide == .left,
                               idleTimeout: settings.idleTimeout, rotate: settings.rotate.quarterTurns)
        initial = values
        pin = settings.adminPIN
        touchMatrix = settings.touchMatrix
        self.lock = lock
        unlocked = settings.adminPIN == nil
        self.onFinish = onFinish
        super.init(name: "admin", fonts: fonts, scheduler: scheduler)
        texts = settings.kioskTexts
        if !unlocked, lock.isResting(at: scheduler.now) { resting() }
    }

    override func build(in view: SceneView) {
        view.backgroundColor = Color(rgb: 0x0d1117)
        // Any touch keeps the panel open (see `inactivity`).
        view.touchObserver = { [unowned self] _ in self.touched() }
        card.backgroundColor = Color(rgb: 0x1c2330)
        card.cornerRadius = 14
        view.addSubview(card)
        for l in [title, message, dots] {
            l.alignment = .center
            l.textColor = Color.paper
            l.isUserInteractionEnabled = false
            card.addSubview(l)
        }
        title.fontSize = 26
        message.fontSize = 17
        message.textColor = Color.amber
        dots.fontSize = 34
        // Settings rows: a name, the value, and buttons that change it.
        // Each row: its name in the journal and controls' labels, and its buttons'.
        for (ri, spec) in AdminPanel.rowSpecs.enumerated() {
            let name = Label(), value = Label()
            for l in [name, value] { l.fontSize = 20; l.textColor = Color.paper; l.isUserInteractionEnabled = false; card.addSubview(l) }
            name.numberOfLines = 2
            value.alignment = .center
            var buttons: [Button] = []
            for (bi, t) in spec.1.enumerated() {
                let b = makeButton(t) { [unowned self] _ in self.changed(row: ri, button: bi) }
                b.accessibilityIdentifier = "admin \(spec.0) \(t)"
                buttons.append(b)
            }
            rows.append((name, value, buttons))
        }
        for (i, t) in ["use file settings", "cancel", "save"].enumerated() {
            footer[i].accessibilityIdentifier = "admin \(t)"
            styleButton(footer[i])
            footer[i].action = { [unowned self] _ in
                switch i {
                case 0: self.finish(.useFile)
                case 1: self.finish(.cancel)
                default: self.finish(.save(self.changes))
                }
            }
            card.addSubview(footer[i])
        }
        for t in ["1", "2", "3", "4", "5", "6", "7", "8", "9", "⌫", "0", "OK"] {
            keys.append(makeButton(t) { [unowned self] _ in self.key(t) })
            keys.last!.accessibilityIdentifier = "admin key \(t == "⌫" ? "back" : t)"
        }
        refresh()
    }

    /// The rows: a name for labels and logs, and the buttons' (English, as the tests find them).
    private static let rowSpecs: [(String, [String])] = [("words", ["−", "+"]), ("lander", ["Left", "Right"]),
                                                         ("screensaver", ["−", "+"]), ("rotation", ["0°", "90°", "180°", "270°"]),
                                                         ("touch", ["Test", "Calibrate", "Setup"])]

    override func applyTexts() {
        let names = ["admin.speed", "admin.pad", "admin.idle", "admin.rotation",
                     touchMatrix == nil ? "admin.touch" : "admin.touch.calibrated"]
        for (r, key) in zip(rows, names) { r.name.text = texts[key] }
        for (b, key) in zip(rows[1].buttons, ["admin.left", "admin.right"]) { b.title = texts[key] }
        for (b, key) in zip(rows[4].buttons, ["admin.test", "admin.calibrate", "admin.setup"]) { b.title = texts[key] }
        for (b, key) in zip(footer, ["admin.useFile", "admin.cancel", "admin.save"]) { b.title = texts[key] }
        keys.last?.title = texts["key.ok"]
        refresh()
    }

    private func makeButton(_ title: String, _ action: @escaping (Button) -> Void) -> Button {
        let b = Button()
        b.title = title
        b.action = { [unowned self] btn in self.touched(); action(btn) }
        styleButton(b)
        card.addSubview(b)
        return b
    }
    private func styleButton(_ b: Button) {
        b.backgroundColor = Color.dusk
        b.cornerRadius = 10
        b.titleLabel.fontSize = 20
        // Longer words in some languages ("Kalibrieren"): smaller rather than cut.
        b.titleLabel.adjustsFontSizeToFitWidth = true
        b.titleLabel.minimumScaleFactor = 0.7
        b.titleLabel.textColor = Color.paper
    }

    override func setActive(_ active: Bool) {
        super.setActive(active)
        if active { touched() } else { inactivityTimer?.cancel(); inactivityTimer = nil }
    }
    private func touched() {
        inactivityTimer?.cancel()
        inactivityTimer = view.scheduler.schedule(after: AdminPanel.inactivity) { [weak self] in self?.finish(.cancel) }
    }
    override func handle(_ key: KeyEvent) {
        guard key.pressed else { return }
        touched()
        switch key.keysym {
        case Key.escape: finish(.cancel)
        case Key.return, Key.keypadEnter: if unlocked { finish(.save(changes)) } else { self.key("OK") }
        case Key.backSpace: if !unlocked { self.key("⌫") }
        default: if !unlocked, key.text.count == 1, key.text.first!.isNumber { self.key(key.text) }
        }
    }

    private var finished = false
    private func finish(_ o: Outcome) {
        guard !finished else { return }
        finished = true
        inactivityTimer?.cancel()
        onFinish(o)
    }

    // MARK: PIN

    private func key(_ k: String) {
        guard !unlocked, let pin, !lock.isResting(at: view.scheduler.now) else { return }
        switch k {
        case "⌫": if !entered.isEmpty { entered.removeLast() }
        case "OK":
            switch lock.check(entered, pin: pin, at: view.scheduler.now) {
            case .unlocked:
                unlocked = true
                message.text = ""
                layout(view: view) // the settings page replaces the keypad
            case .wrong:
                message.text = texts["admin.wrongPIN"]
            case .resting:
                resting()
            }
            entered = ""
        default: if entered.count < 8 { entered += k }
        }
        refresh()
    }

    /// The keypad rests until the kiosk's lock lets it try again.
    private func resting() {
        let wait = lock.lockedUntil - view.scheduler.now
        message.text = texts("admin.resting", ["n": String(Int(wait.rounded(.up)))])
        view.scheduler.schedule(after: wait) { [weak self] in self?.message.text = ""; self?.refresh() }
    }

    // MARK: Values

    private func changed(row: Int, button: Int) {
        func step(_ list: [Double], _ v: Double?, _ up: Bool) -> Double {
            let i = list.firstIndex { $0 >= (v ?? list[0]) - 1e-9 } ?? list.count - 1
            let onStep = abs(list[i] - (v ?? list[0])) < 1e-9
            return list[max(0, min(list.count - 1, up ? (onStep ? i + 1 : i) : i - 1))]
        }
        switch row {
        case 0: values.speed = step(AdminPanel.speeds, values.speed, button == 1)
        case 1: values.padLeft = button == 0
        case 2: values.idleTimeout = step(AdminPanel.idleTimes, values.idleTimeout, button == 1)
        case 3: values.rotate = button
        default: finish(.setup([.touch, .calibrate, .touch][button], changes))
        }
        refresh()
    }

    static func describeIdle(_ t: Double, _ texts: Texts = Texts()) -> String {
        if t <= 0 { return texts["admin.idle.never"] }
        if t < 60 { return texts("admin.idle.seconds", ["n": String(Int(t))]) }
        if t < 3600 { return texts("admin.idle.minutes", ["n": String(Int(t / 60))]) }
        return texts("admin.idle.hours", ["n": String(Int(t / 3600))])
    }

    private func refresh() {
        let accent = Color.sky, plain = Color.dusk
        title.text = texts[unlocked ? "admin.title" : "admin.enterPIN"]
        dots.text = String(repeating: "●", count: entered.count)
        rows[0].value.text = texts("admin.speed.value", ["n": String(Int(values.speed ?? 150))])
        rows[1].value.text = ""
        rows[2].value.text = AdminPanel.describeIdle(values.idleTimeout ?? 120, texts)
        rows[3].value.text = ""
        rows[1].buttons[0].backgroundColor = values.padLeft == true ? accent : plain
        rows[1].buttons[1].backgroundColor = values.padLeft == true ? plain : accent
        for (i, b) in rows[3].buttons.enumerated() { b.backgroundColor = (values.rotate ?? 0) == i ? accent : plain }
        for r in rows { r.name.isHidden = !unlocked; r.value.isHidden = !unlocked; r.buttons.forEach { $0.isHidden = !unlocked } }
        footer[0].isHidden = !unlocked
        footer[2].isHidden = !unlocked
        for k in keys {
            k.isHidden = unlocked
            k.isEnabled = !lock.isResting(at: view.scheduler.now)
        }
        dots.isHidden = unlocked
    }

    // MARK: Layout

    override func layout(view: SceneView) {
        let size = view.bounds.size
        let mm = view.info.pointsPerMillimetre
        // On a short panel the spacing tightens and the rows shrink to fit, never below 9 mm.
        let tight = size.height < 640
        let gap = tight ? 6.0 : 10, pad = tight ? 12.0 : 20, titleH = tight ? 44.0 : 60, messageH = 30.0
        let rowCount = Double(unlocked ? rows.count : 4), dotsH = unlocked ? 0.0 : 50
        let fits = (size.height - 24 - 2 * pad - titleH - dotsH - messageH - rowCount * gap) / (rowCount + 1)
        let rowH = max(9 * mm, min(max(48, 11 * mm), fits))
        let w = min(620, size.width - 24)
        let contentH = titleH + dotsH + rowCount * (rowH + gap) + messageH + rowH
        let h = min(size.height - 24, contentH + 2 * pad)
        card.frame = Rect(x: (size.width - w) / 2, y: (size.height - h) / 2, width: w, height: h)
        title.frame = Rect(x: pad, y: pad, width: w - 2 * pad, height: 40)
        message.frame = Rect(x: pad, y: h - pad - rowH - messageH, width: w - 2 * pad, height: 28)
        var y = pad + titleH
        if unlocked {
            for (ri, r) in rows.enumerated() {
                let stepper = ri == 0 || ri == 2
                r.name.frame = Rect(x: pad, y: y, width: 200, height: rowH)
                let bw = stepper ? rowH * 1.3 : (w - 2 * pad - 210) / Double(r.buttons.count) - 6
                if stepper {
                    let right = w - pad
                    r.buttons[1].frame = Rect(x: right - bw, y: y, width: bw, height: rowH)
                    r.value.frame = Rect(x: right - bw - 150, y: y, width: 150, height: rowH)
                    r.buttons[0].frame = Rect(x: right - 2 * bw - 150, y: y, width: bw, height: rowH)
                } else {
                    for (i, b) in r.buttons.enumerated() {
                        b.frame = Rect(x: pad + 210 + Double(i) * (bw + 6), y: y, width: bw, height: rowH)
                    }
                    r.value.frame = .zero
                }
                y += rowH + gap
            }
        } else {
            dots.frame = Rect(x: pad, y: y, width: w - 2 * pad, height: 44)
            y += dotsH
            let kw = min(110, (w - 2 * pad - 2 * gap) / 3)
            let x0 = (w - 3 * kw - 2 * gap) / 2
            for (i, k) in keys.enumerated() {
                let kh = (4 * (rowH + gap) - 4 * gap) / 4
                k.frame = Rect(x: x0 + Double(i % 3) * (kw + gap), y: y + Double(i / 3) * (kh + gap), width: kw, height: kh)
            }
        }
        let fw = (w - 2 * pad - 2 * gap) / 3
        for (i, b) in footer.enumerated() {
            b.frame = Rect(x: pad + Double(i) * (fw + gap), y: h - pad - rowH, width: fw, height: rowH)
        }
        // Mirrored for a right-to-left language; a keypad keeps its order, as phones' do.
        if view.isRightToLeft { card.mirrorHorizontally(card.subviews.filter { v in !keys.contains { $0 === v } }) }
    }
}

/// The admin PIN's guard for the whole kiosk: the wrong tries and the rest after too many belong
/// to the kiosk, not to one panel, so closing the panel and making the gesture again gives no
/// fresh tries (it used to: the right PIN was accepted 6 s into a 60 s rest).
final class AdminLock {
    /// Wrong PINs before the keypad rests, and for how long.
    static let maxTries = 5, lockout = 60.0
    private(set) var wrongTries = 0
    private(set) var lockedUntil = -Double.infinity

    enum Verdict: Equatable { case unlocked, wrong(triesLeft: Int), resting }

    func isResting(at now: Double) -> Bool { now < lockedUntil }

    func check(_ entered: String, pin: String, at now: Double) -> Verdict {
        if isResting(at: now) { return .resting }
        if entered == pin { wrongTries = 0; return .unlocked }
        wrongTries += 1
        guard wrongTries >= AdminLock.maxTries else { return .wrong(triesLeft: AdminLock.maxTries - wrongTries) }
        wrongTries = 0
        lockedUntil = now + AdminLock.lockout
        return .resting
    }
}
