import KioskCore
import KioskRender
import KioskUI

/// Taps on the calibration targets, one at a time, and the fit they give: a tap far off the
/// fit the others agree on is asked again; taps that fit no map start the round over.
struct CalibrationRun {
    let targets: [Point]
    /// How far from its target a tap may land after the fit before it counts as a mistap.
    let tolerance: Double
    private(set) var samples: [TouchCalibration.Sample?]
    /// The target being asked for (nil once fitted).
    private(set) var asking: Int? = 0

    enum Outcome: Equatable {
        case next
        case askAgain(Int)
        case fitted(TouchCalibration.Fit)
        /// The taps fit no map (they lie on a line): every target again.
        case startOver
    }

    init(targets: [Point], tolerance: Double) {
        self.targets = targets
        self.tolerance = tolerance
        samples = Array(repeating: nil, count: targets.count)
    }

    mutating func tapped(at p: Point) -> Outcome {
        guard let i = asking else { return .next }
        samples[i] = TouchCalibration.Sample(touched: p, target: targets[i])
        if let open = samples.firstIndex(where: { $0 == nil }) { asking = open; return .next }
        do {
            let fit = try TouchCalibration.fit(samples.compactMap { $0 }, tolerance: tolerance)
            if let r = fit.rejected {
                samples[r] = nil
                asking = r
                return .askAgain(r)
            }
            asking = nil
            return .fitted(fit)
        } catch {
            samples = Array(repeating: nil, count: targets.count)
            asking = 0
            return .startOver
        }
    }
}

/// The calibration step: while collecting, the whole screen takes taps (a mis-calibrated
/// panel could not hit a button) and shows one target at a time; then the error before and
/// after in millimetres, the udev line for libinput, "Calibrate again" and "No calibration".
final class CalibrationStep: SetupPage {
    let page = View()
    let catcher = TapCatcher()
    private let target = TargetView()
    private let prompt = SetupStyle.label(24), message = SetupStyle.label(20, color: Color.amber)
    private let result = SetupStyle.label(22), matrix = SetupStyle.label(16, color: Color.slate)
    private let again = SetupStyle.button("") { _ in }
    private let reset = SetupStyle.button("") { _ in }
    private var texts = Texts.kioskEnglish
    /// What the page says, by key, so that a new language says it again.
    private var messageKey: String? { didSet { message.text = messageKey.map { texts[$0] } ?? "" } }
    private enum Result { case none, fitted, reset }
    private var shownResult = Result.none
    private(set) var run: CalibrationRun?
    private(set) var lastFit: TouchCalibration.Fit?
    private var mm = DisplayInfo.fallbackPointsPerMillimetre
    private var size = Size.zero
    var matrixText = "" { didSet { matrix.text = matrixText } }

    var onChange: (() -> Void)?
    var onFit: ((TouchCalibration.Fit) -> Void)?
    var onReset: (() -> Void)?

    /// The last fit's mean distance from the targets in millimetres, before and after ("41.2",
    /// "0.3"); nil before a fit.
    var meanErrors: (before: String, after: String)? {
        guard let fit = lastFit else { return nil }
        let mean = { (e: [Double]) in String(rounded: e.reduce(0, +) / Double(max(1, e.count)) / self.mm, digits: 1) }
        return (mean(fit.errorsBefore), mean(fit.errorsAfter))
    }

    var isCollecting: Bool { run?.asking != nil }
    var hasResult: Bool { shownResult != .none }

    func build() {
        catcher.backgroundColor = Color.ink
        target.accessibilityIdentifier = "calibration target"
        again.accessibilityIdentifier = "setup calibrate again"
        reset.accessibilityIdentifier = "setup no calibration"
        catcher.addSubview(target)
        catcher.addSubview(prompt)
        catcher.addSubview(message)
        catcher.onTap = { [unowned self] p in self.tapped(at: p) }
        matrix.fontFamily = "DejaVu Sans Mono"
        for v in [result, matrix, again, reset] { page.addSubview(v) }
        again.action = { [unowned self] _ in self.begin(in: self.size, mm: self.mm) }
        reset.action = { [unowned self] _ in
            self.lastFit = nil
            self.shownResult = .reset
            self.showResult()
            self.matrixText = ""
            self.onReset?()
        }
    }

    /// A new round of taps on a `size` screen.
    func begin(in size: Size, mm: Double) {
        self.size = size
        self.mm = mm
        run = CalibrationRun(targets: TouchCalibration.targets(in: size), tolerance: 8 * mm)
        messageKey = nil
        showTarget()
        onChange?()
    }

