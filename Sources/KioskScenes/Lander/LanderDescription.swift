import KioskCore

/// `[lander]`: the lander's own settings.
package struct LanderSettings: SettingsSection {
    /// Which bottom corner the pad starts in; nil: the language's trailing side (right; left in
    /// a right-to-left language).
    package var pad: LanderScene.Side?

    package init() {}

    package static let settings: [SectionSetting<LanderSettings>] = [
        SectionSetting("pad", default: "\"right\"", derivedDefault: true, value: { $0.pad.map { TOML.quoted("\($0)") } ?? "" }) { v, s, r in
            switch v.string {
            case "left": s.pad = .left
            case "right": s.pad = .right
            default: r.problem(v, "pad must be \"left\" or \"right\"; using right")
            }
        },
    ]
}

extension LanderScene {
    /// The lander, as the kiosk's catalog lists it.
    package static let description = SceneDescription(
        name: "lander", aliases: ["lunar-lander"], audience: .visitors, texts: textTable, section: LanderSettings.self,
        madeFrom: ["shell.theme"],
        adminRows: [AdminRow(name: "lander", setting: "lander.pad", title: "admin.pad", control: .choices([
            AdminRow.Choice("\"left\"", title: "Left", key: "admin.left"), AdminRow.Choice("\"right\"", title: "Right", key: "admin.right"),
        ], unset: { TOML.quoted("\(Side.trailing(rightToLeft: $0.isRightToLeft))") }))]
    ) { c in
        let scene = LanderScene(fonts: c.fonts, scheduler: c.scheduler, store: c.store, themeDirectory: c.themeDirectory, report: c.report)
        scene.padSide = c.sections[LanderSettings.self].pad
        return scene
    }
}
