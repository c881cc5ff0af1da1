@testable import KioskCore
@testable import KioskRender
@testable import KioskUI
@testable import KioskScenes

/// A scene of the test suite's own, added as a scene is: this folder, and its line in
/// `testSceneCatalog`. A canvas a visitor fills with one colour, with a hint, and a button that
/// starts again.
final class PaintScene: ViewScene {
    let canvas = View()
    let hint = Label()
    let again = Button()
    let settings: PaintSettings
    private(set) var painted = false { didSet { canvas.backgroundColor = painted ? settings.color : Color.dusk } }

    init(_ c: SceneContext) {
        settings = c.sections[PaintSettings.self]
        super.init(name: "paint", fonts: c.fonts, scheduler: c.scheduler, texts: Self.textTable)
    }

    override func build(in view: SceneView) {
        canvas.backgroundColor = Color.dusk
        canvas.accessibilityIdentifier = "paint canvas"
        canvas.addGestureRecognizer(TapGestureRecognizer { [unowned self] _ in painted = true })
        view.addSubview(canvas)
        again.backgroundColor = Color.paper
        again.cornerRadius = 10
        again.titleLabel.textColor = Color.ink
        again.action = { [unowned self] _ in painted = false }
        view.addSubview(again)
        hint.fontSize = 28
        hint.alignment = .center
        hint.textColor = Color.white
        hint.isUserInteractionEnabled = false
        view.addSubview(hint)
    }
    override func applyTexts() {
        hint.text = texts["paint.hint"]
        again.title = texts["paint.again"]
    }
    override func reset() { painted = false }
    override func layout(view: SceneView) {
        canvas.frame = view.bounds
        let safe = view.bounds.inset(by: view.info.safeAreaInsets)
        hint.frame = Rect(x: safe.minX, y: safe.midY - 20, width: safe.width, height: 40)
        let side = 12 * view.info.pointsPerMillimetre
        // At the trailing corner: bottom left in a right-to-left language.
        let x = view.isRightToLeft ? safe.minX + 12 : safe.maxX - 4 * side - 12
        again.frame = Rect(x: x, y: safe.maxY - side - 12, width: 4 * side, height: side)
    }

    static let description = SceneDescription(
        name: "paint", aliases: ["painting"], audience: .visitors, texts: textTable, section: PaintSettings.self,
        adminRows: [AdminRow(name: "paint", setting: "paint.color", title: "paint.color", control: .choices([
            AdminRow.Choice("\"#5aa9e6\"", title: "Blue", key: "paint.blue"), AdminRow.Choice("\"#f28c28\"", title: "Orange", key: "paint.orange"),
        ], unset: { _ in "\"#5aa9e6\"" }))]
    ) { PaintScene($0) }

    static let textTable = TextCatalog([
        "scene.paint": "Paint",
        "paint.hint": "Touch to paint",
        "paint.again": "Start again",
        "paint.color": "Paint colour",
        "paint.blue": "Blue",
        "paint.orange": "Orange",
    ], notes: [
        "scene.paint": "A pill in the scene bar: a canvas to paint on (a scene of the tests).",
        "paint.color": "A row of the admin panel: the colour of the paint scene's canvas.",
    ])
}

/// `[paint]`.
struct PaintSettings: SettingsSection {
    var color = Color(rgb: 0x5aa9e6)

    static let settings: [SectionSetting<PaintSettings>] = [
        SectionSetting("color", default: "\"#5aa9e6\"", value: { TOML.quoted($0.color.hex) }) { v, s, r in
            if let c = v.string.flatMap(Color.init(hex:)) { s.color = c } else { r.problem(v, "color must look like \"#5aa9e6\"; using the default") }
        },
    ]
}
