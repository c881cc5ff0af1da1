import KioskCore
import KioskRender
import KioskUI
import KioskScenes
import KioskPlatform

/// The scenes Kiosk can show, by the names used on the command line and in settings.
enum SceneCatalog {
    static let names = ["touch", "lander", "words", "tiles"]
    static let defaultName = "lander"
    /// The scenes visitors switch between by default (the words scene is the screensaver; the
    /// touch test is the operator's, in the admin panel and the setup).
    static let visitorScenes = ["lander", "tiles"]
    /// What `[shell] scenes` may list: the visitors' scenes, and the touch test for a bench.
    static let barScenes = ["touch", "lander", "tiles"]

    /// The scene's canonical name for `name` or one of its aliases (case-insensitive), else nil.
    static func canonicalName(_ name: String) -> String? {
        switch name.lowercased() {
        case "touch", "touch-test", "touchtest": return "touch"
        case "lander", "lunar-lander": return "lander"
        case "words", "falling-words", "screensaver": return "words"
        case "tiles", "tile-board", "board": return "tiles"
        default: return nil
        }
    }

    /// A new scene called `name` (or an alias), or nil when there is none by that name.
    static func make(_ name: String, fonts: FontCache, scheduler: Scheduler = ManualScheduler(),
                     store: StateStore? = nil, themeDirectory: String? = nil, settings: Settings = Settings(),
                     report: @escaping (String) -> Void = { _ in }) -> ViewScene? {
        switch canonicalName(name) {
        case "touch": return TouchTestScene(fonts: fonts, scheduler: scheduler)
        case "lander":
            let l = LanderScene(fonts: fonts, scheduler: scheduler, store: store, themeDirectory: themeDirectory, report: report)
            l.padSide = settings.padSide
            return l
        case "words": return FallingWordsScene(fonts: fonts, scheduler: scheduler, config: settings.words)
        case "tiles": return TileBoardScene(fonts: fonts, scheduler: scheduler, store: store, themeDirectory: themeDirectory, report: report)
        default: return nil
        }
    }
}
