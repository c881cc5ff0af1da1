import KioskCore
import KioskUI

/// Rotate: four turns, applied at once (the whole setup relayouts, touch turns with it), and a
/// circle to tap that turns green when the tap lands on it.
final class RotationStep: SetupPage {
    let page = View()
    private(set) var buttons: [Button] = []
    let check = Button()
    private let checkLabel = SetupStyle.label(20)
    var current = Rotation.upright { didSet { refresh() } }
    var onChoose: ((Rotation) -> Void)?
    var onChecked: (() -> Void)?
    private var isChecked = false
    private var texts = Texts.kioskEnglish

    func build() {
        for (i, t) in ["0°", "90°", "180°", "270°"].enumerated() {
            let b = SetupStyle.button(t) { [unowned self] _ in
                let r = Rotation(quarterTurns: i)
                self.current = r
                self.checked(false)
                self.onChoose?(r)
            }
            b.accessibilityIdentifier = "setup rotate \(i * 90)"
            buttons.append(b)
            page.addSubview(b)
        }
        check.accessibilityIdentifier = "setup check"
        check.backgroundColor = SetupStyle.plain
        check.action = { [unowned self] _ in self.checked(true); self.onChecked?() }
        page.addSubview(check)
        page.addSubview(checkLabel)
        checked(false)
        refresh()
    }

    private func checked(_ yes: Bool) {
        isChecked = yes
        check.backgroundColor = yes ? Color.leaf : SetupStyle.plain
        checkLabel.text = texts[yes ? "setup.rotate.checked" : "setup.rotate.check"]
    }

    func apply(_ texts: Texts) {
        self.texts = texts
        checked(isChecked)
    }

    private func refresh() {
        for (i, b) in buttons.enumerated() { b.backgroundColor = i == current.quarterTurns ? SetupStyle.accent : SetupStyle.plain }
        for (i, b) in buttons.enumerated() { b.titleLabel.textColor = i == current.quarterTurns ? Color.ink : Color.paper }
    }

    func layout(_ l: SetupLayout) {
        let w = min(l.size.width - 2 * l.gap, 640), x = (l.size.width - w) / 2
        let bw = (w - 3 * l.gap) / 4
        for (i, b) in buttons.enumerated() {
            b.frame = Rect(x: x + Double(i) * (bw + l.gap), y: 2 * l.gap, width: bw, height: l.rowHeight)
        }
        let d = max(l.rowHeight, 18 * l.mm)
        let top = 3 * l.gap + l.rowHeight
        let room = l.size.height - top - l.rowHeight - 2 * l.gap
        let cy = top + max(d / 2, room / 2)
        check.frame = Rect(x: l.size.width / 2 - d / 2, y: cy - d / 2, width: d, height: d)
        check.cornerRadius = d / 2
        checkLabel.frame = Rect(x: x, y: check.frame.maxY + l.gap, width: w, height: l.rowHeight)
    }
}

/// PIN: the admin PIN typed twice on a keypad.
final class PINStep: SetupPage {
    let page = View()
    private let dots = SetupStyle.label(34)
    private let message = SetupStyle.label(20, color: Color.amber)
    private(set) var keys: [Button] = []
    private var entered = "", first: String?
    var onSet: ((String) -> Void)?
    private var texts = Texts.kioskEnglish
    /// What the message says, by key: kept so a new language says it again.
    private var messageKey = "setup.pin.choose" { didSet { message.text = texts[messageKey] } }
    private static let keyIDs = ["1", "2", "3", "4", "5", "6", "7", "8", "9", "⌫", "0", "OK"]

    func build() {
        for t in Self.keyIDs {
            let b = SetupStyle.button(t, accent: t == "OK") { [unowned self] _ in self.key(t) }
            b.accessibilityIdentifier = "setup key \(t == "⌫" ? "back" : t)"
            keys.append(b)
            page.addSubview(b)
        }
        page.addSubview(dots)
        page.addSubview(message)
    }

    func apply(_ texts: Texts) {
        self.texts = texts
        keys.last?.title = texts["key.ok"]
        message.text = texts[messageKey]
    }

    func handle(_ key: KeyEvent) {
        guard key.pressed else { return }
        switch key.keysym {
        case Key.return, Key.keypadEnter: self.key("OK")
        case Key.backSpace: self.key("⌫")
        default: if key.text.count == 1, key.text.first!.isASCII, key.text.first!.isNumber { self.key(key.text) }
        }
    }

    private func key(_ k: String) {
        switch k {
        case "⌫": if !entered.isEmpty { entered.removeLast() }
        case "OK":
            if !SetupChoices.isValidPIN(entered) {
                messageKey = "setup.pin.length"
            } else if let f = first {
                if f == entered {
                    messageKey = "setup.pin.set"
                    onSet?(entered)
                } else {
                    messageKey = "setup.pin.differ"
                }
                first = nil
            } else {
                first = entered
                messageKey = "setup.pin.again"
            }
            entered = ""
        default: if entered.count < 8 { entered += k }
        }
        dots.text = String(repeating: "●", count: entered.count)
    }

