import KioskCore

/// What the setup screen chose, kept in the state store (`setup.json`): the kiosk's user cannot
/// write /etc, and the operator's file is never rewritten. It applies over the file only where
/// the file is silent (`Settings.fileKeys`), under the admin panel's changes and the command line.
struct SetupChoices: Codable, Equatable {
    /// "Start the kiosk" was pressed: the setup screen does not come back by itself.
    var done = false
    /// libinput's calibration matrix from "Calibrate" (the identity once reset).
    var touchMatrix: [Double]?
    var rotate: Int?
    var pin: String?
    var scenes: [String]?
    var start: String?
    /// The kiosk's language (a code: "fr").
    var language: String?

    static let storeName = "setup"

    /// The file's key each choice stands for.
    static let keys = (touchMatrix: "touch.matrix", rotate: "shell.rotate", pin: "admin.pin", scenes: "shell.scenes", start: "shell.start",
                       language: "shell.language")

    /// These choices as the settings they stand for, under the file: each is read by its
    /// setting's declaration (the saved file may have been edited). The scenes are those of
    /// the visitors' the setup offers.
    func layer(from origin: String, catalog: SceneCatalog = .standard) -> SettingsLayer {
        let k = SetupChoices.keys
        var l = SettingsLayer(underTheFile: true)
        l.add(k.touchMatrix, touchMatrix.map(TOMLText.numbers), from: origin)
        l.add(k.rotate, rotate.map(TOMLText.degrees), from: origin)
        l.add(k.pin, pin.map(TOML.quoted), from: origin)
        l.add(k.scenes, scenes.map { TOMLText.list($0.filter(catalog.visitorScenes.contains)) }, from: origin)
        l.add(k.start, start.map(TOML.quoted), from: origin)
        l.add(k.language, language.map(TOML.quoted), from: origin)
        return l
    }

    /// These choices over `s` where the file is silent; a start the chosen scenes leave out
    /// gives way to the first of them.
    @discardableResult
    func apply(to s: inout Settings, from origin: String = "setup.json", catalog: SceneCatalog = .standard) -> [String] {
        let problems = layer(from: origin, catalog: catalog).apply(to: &s, catalog: catalog)
        if !s.scenes.contains(s.start), !s.fileKeys.contains(SetupChoices.keys.start) { s.start = s.scenes[0] }
        return problems
    }

    static func isValidPIN(_ p: String) -> Bool { (4...8).contains(p.count) && p.allSatisfy { $0.isASCII && $0.isNumber } }

    /// "Use file settings" on the admin panel: back to the file, except the PIN (without it the
    /// panel could not be opened again) and having been set up.
    var keepingThePIN: SetupChoices { SetupChoices(done: done, pin: pin) }

    /// Whether the kiosk starts in the setup screen: no PIN from the file or an earlier setup,
    /// never set up, and no scene asked for on the command line (a bench, `make run`). A kiosk
    /// that ran before the setup screen existed (saved state, no setup record) was set up then:
    /// an upgrade must not greet its visitors with the setup.
    static func isNeeded(settings: Settings, saved: SetupChoices?, sceneAsked: Bool, ranBefore: Bool) -> Bool {
        guard settings.adminPIN == nil, !sceneAsked else { return false }
        if let saved { return !saved.done }
        return !ranBefore
    }
}
