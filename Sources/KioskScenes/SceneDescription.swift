import KioskCore
import KioskRender
import KioskUI

/// What a scene is made with: the same for every scene.
package struct SceneContext {
    package var fonts: FontCache
    package var scheduler: Scheduler
    /// Where it keeps what must survive a restart.
    package var store: SceneStore?
    /// The theme folder (`[shell] theme`, else `$KIOSK_THEME_DIR`).
    package var themeDirectory: String?
    /// kiosk.toml's sections, the scene's own among them.
    package var sections: SettingsSections
    /// A problem with the scene's saved state or assets, one line for the journal.
    package var report: (String) -> Void
    /// Where work too slow for a frame goes (decoding a picture).
    package var helper: Helper

    package init(fonts: FontCache, scheduler: Scheduler = ManualScheduler(), store: SceneStore? = nil, themeDirectory: String? = nil,
                sections: SettingsSections = SettingsSections(), helper: Helper = InlineHelper(), report: @escaping (String) -> Void = { _ in }) {
        (self.fonts, self.scheduler, self.store, self.themeDirectory) = (fonts, scheduler, store, themeDirectory)
        (self.sections, self.helper, self.report) = (sections, helper, report)
    }
}

/// One scene, described once, in its own folder, as UIKit registers a view controller once: the
/// kiosk's catalog gathers these, and the scene bar, the settings and their checks, the setup's
/// scenes step, the admin panel's rows, the translation template, rebuilding on a reload and the
/// metrics' labels all derive from it.
package struct SceneDescription: Sendable {
    /// Who reaches the scene: visitors (the scene bar by default; the setup offers it), operators
    /// (in `[shell] scenes` for a bench, and the admin panel), or nobody (the screensaver).
    package enum Audience: Sendable { case visitors, operators, screensaver }

    /// The name on the command line, in settings, the journal and the metrics.
    package let name: String
    /// Other names accepted for it (case-insensitive).
    package var aliases: [String]
    package let audience: Audience
    /// Its words in English, `scene.<name>` (its pill's title) among them.
    package let texts: TextCatalog
    /// Its own section of kiosk.toml (`[lander]`), named as the scene, if it has one.
    package var section: (any SettingsSection.Type)?
    /// The settings outside its section it is made from ("shell.theme"). When a reload changes
    /// one of these or of its section, the scene is saved and made again, keeping its state.
    package var madeFrom: [String]
    /// The admin panel's rows for its section's settings.
    package var adminRows: [AdminRow]
    /// A visitors' scene in `[shell] scenes` without a setting (else offered, and added by the
    /// operator: one that shows the operator's own content).
    package var listedByDefault: Bool
    /// A screensaver that takes the standard one's place while the settings say so.
    package var replacesScreensaver: (@Sendable (SettingsSections) -> Bool)?
    package let make: @Sendable (SceneContext) -> ViewScene

    package init(name: String, aliases: [String] = [], audience: Audience, listedByDefault: Bool = true, texts: TextCatalog,
                section: (any SettingsSection.Type)? = nil, madeFrom: [String] = [], adminRows: [AdminRow] = [],
                replacesScreensaver: (@Sendable (SettingsSections) -> Bool)? = nil, make: @escaping @Sendable (SceneContext) -> ViewScene) {
        (self.name, self.aliases, self.audience, self.listedByDefault, self.texts) = (name, aliases, audience, listedByDefault, texts)
        (self.section, self.madeFrom, self.adminRows, self.replacesScreensaver, self.make) = (section, madeFrom, adminRows, replacesScreensaver, make)
    }

    /// The scene bar's title in English.
    package var title: String { texts.english["scene.\(name)"] ?? name }
}

/// A row of the admin panel: one setting a touch changes, titled by a text key, with its buttons.
/// The values are written as kiosk.toml writes them and read by the setting's declaration.
package struct AdminRow: Sendable {
    package enum Control: Sendable {
        /// − and + step through `values`; the value between them is written by `describe`.
        case steps([Double], describe: @Sendable (Double, Texts) -> String)
        /// A button for each choice, lit while the setting has its value; `unset` is the value
        /// lit while the setting has none of its own (one whose default is derived).
        case choices([Choice], unset: @Sendable (Texts) -> String)
    }
    package struct Choice: Sendable {
        /// As the file writes it (`"left"`, `90`).
        package let value: String
        /// The button's title in English: also its name for tests (`admin lander Left`).
        package let title: String
        /// Its text key, where the title is translated.
        package let key: String?
        package init(_ value: String, title: String, key: String? = nil) { (self.value, self.title, self.key) = (value, title, key) }
    }

    /// The row's name in its buttons' names (`admin words +`).
    package let name: String
    /// The setting it changes, "section.name".
    package let setting: String
    /// Its title's text key.
    package let title: String
    package let control: Control

    package init(name: String, setting: String, title: String, control: Control) {
        (self.name, self.setting, self.title, self.control) = (name, setting, title, control)
    }

    /// The buttons' titles in English (their names).
    package var buttonNames: [String] {
        switch control {
        case .steps: return ["−", "+"]
        case .choices(let choices, _): return choices.map(\.title)
        }
    }
}
