import KioskCore

enum ShellTexts {
    /// The shell's own words: the scene bar's round pills and the question before a fresh start, in English by key, with notes for translators:
    /// gathered into the kiosk's texts (`SceneCatalog.texts`) and its translation template.
    static let table = TextCatalog([
        "access.speech": "Speech",
        "access.large": "Large text",
        "access.moreTime": "Do you need more time? Touch the screen to go on.",
    ], notes: [
        "access.speech": "The name of the scene bar's round button with the symbol of access: it turns speech on and off.",
        "access.large": "The name of the scene bar's round \"aA\" button, as speech says it: it turns the large high-contrast mode on and off.",
        "access.moreTime": "Shown and spoken before the kiosk starts afresh for the next visitor, while speech is on: any touch keeps the visitor's place.",
    ])
}

extension Texts {
    /// The standard kiosk's words in English: what a part shows until the settings give it the
    /// kiosk's language.
    static let kioskEnglish = Texts(table: SceneCatalog.standard.texts)
}
