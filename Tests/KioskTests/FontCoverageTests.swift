import Testing
@testable import Kiosk
@testable import KioskRender
@testable import KioskCore

/// Text an operator configured that the installed fonts cannot draw is named with its place in
/// the file, the scripts it needs and the package that has them — by fontconfig's coverage.
@Suite struct FontCoverageTests {
    /// A machine with Latin fonts only (no CJK, no Arabic, no emoji).
    let latinOnly = FontCoverage(covers: { $0 < 0x0370 })

    @Test func phrasesNoFontCoversAreNamedWithTheirPlaceScriptsAndPackage() {
        let text = "[words]\nspeed = 90\nphrases = [\"Hello\", \"こんにちは世界\", \"مرحبا\"]\n"
        let (s, problems) = Settings.parse(text, file: "k.toml")
        #expect(problems.isEmpty)
        let found = s.uncoveredTexts(file: "k.toml", coverage: { latinOnly }).map(\.description)
        #expect(found == [
            "k.toml:3:21: words: \"こんにちは世界\" has 7 characters no installed font covers (Hiragana, Han); install fonts-noto-cjk",
            "k.toml:3:32: words: \"مرحبا\" has 5 characters no installed font covers (Arabic); install fonts-noto-core",
        ])
    }

    @Test func marksThatOnlySteerShapingNeedNoGlyph() {
        let all = FontCoverage(covers: { _ in false })
        // A right-to-left mark, a zero-width joiner, an emoji variation selector, spaces.
        #expect(all.missing(in: "\u{200F} \u{200D}\u{FE0F}\t").isEmpty)
        #expect(all.report("👍 ok") == "has 3 characters no installed font covers (Emoji, Latin); install fonts-noto-color-emoji or fonts-dejavu-core")
    }

    @Test func latinTextNeverAsksTheFonts() {
        let (s, _) = Settings.parse("[words]\nphrases = [\"Grüße\", \"Ça va\"]\n", file: "k.toml")
        var asked = false
        #expect(s.uncoveredTexts(file: "k.toml", coverage: { asked = true; return nil }).isEmpty)
        #expect(!asked)
    }

    @Test func theInstalledFontsCoverLatinAndGreek() throws {
        let fonts = try #require(FontCoverage.installed())
        #expect(fonts.missing(in: "Hello, kiosk · Καλημέρα").isEmpty) // DejaVu, a dependency
        // Code points Unicode never assigned are in no font.
        #expect(fonts.missing(in: "\u{0378}\u{0379}").count == 2)
    }
}
