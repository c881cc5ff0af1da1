import KioskCore
import KioskRender
import KioskUI
import KioskScenes

/// What the setup reads of the panel it calibrates (the stage, in the running kiosk). It
/// changes it only through `onPreview`: the settings, which the stage follows.
protocol SetupStage: AnyObject {
    /// The calibration with `fit` (found in scene coordinates, with the current calibration
    /// applied to the taps) composed on top, as libinput's matrix for the window.
    func touchMatrix(after fit: AffineTransform) -> [Double]
    /// The picture's turn in force (a fixed `rotate`, or the accelerometer's).
    var rotation: Rotation { get }
}

/// The first-start setup, walked with a finger alone: a touch check, calibration, rotation,
/// the admin PIN and the visitors' scenes, each skippable; "Start the kiosk" keeps the choices
/// (`SetupChoices`). The admin panel opens it again at any step. A container of steps, as a
/// UIKit container view controller: the touch check is the touch test scene's own view.
final class SetupScene: ViewScene {
    enum Step: Int, CaseIterable {
        case touch, calibrate, rotate, pin, scenes
        /// The step's name in the journal, in controls' labels and in its text keys.
        var name: String { ["touch", "calibrate", "rotate", "pin", "scenes"][rawValue] }
    }

    private(set) var step: Step
    private(set) var choices: SetupChoices
    /// What the file sets: the steps it decides say so.
    private let fileKeys: Set<String>
    private let filePath: String
    private weak var stage: SetupStage?
    private let onFinish: (SetupChoices) -> Void
    /// What the installer did, for the journal ("calibrated: …", "PIN set").
    var onNotice: ((String) -> Void)?
    /// The choices so far, for the panel to show at once (a turn, a calibration): the settings'
    /// setup preview (`SettingsController.previewSetup`).
    var onPreview: ((SetupChoices) -> Void)?
    /// The screen was laid out anew (a step, a target, a turn): where its controls are changed.
    var onRelayout: (() -> Void)?
    /// Opened from the admin panel: "Done" rather than "Start the kiosk".
    private let fromAdmin: Bool
    /// The kiosk's words in a language, with the operator's own (`[text]`).
    private let textsFor: (Language) -> Texts

    let touchTest: TouchTestScene
    private let header = View(), footer = View()
    private let titleLabel = Label(), note = Label()
    let finishButton = Button(), nextButton = Button()
    private(set) var stepButtons: [Button] = []
    private var pages: [Step: View] = [:]
    let calibration = CalibrationStep()
    let rotation = RotationStep()
    let pin = PINStep()
    let scenes: ScenesStep

    init(fonts: FontCache, scheduler: Scheduler, settings: Settings, saved: SetupChoices?, filePath: String?,
         stage: SetupStage?, step: Step = .touch, fromAdmin: Bool = false, catalog: SceneCatalog = .standard,
         onFinish: @escaping (SetupChoices) -> Void) {
        self.step = step
        scenes = ScenesStep(catalog: catalog, languages: settings.knownLanguages)
        var c = saved ?? SetupChoices()
        c.done = true
        choices = c
        fileKeys = settings.fileKeys
        self.filePath = filePath ?? "kiosk.toml"
        self.stage = stage
        self.fromAdmin = fromAdmin
        self.onFinish = onFinish
        textsFor = settings.texts(for:)
        touchTest = TouchTestScene(fonts: fonts, scheduler: scheduler)
        super.init(name: "setup", fonts: fonts, scheduler: scheduler, texts: OperatorTexts.table)
        scenes.choose(visible: settings.scenes.filter(catalog.visitorScenes.contains), start: settings.start)
        scenes.language = settings.language
        rotation.current = settings.rotate
        // The operator's language, whatever a visitor chose last.
        texts = settings.kioskTexts
    }

    /// The installer of a new panel may step away: the first start's setup waits for them. One
    /// an operator opened from the admin panel gives way to the screensaver, as the panel does.
    override var yieldsToScreensaver: Bool { fromAdmin }

