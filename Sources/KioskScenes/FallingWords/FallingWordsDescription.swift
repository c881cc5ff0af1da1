import KioskCore

/// `[words]`: the screensaver's own settings are its model's configuration.
extension FallingWordsConfig: SettingsSection {
    package static let settings: [SectionSetting<FallingWordsConfig>] = [
        SectionSetting("phrases", default: TOMLText.list(defaultPhrases), value: { TOMLText.list($0.phrases) }) { v, s, r in
            if let list = v.array?.compactMap({ $0.string }), list.count == v.array!.count {
                s.phrases = list
                for (text, node) in zip(list, v.array!) { r.drawn(text, at: node) }
            } else { r.problem(v, "phrases must be a list of strings; using the default") }
        },
        .number("speed", 5...5000, \.speed),
        .number("interval", 0.05...60, \.interval),
        .number("size", 50...1000, \.labelWidth),
        SectionSetting("color", default: "\"#8e24aa\"", value: { TOML.quoted($0.color.hex) }) { v, s, r in
            if let c = v.string.flatMap(Color.init(hex:)) { s.color = c }
            else { r.problem(v, "color must look like \"#8e24aa\"; using the default") }
        },
    ]
}

extension FallingWordsScene {
    /// The falling words, as the kiosk's catalog lists them: nobody's scene, the screensaver.
    package static let description = SceneDescription(
        name: "words", aliases: ["falling-words", "screensaver"], audience: .screensaver, texts: textTable,
        section: FallingWordsConfig.self,
        adminRows: [AdminRow(name: "words", setting: "words.speed", title: "admin.speed", control: .steps(
            [30, 60, 90, 120, 150, 200, 300, 400, 600], describe: { v, t in t("admin.speed.value", ["n": String(Int(v))]) }))]
    ) { c in
        FallingWordsScene(fonts: c.fonts, scheduler: c.scheduler, config: c.sections[FallingWordsConfig.self])
    }
}
