import KioskCore

/// How the visitor at the panel now uses it — the language, the large mode, speech — as one
/// value: the shell keeps it, the bar and the stage show it, and a fresh start puts the site's
/// back (`[shell] language`, `[access] large` and `speech`).
struct VisitorMode: Equatable {
    var texts = Texts.kioskEnglish
    var isLarge = false
    var speaks = false
}
