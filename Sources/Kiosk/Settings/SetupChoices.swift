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

    /// These choices over `s`, each checked again (the saved file may have been edited), none
    /// where the file gives its own value.
    func apply(to s: inout Settings, catalog: SceneCatalog = .standard) {
        let k = SetupChoices.keys, file = s.fileKeys
        if let m = touchMatrix, !file.contains(k.touchMatrix),
           TouchCalibration.transform(libinputMatrix: m, size: Size(width: 1, height: 1)) != nil {
            s.touchMatrix = m == TouchCalibration.identityMatrix ? nil : m
        }
        if let r = rotate, !file.contains(k.rotate), (0...3).contains(r) { s.rotate = Rotation(quarterTurns: r) }
        if let p = pin, !file.contains(k.pin), SetupChoices.isValidPIN(p) { s.adminPIN = p }
        if let names = scenes, !file.contains(k.scenes) {
            let valid = names.filter(catalog.visitorScenes.contains)
            if !valid.isEmpty { s.scenes = valid }
        }
        if let n = start, !file.contains(k.start), s.scenes.contains(n) { s.start = n }
        if let c = language, !file.contains(k.language), let l = Language.named(c, in: s.knownLanguages) { s.language = l }
        if !s.scenes.contains(s.start), !file.contains(k.start) { s.start = s.scenes[0] }
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