    override func build(in view: SceneView) {
        view.backgroundColor = Color.ink
        touchTest.isHostedElsewhere = true
        view.addSubview(touchTest.view)
        // The touch test's own observer first, then the hold that starts calibrating.
        let markers = touchTest.view.touchObserver
        touchTest.view.touchObserver = { [unowned self] batch in
            markers?(batch)
            self.watchForHold(batch)
        }
        for step in Step.allCases where step != .touch {
            let page = [.calibrate: calibration.page, .rotate: rotation.page, .pin: pin.page, .scenes: scenes.page][step]!
            pages[step] = page
            view.addSubview(page)
        }
        buildBars(in: view)
        view.addSubview(calibration.catcher)
        wireSteps()
        for step in [calibration as SetupPage, rotation, pin, scenes] { step.build() }
        go(to: step)
    }

    /// The steps and the finish above, the hint and Next below.
    private func buildBars(in view: SceneView) {
        header.backgroundColor = SetupStyle.bar
        footer.backgroundColor = SetupStyle.bar
        view.addSubview(header)
        view.addSubview(footer)
        titleLabel.fontSize = 24
        titleLabel.textColor = Color.paper
        titleLabel.isUserInteractionEnabled = false
        header.addSubview(titleLabel)
        for s in Step.allCases {
            let b = SetupStyle.button("") { [unowned self] _ in self.go(to: s) }
            b.accessibilityIdentifier = "setup step \(s.name)"
            stepButtons.append(b)
            header.addSubview(b)
        }
        SetupStyle.style(finishButton, accent: true)
        finishButton.action = { [unowned self] _ in self.finish() }
        finishButton.accessibilityIdentifier = "setup finish"
        nextButton.accessibilityIdentifier = "setup next"
        header.addSubview(finishButton)
        note.fontSize = 17
        note.textColor = Color.amber
        note.numberOfLines = 0
        note.isUserInteractionEnabled = false
        footer.addSubview(note)
        SetupStyle.style(nextButton, accent: false)
        nextButton.action = { [unowned self] _ in
            if let next = Step(rawValue: self.step.rawValue + 1) { self.go(to: next) } else { self.finish() }
        }
        footer.addSubview(nextButton)
    }

    /// What each step's page tells the setup: kept as a choice, applied live, said in the journal.
    private func wireSteps() {
        calibration.onChange = { [unowned self] in self.refresh() }
        calibration.onFit = { [unowned self] fit in self.calibrated(fit) }
        calibration.onReset = { [unowned self] in
            self.choices.touchMatrix = TouchCalibration.identityMatrix
            self.onPreview?(self.choices)
            self.onNotice?("calibration reset: touches are used as the panel sends them")
            self.refresh()
        }
        rotation.onChoose = { [unowned self] r in
            self.choices.rotate = r.quarterTurns
            self.onPreview?(self.choices)
            self.onNotice?("rotation \(r.degrees)°")
            self.onRelayout?()
        }
        rotation.onChecked = { [unowned self] in self.onNotice?("the check tap landed on the circle") }
        pin.onSet = { [unowned self] p in self.choices.pin = p; self.onNotice?("PIN set"); self.refresh() }
        scenes.onChange = { [unowned self] visible, start in
            self.choices.scenes = visible
            self.choices.start = start
            self.onNotice?("visitors' scenes: \(visible.joined(separator: ", ")); start on \(start)")
        }
        scenes.onLanguage = { [unowned self] l in
            self.choices.language = l.code
            self.onNotice?("language \(l.code)")
            self.texts = self.textsFor(l)
            self.onRelayout?()
        }
    }

    // MARK: Hold anywhere to calibrate

    /// A panel whose touch lands far from the finger cannot hit the Calibrate button: one
    /// finger held still anywhere on the touch check for this long starts calibrating.
    static let holdToCalibrate = 3.0
    private var hold: (id: Int32, start: Point, time: Double, timer: ScheduledTimer?)?
    /// Fingers down on the touch check: a hold counts only alone (two held fingers are a test).
    private var fingersDown: Set<Int32> = []

