import KioskCore

/// `[exhibits]`: where the operator's folder is, and whether the screensaver shows its pictures.
package struct ExhibitsSettings: SettingsSection {
    package var folder = "/etc/kiosk/exhibits"
    package var screensaver = false

    package init() {}

    package static let settings: [SectionSetting<ExhibitsSettings>] = [
        SectionSetting("folder", default: TOML.quoted(ExhibitsSettings().folder), value: { TOML.quoted($0.folder) }) { v, s, r in
            if let f = v.string, f.hasPrefix("/") { s.folder = f.count > 1 && f.hasSuffix("/") ? String(f.dropLast()) : f }
            else { r.problem(v, "folder must be an absolute path in quotes; using \(s.folder)") }
        },
        .flag("screensaver", \.screensaver),
    ]
}

extension ExhibitsScene {
    /// The exhibits, as the kiosk's catalog lists them: a visitors' scene the operator adds
    /// (`[shell] scenes`, the setup), since it shows the operator's own content.
    package static let description = SceneDescription(
        name: "exhibits", aliases: ["exhibit", "content"], audience: .visitors, listedByDefault: false, texts: textTable,
        section: ExhibitsSettings.self
    ) { c in
        let folder = ExhibitsFolder.read(c.sections[ExhibitsSettings.self].folder)
        for p in folder.problems { c.report("exhibits: \(p)") }
        return ExhibitsScene(fonts: c.fonts, scheduler: c.scheduler, folder: folder, store: c.store, helper: c.helper, report: c.report)
    }
}

extension ExhibitSlidesScene {
    /// The exhibits' pictures as the screensaver, in the falling words' place while
    /// `[exhibits] screensaver` says so.
    package static let description = SceneDescription(
        name: "slides", aliases: ["slideshow"], audience: .screensaver, texts: ExhibitsScene.textTable, madeFrom: ["exhibits.folder"],
        replacesScreensaver: { $0[ExhibitsSettings.self].screensaver }
    ) { c in
        ExhibitSlidesScene(fonts: c.fonts, scheduler: c.scheduler, folder: ExhibitsFolder.read(c.sections[ExhibitsSettings.self].folder),
                           helper: c.helper, report: c.report)
    }
}
