import KioskCore
import KioskRender
import KioskUI
import KioskScenes

/// What a scene is made with in the kiosk: the settings it is made from, and the rest.
struct SceneMaking {
    var fonts: FontCache
    var scheduler: Scheduler = ManualScheduler()
    var store: StateStore?
    /// The theme folder (`[shell] theme`, else `$KIOSK_THEME_DIR`).
    var themeDirectory: String?
    var settings = Settings()
    /// A problem with the scene's saved state or assets, one line for the journal.
    var report: (String) -> Void = { _ in }
    /// Where work too slow for a frame goes: the live kiosk's helper thread, else at once.
    var helper: Helper = InlineHelper()

    /// What the scene itself is given.
    var context: SceneContext {
        SceneContext(fonts: fonts, scheduler: scheduler, store: store, themeDirectory: themeDirectory,
                     sections: settings.sections, helper: helper, report: report)
    }
}

/// The scenes Kiosk can show, each described in its own folder (`SceneDescription`). `standard`
/// is the product's; a test may make its own.
struct SceneCatalog: Sendable, Equatable {
    let scenes: [SceneDescription]
    /// Every part's words in English: the shell's, the operators' screens', the toolkit's and
    /// each scene's. `[text]` may set these, and the translation template lists them.
    let texts: TextCatalog

    init(scenes: [SceneDescription]) {
        self.scenes = scenes
        texts = TextCatalog(gathering: [ShellTexts.table, OperatorTexts.table, ToolkitTexts.table] + scenes.map(\.texts))
    }

    /// The screensaver before the visitors' scenes: the admin panel lists their rows in this order.
    static let standard = SceneCatalog(scenes: [
        TouchTestScene.description, FallingWordsScene.description, LanderScene.description, TileBoardScene.description,
        ExhibitsScene.description, ExhibitSlidesScene.description,
    ])

    /// One catalog is one set of scenes: two are alike when they were made as one.
    static func == (a: SceneCatalog, b: SceneCatalog) -> Bool { a.texts === b.texts }

    /// Every scene's name, in the catalog's order.
    var names: [String] { scenes.map(\.name) }
    /// The scenes the setup offers visitors.
    var visitorScenes: [String] { scenes.filter { $0.audience == .visitors }.map(\.name) }
    /// The scenes visitors switch between without a setting.
    var defaultScenes: [String] { scenes.filter { $0.audience == .visitors && $0.listedByDefault }.map(\.name) }
    /// What `[shell] scenes` and `start` may name: the visitors' scenes, and operators' for a bench.
    var barScenes: [String] { scenes.filter { $0.audience != .screensaver }.map(\.name) }
    /// A bench's bar: the scenes listed without a setting, and the operators'.
    var benchScenes: [String] { scenes.filter { $0.audience != .screensaver && $0.listedByDefault }.map(\.name) }
    /// The first visitors' scene: the start scene without a setting.
    var defaultName: String { defaultScenes.first ?? visitorScenes.first ?? names[0] }
    /// What idle shows with `sections`' settings: a screensaver that replaces the standard one
    /// while they say so (the exhibits' pictures), else the standard one.
    func screensaverName(_ sections: SettingsSections) -> String {
        let savers = scenes.filter { $0.audience == .screensaver }
        return (savers.first { $0.replacesScreensaver?(sections) ?? false } ?? savers.first { $0.replacesScreensaver == nil })?.name ?? defaultName
    }

    func description(_ name: String) -> SceneDescription? {
        let n = name.lowercased()
        return scenes.first { $0.name == n || $0.aliases.contains(n) }
    }

    /// The scene's canonical name for `name` or one of its aliases (case-insensitive), else nil.
    func canonicalName(_ name: String) -> String? { description(name)?.name }

    /// A new scene called `name` (or an alias), or nil when there is none by that name.
    func make(_ name: String, _ making: SceneMaking) -> ViewScene? { description(name)?.make(making.context) }

    /// The scene bar's title of `name` in `texts`' language.
    func title(_ name: String, _ texts: Texts) -> String {
        texts["scene.\(name)", default: description(name)?.title ?? name]
    }

    /// The admin panel's rows of the scenes' sections, in the catalog's order.
    var adminRows: [AdminRow] { scenes.flatMap(\.adminRows) }

    /// The scenes made from the setting `key` ("exhibits.folder"): of their section, or named.
    func scenes(madeFrom key: String) -> Set<String> {
        Set(scenes.filter { $0.section != nil && key.hasPrefix($0.name + ".") || $0.madeFrom.contains(key) }.map(\.name))
    }

    /// The scenes made from something that differs between `old` and `new`: a setting of their
    /// section, or one they name as made from.
    func changed(from old: Settings, to new: Settings) -> Set<String> {
        let declared = Settings.declarations(for: self)
        return Set(scenes.filter { scene in
            let keys = Set(scene.madeFrom)
            return declared.contains { d in
                (d.section == scene.name && scene.section != nil || keys.contains(d.key)) && d.value.map { $0(old) != $0(new) } ?? false
            }
        }.map(\.name))
    }
}

extension SceneCatalog {
    /// One of the standard scenes, made with these (tools and tests).
    static func make(_ name: String, fonts: FontCache, scheduler: Scheduler = ManualScheduler(), store: StateStore? = nil,
                     themeDirectory: String? = nil, settings: Settings = Settings(), report: @escaping (String) -> Void = { _ in }) -> ViewScene? {
        standard.make(name, SceneMaking(fonts: fonts, scheduler: scheduler, store: store, themeDirectory: themeDirectory,
                                        settings: settings, report: report))
    }
}

extension SceneDescription {
    /// Its section's settings, as the kiosk declares its own.
    var declarations: [SettingDeclaration] { section.map { SettingDeclaration.section($0, named: name) } ?? [] }
}