    private func watchForHold(_ batch: TouchBatch) {
        let still = 10 * view.info.pointsPerMillimetre
        for p in batch.points {
            switch p.phase {
            case .began:
                hold?.timer?.cancel()
                hold = nil
                fingersDown.insert(p.id)
                guard fingersDown.count == 1 else { continue }
                let wait = Self.holdToCalibrate - (view.scheduler.now - batch.time)
                let timer = view.scheduler.schedule(after: wait) { [weak self] in self?.held(p.id) }
                hold = (p.id, p.location, batch.time, timer)
            case .moved:
                if let h = hold, h.id == p.id, p.location.distance(to: h.start) > still { hold?.timer?.cancel(); hold = nil }
            case .ended, .cancelled:
                fingersDown.remove(p.id)
                guard let h = hold, h.id == p.id else { continue }
                h.timer?.cancel()
                hold = nil
                // Held long enough by its own times, though the timer has not run yet (a busy frame).
                if p.phase == .ended, batch.time - h.time >= Self.holdToCalibrate, p.location.distance(to: h.start) <= still { go(to: .calibrate) }
            }
        }
    }

    private func held(_ id: Int32) {
        guard let h = hold, h.id == id, step == .touch else { return }
        hold = nil
        go(to: .calibrate)
    }

    /// "Start the kiosk" or "Done" was pressed: its choices are kept (else dropped when it leaves).
    private(set) var finished = false
    private func finish() {
        guard !finished else { return }
        finished = true
        onFinish(choices)
    }

    func go(to s: Step) {
        let moved = s != step
        if moved { onNotice?("step \(s.name)") }
        step = s
        if s == .calibrate, !calibration.hasResult { calibration.begin(in: view.bounds.size, mm: view.info.pointsPerMillimetre) }
        else if s != .calibrate { calibration.stopCollecting() }
        refresh()
        // With speech on, the new step is said: its name, then what to do there.
        if moved { view.root?.screenReader.announce("\(stepButtons[s.rawValue].title). \(note.text)") }
    }

    private func calibrated(_ fit: TouchCalibration.Fit) {
        if let stage {
            let m = stage.touchMatrix(after: fit.transform)
            choices.touchMatrix = m
            onPreview?(choices)
            calibration.matrixText = SetupScene.udevLine(m)
            let e = calibration.meanErrors ?? ("?", "?")
            onNotice?("touch calibrated: off by \(e.before) mm before, \(e.after) mm after; \(SetupScene.udevLine(m))")
        }
        refresh()
    }

    /// The same calibration for operators who let the compositor apply it (libinput).
    static func udevLine(_ m: [Double]) -> String {
        "ENV{LIBINPUT_CALIBRATION_MATRIX}=\"" + m.map { String(rounded: $0, digits: 4) }.joined(separator: " ") + "\""
    }

    /// Where the file decides what this step chooses.
    private var fileNote: String? {
        let k = SetupChoices.keys
        let key: String? = switch step {
        case .calibrate: fileKeys.contains(k.touchMatrix) ? "[touch] matrix" : nil
        case .rotate: fileKeys.contains(k.rotate) ? "[shell] rotate" : nil
        case .pin: fileKeys.contains(k.pin) ? "[admin] pin" : nil
        case .scenes: fileKeys.contains(k.language) ? "[shell] language"
            : fileKeys.contains(k.scenes) || fileKeys.contains(k.start) ? "[shell] scenes or start" : nil
        default: nil
        }
        return key.map { texts("setup.fileWins", ["file": filePath, "setting": $0]) }
    }

