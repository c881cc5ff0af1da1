import KioskCore

extension FallingWordsScene {
    /// The falling words' words, in English by key, with notes for translators:
    /// gathered into the kiosk's texts (`SceneCatalog.texts`) and its translation template.
    public static let textTable = TextCatalog([
        "scene.words": "Words",
        "admin.speed": "Words speed",
        "admin.speed.value": "{n} pt/s",
    ], notes: [
        "scene.words": "A pill in the scene bar: the screensaver of falling words.",
    ])
}