    func layout(_ l: SetupLayout) {
        let w = min(l.size.width - 2 * l.gap, 520), x = (l.size.width - w) / 2
        message.frame = Rect(x: x, y: l.gap, width: w, height: 30)
        dots.frame = Rect(x: x, y: 40 + l.gap, width: w, height: 44)
        let top = 90 + l.gap
        let kh = min(l.rowHeight * 1.2, (l.size.height - top - 4 * l.gap) / 4)
        let kw = min(130, (w - 2 * l.gap) / 3)
        let x0 = (l.size.width - 3 * kw - 2 * l.gap) / 2
        for (i, k) in keys.enumerated() {
            k.frame = Rect(x: x0 + Double(i % 3) * (kw + l.gap), y: top + Double(i / 3) * (kh + l.gap), width: kw, height: kh)
        }
    }
}

/// Scenes: which scenes visitors may reach from the scene bar, and the one they start on.
final class ScenesStep: SetupPage {
    let page = View()
    private let visibleLabel = SetupStyle.label(20, centred: false), startLabel = SetupStyle.label(20, centred: false)
    private(set) var toggles: [Button] = [], starts: [Button] = []
    /// The scenes it offers: the catalog's visitors' scenes.
    let offered: [String]
    private let catalog: SceneCatalog
    private(set) var visible: [String]
    private(set) var start: String
    var onChange: (([String], String) -> Void)?
    /// The kiosk's language, each in its own name: the installer reads theirs whatever is shown.
    private let languageLabel = SetupStyle.label(20, centred: false)
    private(set) var languageButtons: [Button] = []
    var language = Language.english { didSet { refresh() } }
    var onLanguage: ((Language) -> Void)?
    private var texts = Texts.kioskEnglish
    /// A scene's name as the scene bar writes it.
    private func title(_ name: String) -> String { catalog.title(name, texts) }

    /// The languages it offers: the kiosk's own and the operator's catalogs.
    let languages: [Language]

    init(catalog: SceneCatalog = .standard, languages: [Language] = [.english]) {
        self.catalog = catalog
        self.languages = languages
        offered = catalog.visitorScenes
        visible = offered
        start = catalog.defaultName
    }

    func choose(visible: [String], start: String) {
        self.visible = visible.isEmpty ? offered : visible
        self.start = self.visible.contains(start) ? start : self.visible[0]
        refresh()
    }

    func build() {
        page.addSubview(languageLabel)
        for l in languages {
            let b = SetupStyle.button(l.name) { [unowned self] _ in
                self.language = l
                self.onLanguage?(l)
            }
            b.accessibilityIdentifier = "setup language \(l.code)"
            languageButtons.append(b)
            page.addSubview(b)
        }
        page.addSubview(visibleLabel)
        page.addSubview(startLabel)
        for name in offered {
            let t = SetupStyle.button("") { [unowned self] _ in self.toggle(name) }
            let s = SetupStyle.button("") { [unowned self] _ in self.startOn(name) }
            t.accessibilityIdentifier = "setup show \(name)"
            s.accessibilityIdentifier = "setup start \(name)"
            toggles.append(t)
            starts.append(s)
            page.addSubview(t)
            page.addSubview(s)
        }
        refresh()
    }

    private func toggle(_ name: String) {
        if visible.contains(name) {
            guard visible.count > 1 else { return } // visitors need a scene
            visible.removeAll { $0 == name }
            if start == name { start = visible[0] }
        } else {
            visible = offered.filter { visible.contains($0) || $0 == name }
        }
        changed()
    }

    private func startOn(_ name: String) {
        if !visible.contains(name) { visible = offered.filter { visible.contains($0) || $0 == name } }
        start = name
        changed()
    }

    func apply(_ texts: Texts) {
        self.texts = texts
        languageLabel.text = texts["setup.language"]
        visibleLabel.text = texts["setup.scenes.visible"]
        startLabel.text = texts["setup.scenes.start"]
        refresh()
    }

    private func changed() {
        refresh()
        onChange?(visible, start)
    }

    private func refresh() {
        for (i, name) in offered.enumerated() where i < toggles.count {
            let shown = visible.contains(name)
            toggles[i].title = (shown ? "✓ " : "") + title(name)
            starts[i].title = title(name)
            SetupStyle.style(toggles[i], accent: shown)
            SetupStyle.style(starts[i], accent: start == name)
        }
        for (b, l) in zip(languageButtons, languages) { SetupStyle.style(b, accent: l.code == language.code) }
    }

    func layout(_ l: SetupLayout) {
        let w = min(l.size.width - 2 * l.gap, 640), x = (l.size.width - w) / 2
        let n = Double(toggles.count), bw = (w - (n - 1) * l.gap) / n
        var y = 2 * l.gap
        // The languages: one row when wide, else two of three.
        let perRow = w >= 600 ? languageButtons.count : 3
        let lw = (w - Double(perRow - 1) * l.gap) / Double(perRow)
        languageLabel.frame = Rect(x: x, y: y, width: w, height: 30)
        y += 30 + l.gap
        for (i, b) in languageButtons.enumerated() {
            b.frame = Rect(x: x + Double(i % perRow) * (lw + l.gap), y: y + Double(i / perRow) * (l.rowHeight + l.gap), width: lw, height: l.rowHeight)
        }
        y += Double((languageButtons.count + perRow - 1) / perRow) * (l.rowHeight + l.gap) + l.gap
        for (label, row) in [(visibleLabel, toggles), (startLabel, starts)] {
            label.frame = Rect(x: x, y: y, width: w, height: 30)
            y += 30 + l.gap
            for (i, b) in row.enumerated() { b.frame = Rect(x: x + Double(i) * (bw + l.gap), y: y, width: bw, height: l.rowHeight) }
            y += l.rowHeight + 2 * l.gap
        }
    }
}