    private func refresh() {
        let collecting = step == .calibrate && calibration.isCollecting
        touchTest.view.isHidden = step != .touch
        for (s, page) in pages { page.isHidden = s != step || collecting }
        header.isHidden = collecting
        footer.isHidden = collecting || isCompactTouch
        calibration.catcher.isHidden = !collecting
        for (i, b) in stepButtons.enumerated() { b.backgroundColor = i == step.rawValue ? SetupStyle.current : SetupStyle.plain }
        nextButton.title = step == .scenes ? finishButton.title : texts["setup.next"]
        note.text = fileNote ?? texts["setup.hint.\(step.name)"]
        layout(view: view)
        onRelayout?()
    }

    override func applyTexts() {
        titleLabel.text = texts[fromAdmin ? "setup.title.admin" : "setup.title"]
        for (s, b) in zip(Step.allCases, stepButtons) { b.title = "\(s.rawValue + 1) " + texts["setup.step.\(s.name)"] }
        finishButton.title = texts[fromAdmin ? "setup.done" : "setup.start"]
        for page in [calibration as SetupPage, rotation, pin, scenes] { page.apply(texts) }
        touchTest.texts = texts
        refresh()
    }

    // MARK: Layout

    /// Bars and controls sized for a finger: at least 9 mm, never under 48 pt.
    private var rowHeight: Double { max(48, 10 * view.info.pointsPerMillimetre) }
    private let gap = 10.0

    /// A short panel's touch check: one bar with the hint, Next and the finish, so the touch
    /// test keeps the room its widgets need (the steps are a tap on Next away).
    private var isCompactTouch: Bool { step == .touch && view.bounds.height < 640 }

    override func layout(view: SceneView) {
        // Laid out again at each turn: the Rotate step marks the turn in force, the
        // accelerometer's too.
        if let stage { rotation.current = stage.rotation }
        let size = view.bounds.size, rowH = rowHeight
        let (headerH, footerH) = isCompactTouch ? layoutCompactBar(size: size) : layoutBars(size: size)
        let rtl = view.isRightToLeft
        var inner = view.info
        inner.safeAreaInsets = EdgeInsets(top: headerH, bottom: footerH)
        touchTest.layout(inner)
        let content = Rect(x: 0, y: headerH, width: size.width, height: size.height - headerH - footerH)
        let ctx = SetupLayout(bounds: content, rowHeight: rowH, gap: gap, mm: view.info.pointsPerMillimetre)
        for page in [calibration as SetupPage, rotation, pin, scenes] {
            page.page.frame = content
            page.layout(ctx)
        }
        // Mirrored for a right-to-left language: the bars and the choices, not the keypad, not
        // the calibration's targets (where a finger must go is where it is).
        if rtl {
            for v in [header, footer, rotation.page, scenes.page, calibration.page] { v.mirrorHorizontally(v.subviews) }
        }
        calibration.catcher.frame = Rect(origin: .zero, size: size)
        calibration.layoutCatcher(size: size, mm: view.info.pointsPerMillimetre)
    }

    /// The steps and the finish above (one row when wide, else the title and the finish above
    /// the steps), the hint and Next below.
    private func layoutBars(size: Size) -> (header: Double, footer: Double) {
        let rowH = rowHeight
        for v in [note, nextButton] where v.superview !== footer { footer.addSubview(v) }
        stepButtons.forEach { $0.isHidden = false }
        let oneRow = size.width >= 1100 || size.width > size.height
        let headerH = (oneRow ? 1 : 2) * rowH + (oneRow ? 2 : 3) * gap
        let footerH = max(rowH + 2 * gap, note.sizeThatFits(width: size.width - 4 * gap - 150).height + 2 * gap)
        header.frame = Rect(x: 0, y: 0, width: size.width, height: headerH)
        footer.frame = Rect(x: 0, y: size.height - footerH, width: size.width, height: footerH)
        let n = Double(Step.allCases.count), finishShare = 1.5
        let unit = (size.width - (n + 2) * gap) / (oneRow ? n + finishShare : n)
        let finishW = oneRow ? unit * finishShare : min(size.width / 2, max(220, unit * finishShare))
        finishButton.frame = Rect(x: size.width - gap - finishW, y: gap, width: finishW, height: rowH)
        titleLabel.isHidden = oneRow
        titleLabel.frame = Rect(x: 2 * gap, y: gap, width: size.width - finishW - 4 * gap, height: rowH)
        for (i, b) in stepButtons.enumerated() {
            b.frame = Rect(x: gap + Double(i) * (unit + gap), y: oneRow ? gap : 2 * gap + rowH, width: unit, height: rowH)
        }
        nextButton.frame = Rect(x: size.width - gap - 150, y: (footerH - rowH) / 2, width: 150, height: rowH)
        note.frame = Rect(x: 2 * gap, y: gap, width: size.width - 150 - 4 * gap, height: footerH - 2 * gap)
        return (headerH, footerH)
    }