    func apply(_ texts: Texts) {
        self.texts = texts
        again.title = texts["calibrate.again"]
        reset.title = texts["calibrate.reset"]
        message.text = messageKey.map { texts[$0] } ?? ""
        showResult()
        showTarget()
    }

    private func showResult() {
        switch shownResult {
        case .none: result.text = ""
        case .reset: result.text = texts["calibrate.none"]
        case .fitted:
            let e = meanErrors ?? ("?", "?")
            result.text = texts("calibrate.result", ["before": e.before, "after": e.after])
        }
    }

    func stopCollecting() {
        guard isCollecting else { return }
        run = nil
        onChange?()
    }

    private func tapped(at p: Point) {
        guard var r = run else { return }
        let outcome = r.tapped(at: p)
        run = r
        switch outcome {
        case .next: messageKey = nil
        case .askAgain: messageKey = "calibrate.askAgain"
        case .startOver: messageKey = "calibrate.onALine"
        case .fitted(let fit):
            lastFit = fit
            shownResult = .fitted
            showResult()
            onFit?(fit)
        }
        showTarget()
        onChange?()
    }

    private func showTarget() {
        guard let r = run, let i = r.asking else { return }
        let radius = max(24, 8 * mm)
        let c = r.targets[i]
        target.frame = Rect(x: c.x - radius, y: c.y - radius, width: 2 * radius, height: 2 * radius)
        target.setNeedsDisplay()
        prompt.text = texts("calibrate.prompt", ["n": String(r.samples.count { $0 != nil } + 1), "count": String(r.targets.count)])
    }

    func layoutCatcher(size: Size, mm: Double) {
        let w = min(size.width - 40, 700)
        prompt.frame = Rect(x: (size.width - w) / 2, y: size.height * 0.5, width: w, height: 70)
        message.frame = Rect(x: (size.width - w) / 2, y: size.height * 0.5 + 76, width: w, height: 60)
        if isCollecting, self.size != size { begin(in: size, mm: mm) } // turned while collecting: targets anew
    }

    func layout(_ l: SetupLayout) {
        let w = min(l.size.width - 2 * l.gap, 760), x = (l.size.width - w) / 2
        result.frame = Rect(x: x, y: 2 * l.gap, width: w, height: result.sizeThatFits(width: w).height + 4)
        matrix.frame = Rect(x: x, y: result.frame.maxY + l.gap, width: w, height: matrix.sizeThatFits(width: w).height + 4)
        let bw = (w - l.gap) / 2
        let y = max(matrix.frame.maxY, result.frame.maxY) + 2 * l.gap
        again.frame = Rect(x: x, y: y, width: bw, height: l.rowHeight)
        reset.frame = Rect(x: x + bw + l.gap, y: y, width: bw, height: l.rowHeight)
    }
}

/// Takes every tap on the screen, wherever it lands: where the finger lifted.
final class TapCatcher: View {
    var onTap: ((Point) -> Void)?
    private var down: Touch?
    override func touchesBegan(_ touches: Set<Touch>, event: TouchEvent) { if down == nil { down = touches.first } }
    override func touchesEnded(_ touches: Set<Touch>, event: TouchEvent) {
        guard let t = down, touches.contains(t) else { return }
        down = nil
        onTap?(t.location(in: nil))
    }
    override func touchesCancelled(_ touches: Set<Touch>, event: TouchEvent) {
        if let t = down, touches.contains(t) { down = nil }
    }
}

/// A ring with a cross through its centre: where to touch.
final class TargetView: View {
    override var drawsContent: Bool { true }
    override init(frame: Rect = .zero) {
        super.init(frame: frame)
        isUserInteractionEnabled = false
    }
    override func draw(in canvas: Canvas) {
        let c = Point(x: bounds.width / 2, y: bounds.height / 2), r = min(bounds.width, bounds.height) / 2 - 2
        canvas.strokeCircle(center: c, radius: r, width: 3, color: Color.sky)
        canvas.strokeLine(from: Point(x: c.x - r, y: c.y), to: Point(x: c.x + r, y: c.y), width: 2, color: Color.paper)
        canvas.strokeLine(from: Point(x: c.x, y: c.y - r), to: Point(x: c.x, y: c.y + r), width: 2, color: Color.paper)
        canvas.fillCircle(center: c, radius: 4, color: Color.amber)
    }
}
