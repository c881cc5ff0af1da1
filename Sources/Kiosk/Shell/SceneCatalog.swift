import KioskCore
import KioskRender
import KioskUI
import KioskScenes

/// What a scene is made with: the same for every scene.
struct SceneMaking {
    var fonts: FontCache
    var scheduler: Scheduler = ManualScheduler()
    var store: StateStore?
    /// The theme folder (`[shell] theme`, else `$KIOSK_THEME_DIR`).
    var themeDirectory: String?
    var settings = Settings()
    /// A problem with the scene's saved state or assets, one line for the journal.
    var report: (String) -> Void = { _ in }
}

/// One scene, described once, as UIKit registers a view controller once: the scene bar, the
/// catalog, the settings' checks, the setup's scenes step, rebuilding on a reload and the
/// metrics' labels all derive from it.
struct SceneDescription: Sendable {
    /// Who reaches the scene: visitors (the scene bar by default; the setup offers it), operators
    /// (in `[shell] scenes` for a bench, and the admin panel), or nobody (the screensaver).
    enum Audience: Sendable { case visitors, operators, screensaver }

    /// The name on the command line, in settings, the journal and the metrics.
    let name: String
    /// Other names accepted for it (case-insensitive).
    var aliases: [String] = []
    /// The scene bar's title in English; the languages' under the text key `scene.<name>`.
    let title: String
    let audience: Audience
    /// Its own section of kiosk.toml (`[lander]`), if it has one.
    var settings: [SettingDeclaration] = []
    /// The settings outside its section it is made from ("shell.theme"). When a reload changes
    /// one of these or of its section, the scene is saved and made again, keeping its state.
    var madeFrom: [String] = []
    let make: @Sendable (SceneMaking) -> ViewScene
}

/// The scenes Kiosk can show. `standard` is the product's; a test may make its own.
struct SceneCatalog: Sendable {
    let scenes: [SceneDescription]

    static let standard: SceneCatalog = SceneCatalog(scenes: [
        SceneDescription(name: "touch", aliases: ["touch-test", "touchtest"], title: "Touch test", audience: .operators) {
            TouchTestScene(fonts: $0.fonts, scheduler: $0.scheduler)
        },
        SceneDescription(name: "lander", aliases: ["lunar-lander"], title: "Lander", audience: .visitors,
                         settings: Settings.landerDeclarations, madeFrom: ["shell.theme"]) { m in
            let l = LanderScene(fonts: m.fonts, scheduler: m.scheduler, store: m.store, themeDirectory: m.themeDirectory, report: m.report)
            l.padSide = m.settings.padSide
            return l
        },
        SceneDescription(name: "words", aliases: ["falling-words", "screensaver"], title: "Words", audience: .screensaver,
                         settings: Settings.wordsDeclarations) {
            FallingWordsScene(fonts: $0.fonts, scheduler: $0.scheduler, config: $0.settings.words)
        },
        SceneDescription(name: "tiles", aliases: ["tile-board", "board"], title: "Tiles", audience: .visitors,
                         madeFrom: ["shell.theme"]) {
            TileBoardScene(fonts: $0.fonts, scheduler: $0.scheduler, store: $0.store, themeDirectory: $0.themeDirectory, report: $0.report)
        },
    ])

    /// Every scene's name, in the catalog's order.
    var names: [String] { scenes.map(\.name) }
    /// The scenes visitors switch between by default, and the setup offers.
    var visitorScenes: [String] { scenes.filter { $0.audience == .visitors }.map(\.name) }
    /// What `[shell] scenes` and `start` may name: the visitors' scenes, and operators' for a bench.
    var barScenes: [String] { scenes.filter { $0.audience != .screensaver }.map(\.name) }
    /// The first visitors' scene: the start scene without a setting.
    var defaultName: String { visitorScenes.first ?? names[0] }
    /// What idle shows.
    var screensaverName: String { scenes.first { $0.audience == .screensaver }?.name ?? defaultName }

    func description(_ name: String) -> SceneDescription? {
        let n = name.lowercased()
        return scenes.first { $0.name == n || $0.aliases.contains(n) }
    }

    /// The scene's canonical name for `name` or one of its aliases (case-insensitive), else nil.
    func canonicalName(_ name: String) -> String? { description(name)?.name }

    /// A new scene called `name` (or an alias), or nil when there is none by that name.
    func make(_ name: String, _ making: SceneMaking) -> ViewScene? { description(name)?.make(making) }

    /// The scene bar's title of `name` in `texts`' language.
    func title(_ name: String, _ texts: Texts) -> String {
        texts["scene.\(name)", default: description(name)?.title ?? name]
    }

    /// The scenes made from something that differs between `old` and `new`.
    func changed(from old: Settings, to new: Settings) -> Set<String> {
        let declared = Settings.declarations(for: self)
        return Set(scenes.filter { scene in
            let keys = Set(scene.settings.map(\.key) + scene.madeFrom)
            return declared.contains { d in keys.contains(d.key) && d.value.map { $0(old) != $0(new) } ?? false }
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
