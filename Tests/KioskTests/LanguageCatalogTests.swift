import Foundation
import Testing
@testable import Kiosk
@testable import KioskCore
@testable import KioskRender
@testable import KioskUI

/// An operator adds a language by dropping a catalog: made from `kiosk texts --pot` with
/// gettext's own msginit and msgfmt, as the README tells them.
@Suite struct LanguageCatalogTests {
    final class Folder {
        let path = "/tmp/kiosk-locale-\(getpid())-\(Int.random(in: 0..<1_000_000_000))"
        init() { try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true) }
        deinit { try? FileManager.default.removeItem(atPath: path) }
        func write(_ name: String, _ text: String) throws {
            let url = URL(fileURLWithPath: path + "/" + name)
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try text.write(to: url, atomically: true, encoding: .utf8)
        }
        @discardableResult func run(_ tool: String, _ args: [String]) throws -> Int32 {
            let p = Process()
            p.executableURL = URL(fileURLWithPath: "/usr/bin/" + tool)
            p.arguments = args
            p.currentDirectoryURL = URL(fileURLWithPath: path)
            p.standardError = FileHandle.nullDevice
            try p.run()
            p.waitUntilExit()
            return p.terminationStatus
        }
    }

    /// Portuguese from the template: the scene bar, the tiles' buttons and a count translated.
    static func portuguese(in folder: Folder, as name: String = "pt.po") throws {
        try folder.write("kiosk.pot", TemplateMessage.pot())
        try folder.run("msginit", ["--no-translator", "-l", "pt_PT", "-i", "kiosk.pot", "-o", "work.po"])
        var po = try String(contentsOfFile: folder.path + "/work.po", encoding: .utf8)
        for (key, text) in [("scene.lander", "Alunagem"), ("scene.tiles", "Peças"), ("tiles.refill", "Repor")] {
            let english = SceneCatalog.standard.texts.english[key]!
            po = po.replacingOccurrences(of: "msgctxt \"\(key)\"\nmsgid \"\(english)\"\nmsgstr \"\"", with: "msgctxt \"\(key)\"\nmsgid \"\(english)\"\nmsgstr \"\(text)\"")
        }
        po = po.replacingOccurrences(of: "msgid_plural \"{n} selected\"\nmsgstr[0] \"\"\nmsgstr[1] \"\"",
                                     with: "msgid_plural \"{n} selected\"\nmsgstr[0] \"{n} selecionada\"\nmsgstr[1] \"{n} selecionadas\"")
        po = po.replacingOccurrences(of: "X-Kiosk-Language-Name: \\n", with: "X-Kiosk-Language-Name: Português\\n")
        po = po.replacingOccurrences(of: "X-Kiosk-Decimal-Separator: .\\n", with: "X-Kiosk-Decimal-Separator: ,\\n")
        try folder.write(name, po)
        try FileManager.default.removeItem(atPath: folder.path + "/work.po")
        try FileManager.default.removeItem(atPath: folder.path + "/kiosk.pot")
    }

    @Test(arguments: ["pt.po", "pt.mo", "pt/LC_MESSAGES/kiosk.mo"]) func aDroppedCatalogIsALanguage(file: String) throws {
        let folder = Folder()
        try Self.portuguese(in: folder)
        if file != "pt.po" {
            #expect(try folder.run("msgfmt", ["--check", "-o", file == "pt.mo" ? "pt.mo" : "made.mo", "pt.po"]) == 0)
            if file != "pt.mo" { try folder.write(file, ""); try FileManager.default.removeItem(atPath: folder.path + "/" + file)
                try FileManager.default.moveItem(atPath: folder.path + "/made.mo", toPath: folder.path + "/" + file) }
            try FileManager.default.removeItem(atPath: folder.path + "/pt.po")
        }
        let (languages, problems) = LanguageCatalogs.load(directory: folder.path, shipped: repositoryRoot + "/po")
        let pt = try #require(Language.named("pt_BR.UTF-8", in: languages))
        #expect(pt.name == "Português" && pt.decimalSeparator == "," && !pt.isRightToLeft)
        #expect(languages.map(\.code) == shippedLanguages.map(\.code) + ["pt"])
        // Named once, what it lacks: shown in English.
        #expect(problems.count == 1 && problems[0].contains("texts not translated (shown in English)"))
        let texts = kioskTexts(pt)
        #expect(texts["scene.tiles"] == "Peças" && texts["tiles.remove"] == "Remove")
        #expect(texts.count("tiles.selected", 1) == "1 selecionada" && texts.count("tiles.selected", 3) == "3 selecionadas")
        #expect(texts.decimal(2.5, digits: 1) == "2,5")
        // The settings take it, the pill offers it, the setup lists it.
        let (s, fileProblems) = Settings.parse("[shell]\nlanguage = \"pt\"\nlanguages = [\"pt\", \"en\"]\n[text.pt]\n\"tiles.refill\" = \"Encher\"\n",
                                               file: "k.toml", languages: languages)
        #expect(fileProblems.isEmpty)
        #expect(s.language.code == "pt" && s.visitorTexts.map(\.language.code) == ["pt", "en"])
        #expect(s.kioskTexts["tiles.refill"] == "Encher" && s.kioskTexts["scene.lander"] == "Alunagem")
        let setup = SetupScene(fonts: FontCache(), scheduler: ManualScheduler(), settings: s, saved: nil, filePath: nil, stage: nil) { _ in }
        #expect(setup.scenes.languages.map(\.code).last == "pt")
        // Without the catalog, the same file names what it lacks.
        let without = Settings.parse("[shell]\nlanguage = \"pt\"\n", file: "k.toml", languages: shippedLanguages).1.map(\.message)
        #expect(without == ["language must be one of en, ar, de, es, fr, ja (another: a catalog in \(LanguageCatalogs.directory)); using en"])
    }

    @Test func aCatalogOverOneOfTheKiosksOwnLanguagesComesFirst() throws {
        let folder = Folder()
        try folder.write("fr.po", """
        msgid ""
        msgstr "Plural-Forms: nplurals=2; plural=(n > 1);\\n"

        msgctxt "tiles.refill"
        msgid "Refill"
        msgstr "Regarnir"

        """)
        let (languages, _) = LanguageCatalogs.load(directory: folder.path, shipped: repositoryRoot + "/po")
        let fr = try #require(Language.named("fr", in: languages))
        #expect(fr.name == "Français" && fr.decimalSeparator == ",")
        #expect(kioskTexts(fr)["tiles.refill"] == "Regarnir" && kioskTexts(fr)["tiles.remove"] == "Retirer")
        #expect(languages.count == shippedLanguages.count)
    }

    @Test func aBrokenOrWrongCatalogIsOneLineAndTheKioskGoesOn() throws {
        let folder = Folder()
        try folder.write("pt.po", "msgctxt \"scene.tiles\"\nmsgid \"Tiles\"\nmsgstr \"Peças\n")
        try folder.write("it.mo", "this is not a gettext catalog, only some text")
        try folder.write("nl.po", """
        msgctxt "tiles.selected"
        msgid "{n} selected"
        msgid_plural "{n} selected"
        msgstr[0] "{count} gekozen"
        msgstr[1] "{n} gekozen"

        msgctxt "tiles.old"
        msgid "Gone"
        msgstr "Weg"

        """)
        try folder.write("README", "not a language")
        let (languages, problems) = LanguageCatalogs.load(directory: folder.path, shipped: repositoryRoot + "/po")
        #expect(languages.map(\.code) == shippedLanguages.map(\.code) + ["nl"])
        #expect(problems.contains("\(folder.path)/it.mo: not a .mo file (no gettext magic number); language 'it' left out"))
        #expect(problems.contains("\(folder.path)/pt.po:3: a string in double quotes expected; language 'pt' left out"))
        #expect(problems.contains("\(folder.path)/nl.po: 'tiles.selected' uses {count}, which the kiosk does not fill; shown in English"))
        #expect(problems.contains { $0.hasPrefix("\(folder.path)/nl.po: 1 texts the kiosk no longer has or whose English changed") && $0.hasSuffix("tiles.old") })
        // The bad form is not shown; English is.
        let nl = try #require(Language.named("nl", in: languages))
        #expect(kioskTexts(nl).count("tiles.selected", 1) == "1 selected" && kioskTexts(nl).count("tiles.selected", 2) == "2 selected")
    }

    @Test func aTranslationWhoseEnglishChangedIsNamedUntilChecked() throws {
        // msgmerge marks it fuzzy when the kiosk's English changes; shown in English meanwhile.
        let folder = Folder()
        let entry = "msgctxt \"tiles.refill\"\nmsgid \"Refill\"\nmsgstr \"Repor\"\n"
        try folder.write("pt.po", "#, fuzzy\n" + entry)
        var (languages, problems) = LanguageCatalogs.load(directory: folder.path, shipped: repositoryRoot + "/po")
        #expect(problems.contains("\(folder.path)/pt.po: 1 translations marked fuzzy (their English changed; shown in English until checked): tiles.refill"))
        #expect(kioskTexts(try #require(Language.named("pt", in: languages)))["tiles.refill"] == "Refill")
        // The translator checks it.
        try folder.write("pt.po", entry)
        (languages, problems) = LanguageCatalogs.load(directory: folder.path, shipped: repositoryRoot + "/po")
        #expect(!problems.contains { $0.contains("fuzzy") })
        #expect(kioskTexts(try #require(Language.named("pt", in: languages)))["tiles.refill"] == "Repor")
    }

    @Test func theTemplateIsWhatMsgfmtAcceptsOnceALanguageIsChosen() throws {
        let folder = Folder()
        try Self.portuguese(in: folder)
        #expect(try folder.run("msgfmt", ["--check", "-o", "/dev/null", "pt.po"]) == 0)
        let entries = try MessageCatalog.entries(po: TemplateMessage.pot())
        #expect(entries.count - 1 == TemplateMessage.all.count)
        #expect(Set(entries.compactMap(\.context)).count == TemplateMessage.all.count, "one context per text")
        #expect(entries.first { $0.context == "lander.readout" }?.comments == ["The kiosk fills in {altitude}, {down}, {fuel}, {speed}: keep each as it is."])
    }
}