    private func layoutCompactBar(size: Size) -> (header: Double, footer: Double) {
        let rowH = rowHeight
        for v in [note, nextButton] where v.superview !== header { header.addSubview(v) }
        stepButtons.forEach { $0.isHidden = true }
        titleLabel.isHidden = true
        footer.isHidden = true
        let nextW = 120.0, finishW = min(220, size.width / 4)
        let noteW = size.width - nextW - finishW - 5 * gap
        let headerH = max(rowH, note.sizeThatFits(width: noteW).height) + 2 * gap
        header.frame = Rect(x: 0, y: 0, width: size.width, height: headerH)
        finishButton.frame = Rect(x: size.width - gap - finishW, y: (headerH - rowH) / 2, width: finishW, height: rowH)
        nextButton.frame = Rect(x: finishButton.frame.minX - gap - nextW, y: (headerH - rowH) / 2, width: nextW, height: rowH)
        note.frame = Rect(x: 2 * gap, y: gap, width: noteW, height: headerH - 2 * gap)
        return (headerH, 0)
    }

    // MARK: The touch test inside

    override func handle(_ key: KeyEvent) {
        if step == .touch { touchTest.handle(key) } else if step == .pin { pin.handle(key) }
    }
    override func setActive(_ active: Bool) {
        super.setActive(active)
        touchTest.setActive(active)
    }
}

/// Where a step's page lays itself out: the space between the bars, in the page's coordinates.
struct SetupLayout {
    var bounds: Rect
    var rowHeight: Double
    var gap: Double
    var mm: Double
    var size: Size { bounds.size }
}

/// One step's page of the setup screen.
protocol SetupPage: AnyObject {
    var page: View { get }
    func build()
    func layout(_ l: SetupLayout)
    /// Sets the page's words (after `build`, and on a new language).
    func apply(_ texts: Texts)
}

/// The setup screen's look, shared by its pages.
enum SetupStyle {
    static let bar = Color(rgb: 0x1c2330)
    static let plain = Color.dusk
    static let current = Color(rgb: 0x2f4a66)
    static let accent = Color.sky

    static func button(_ title: String, accent: Bool = false, _ action: @escaping (Button) -> Void) -> Button {
        let b = Button()
        b.title = title
        style(b, accent: accent)
        b.action = action
        return b
    }
    static func style(_ b: Button, accent: Bool) {
        b.backgroundColor = accent ? Self.accent : plain
        b.cornerRadius = 10
        b.titleLabel.fontSize = 20
        b.titleLabel.textColor = accent ? Color.ink : Color.paper
        b.titleLabel.adjustsFontSizeToFitWidth = true
    }
    static func label(_ size: Double, color: Color = Color.paper, centred: Bool = true) -> Label {
        let l = Label()
        l.fontSize = size
        l.textColor = color
        l.numberOfLines = 0
        l.alignment = centred ? .center : .left
        l.isUserInteractionEnabled = false
        return l
    }
}

extension String {
    /// `v` to at most `digits` decimals, without trailing zeros ("-1", "0.0521").
    init(rounded v: Double, digits: Int) {
        var p = 1.0
        for _ in 0..<digits { p *= 10 }
        let r = (v * p).rounded() / p + 0 // + 0: no "-0"
        self = r == r.rounded() && abs(r) < 1e15 ? String(Int(r)) : String(r)
    }
}
