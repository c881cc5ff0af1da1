/// The scenes Kiosk can show, by the names used on the command line and in settings.
enum SceneCatalog {
    static let names = ["touch"]
    static let defaultName = "touch"

    /// A new scene called `name`, or nil when there is none by that name.
    static func make(_ name: String, fonts: FontCache) -> Scene? {
        switch name.lowercased() {
        case "touch", "touch-test", "touchtest": return TouchTestScene(fonts: fonts)
        default: return nil
        }
    }
}
