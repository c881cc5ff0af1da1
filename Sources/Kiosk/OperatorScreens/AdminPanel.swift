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

    static var maxTries: Int { AdminLock.maxTries }
    static var lockout: Double { AdminLock.lockout }
    /// Closes by itself after this long without a touch.
    static let inactivity = 90.0

    /// The kiosk's own rows, after the scenes' (`SceneDescription.adminRows`).
    static let kioskRows = [
        AdminRow(name: "screensaver", setting: "shell.idle_timeout", title: "admin.idle",
                 control: .steps([0, 30, 60, 120, 300, 600, 1800, 3600], describe: describeIdle)),
        AdminRow(name: "rotation", setting: "shell.rotate", title: "admin.rotation",
                 control: .choices([AdminRow.Choice(TOML.quoted("auto"), title: "Auto", key: "admin.rotation.auto")]
                                   + [0, 90, 180, 270].map { AdminRow.Choice("\($0)", title: "\($0)°") },
                                   unset: { _ in TOML.quoted("auto") })),
    ]

    /// Each row's setting as the file would write it: what the operator sees and changes.
    private(set) var values: [String: String] = [:]
    private var initial: [String: String] = [:]
    /// Only what the operator changed here, so values from the file or the command line are not
    /// frozen into the panel's settings by a Save.
    var changes: PanelSettings { PanelSettings(values.filter { initial[$0.key] != $0.value }) }
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
    /// Which panel this is (host, addresses, version, uptime, last update), where the PIN's
    /// message would be; nil in headless renders (their pictures stay the same on every machine).
    private let identity: PanelIdentity?
    private let identityLine = Label()
    // Settings page: a row for each setting (`spec`), then the touchscreen's (no spec).
    private struct Row {
        let spec: AdminRow?
        let name = Label(), value = Label()
        var buttons: [Button] = []
    }
    private let specs: [AdminRow]
    private var rows: [Row] = []
    private let footer = [Button(), Button(), Button()]
    // PIN page
    private let dots = Label()
    private var keys: [Button] = []

    /// `lock` is the kiosk's: wrong PINs counted by an earlier panel still count here.
    init(fonts: FontCache, scheduler: Scheduler, settings: Settings, lock: AdminLock = AdminLock(), identity: PanelIdentity? = nil,
         onFinish: @escaping (Outcome) -> Void) {
        self.identity = identity
        specs = settings.catalog.adminRows + AdminPanel.kioskRows
        pin = settings.adminPIN
        touchMatrix = settings.touchMatrix
        self.lock = lock
        unlocked = settings.adminPIN == nil
        self.onFinish = onFinish
        super.init(name: "admin", fonts: fonts, scheduler: scheduler, texts: OperatorTexts.table)
        texts = settings.kioskTexts
        values = Self.shown(specs, of: settings, in: texts)
        initial = values
        refresh()
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
        identityLine.isUserInteractionEnabled = false
        identityLine.alignment = .center
        identityLine.numberOfLines = 2
        identityLine.fontSize = 13
        identityLine.textColor = Color.mist
        identityLine.accessibilityIdentifier = "admin identity"
        card.addSubview(identityLine)
        title.fontSize = 26
        message.fontSize = 17
        message.textColor = Color.amber
        dots.fontSize = 34
        // Settings rows: a name, the value, and buttons that change it; named in the journal and
        // for tests by the row's name and the button's English title ("admin words +").
        for (ri, spec) in (specs.map { Optional($0) } + [nil]).enumerated() {
            var row = Row(spec: spec)
            for l in [row.name, row.value] { l.fontSize = 20; l.textColor = Color.paper; l.isUserInteractionEnabled = false; card.addSubview(l) }
            row.name.numberOfLines = 2
            row.value.alignment = .center
            for (bi, t) in (spec?.buttonNames ?? AdminPanel.touchButtons).enumerated() {
                let b = makeButton(t) { [unowned self] _ in self.changed(row: ri, button: bi) }
                b.accessibilityIdentifier = "admin \(spec?.name ?? "touch") \(t)"
                row.buttons.append(b)
            }
            rows.append(row)
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

    /// Each row's setting as the file would write it; a choice's setting without a value of its
    /// own (one derived from the language) as the choice it comes to.
    private static func shown(_ specs: [AdminRow], of settings: Settings, in texts: Texts) -> [String: String] {
        let declared = Settings.declarations(for: settings.catalog)
        var values: [String: String] = [:]
        for spec in specs {
            let value = declared.first { $0.key == spec.setting }?.value?(settings) ?? ""
            if case .choices(let choices, let unset) = spec.control, !choices.contains(where: { $0.value == value }) {
                values[spec.setting] = unset(texts)
            } else {
                values[spec.setting] = value
            }
        }
        return values
    }

    /// The touchscreen's row: its buttons open the setup's steps.
    private static let touchButtons = ["Test", "Calibrate", "Setup"]

    override func applyTexts() {
        for r in rows {
            guard let spec = r.spec else {
                r.name.text = texts[touchMatrix == nil ? "admin.touch" : "admin.touch.calibrated"]
                for (b, key) in zip(r.buttons, ["admin.test", "admin.calibrate", "admin.setup"]) { b.title = texts[key] }
                continue
            }
            r.name.text = texts[spec.title]
            if case .choices(let choices, _) = spec.control {
                for (b, c) in zip(r.buttons, choices) { b.title = c.key.map { texts[$0] } ?? c.title }
            }
        }
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
        guard let spec = rows[row].spec else { return finish(.setup([.touch, .calibrate, .touch][button], changes)) }
        switch spec.control {
        case .steps(let list, _):
            let v = Double(values[spec.setting] ?? "") ?? list[0]
            let i = list.firstIndex { $0 >= v - 1e-9 } ?? list.count - 1
            let onStep = abs(list[i] - v) < 1e-9
            values[spec.setting] = format(list[max(0, min(list.count - 1, button == 1 ? (onStep ? i + 1 : i) : i - 1))])
        case .choices(let choices, _):
            values[spec.setting] = choices[button].value
        }
        refresh()
    }

    @Sendable static func describeIdle(_ t: Double, _ texts: Texts) -> String {
        if t <= 0 { return texts["admin.idle.never"] }
        if t < 60 { return texts("admin.idle.seconds", ["n": String(Int(t))]) }
        if t < 3600 { return texts("admin.idle.minutes", ["n": String(Int(t / 60))]) }
        return texts("admin.idle.hours", ["n": String(Int(t / 3600))])
    }

    private func refresh() {
        let accent = Color.sky, plain = Color.dusk
        title.text = texts[unlocked ? "admin.title" : "admin.enterPIN"]
        dots.text = String(repeating: "●", count: entered.count)
        for r in rows {
            switch r.spec?.control {
            case .steps(let list, let describe)?:
                r.value.text = describe(Double(values[r.spec!.setting] ?? "") ?? list[0], texts)
            case .choices(let choices, let unset)?:
                let given = values[r.spec!.setting] ?? ""
                let lit = choices.contains { $0.value == given } ? given : unset(texts)
                for (b, c) in zip(r.buttons, choices) { b.backgroundColor = c.value == lit ? accent : plain }
            case nil:
                break
            }
        }
        for r in rows { r.name.isHidden = !unlocked; r.value.isHidden = !unlocked; r.buttons.forEach { $0.isHidden = !unlocked } }
        footer[0].isHidden = !unlocked
        footer[2].isHidden = !unlocked
        for k in keys {
            k.isHidden = unlocked
            k.isEnabled = !lock.isResting(at: view.scheduler.now)
        }
        dots.isHidden = unlocked
        identityLine.text = identity?.line(texts) ?? ""
        identityLine.isHidden = !unlocked || !message.text.isEmpty
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
        identityLine.frame = Rect(x: pad, y: h - pad - rowH - messageH - 6, width: w - 2 * pad, height: messageH + 4)
        var y = pad + titleH
        if unlocked {
            for r in rows {
                let stepper: Bool
                if case .steps? = r.spec?.control { stepper = true } else { stepper = false }
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
