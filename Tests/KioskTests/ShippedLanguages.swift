@testable import Kiosk
import KioskCore

/// The package's languages as the tests have them: read from po/*.po in the repository, as the
/// kiosk reads their compiled catalogs under /usr/share/locale.
let shippedLanguages: [Language] = loadShippedLanguages().languages

/// What `SettingsController` reads at start and on each reload, for the tests: po/*.po.
func loadShippedLanguages() -> (languages: [Language], problems: [String]) {
    LanguageCatalogs.load(directory: "/nonexistent", shipped: repositoryRoot + "/po")
}

/// One of the package's languages by code ("fr").
func shipped(_ code: String) -> Language {
    guard let l = Language.named(code, in: shippedLanguages) else { fatalError("no po/\(code).po") }
    return l
}
