import Foundation
import Testing
@testable import KioskCore

/// gettext's two forms of a catalog, read as gettext reads them.
@Suite struct MessageCatalogTests {
    static let arabicRule = "nplurals=6; plural=n==0 ? 0 : n==1 ? 1 : n==2 ? 2 : n%100>=3 && n%100<=10 ? 3 : n%100>=11 ? 4 : 5;"

    static let po = """
    # A translator's own comment.
    msgid ""
    msgstr ""
    "Language: ar\\n"
    "Content-Type: text/plain; charset=UTF-8\\n"
    "Plural-Forms: \(arabicRule)\\n"

    #. The scene bar's pill.
    msgctxt "scene.tiles"
    msgid "Tiles"
    msgstr "المربعات"

    msgctxt "touch.points"
    msgid "{n} touch point"
    msgid_plural "{n} touch points"
    msgstr[0] "لا نقاط لمس"
    msgstr[1] "نقطة لمس واحدة"
    msgstr[2] "نقطتا لمس"
    msgstr[3] "{n} نقاط لمس"
    msgstr[4] "{n} نقطة لمس"
    msgstr[5] "{n} نقطة لمس"

    #, fuzzy
    msgctxt "tiles.refill"
    msgid "Refill"
    msgstr "املأ"

    msgctxt "lander.help.body"
    msgid ""
    "First line,\\n"
    "second with a \\"quote\\"."
    msgstr ""
    "السطر الأول،\\n"
    "والثاني \\"باقتباس\\"."

    #~ msgctxt "old.key"
    #~ msgid "Gone"
    #~ msgstr "ذهب"

    """

    @Test func aPoFileIsReadAsGettextReadsIt() throws {
        let c = try MessageCatalog.read(po: Self.po)
        #expect(c.header["Language"] == "ar" && c.plural.count == 6)
        #expect(c.text("scene.tiles", "Tiles") == "المربعات")
        #expect(c.text("tiles.refill", "Refill") == nil, "fuzzy: untranslated")
        #expect(c.text("lander.help.body", "First line,\nsecond with a \"quote\".") == "السطر الأول،\nوالثاني \"باقتباس\".")
        #expect(c.text("old.key", "Gone") == nil, "obsolete")
        let forms = [0, 1, 2, 3, 10, 11, 99, 100, 102, 111].map { c.text("touch.points", "{n} touch point", count: $0)! }
        #expect(forms == ["لا نقاط لمس", "نقطة لمس واحدة", "نقطتا لمس", "{n} نقاط لمس", "{n} نقاط لمس", "{n} نقطة لمس",
                          "{n} نقطة لمس", "{n} نقطة لمس", "{n} نقطة لمس", "{n} نقطة لمس"])
        let entries = try MessageCatalog.entries(po: Self.po)
        #expect(entries.first { $0.context == "scene.tiles" }?.comments == ["The scene bar's pill."])
        #expect(entries.first { $0.context == "scene.tiles" }?.line == 8)
    }

    @Test func msgfmtsCompiledCatalogIsTheSame() throws {
        let dir = "/tmp/kiosk-mo-\(getpid())-\(Int.random(in: 0..<1_000_000))"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try Self.po.write(toFile: dir + "/ar.po", atomically: true, encoding: .utf8)
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/msgfmt")
        p.arguments = ["--check", "-o", dir + "/ar.mo", dir + "/ar.po"]
        try p.run()
        p.waitUntilExit()
        #expect(p.terminationStatus == 0)
        let mo = try MessageCatalog.read(mo: Array(FileManager.default.contents(atPath: dir + "/ar.mo")!))
        let po = try MessageCatalog.read(po: Self.po)
        #expect(mo.messages == po.messages && mo.plural == po.plural && mo.header["Language"] == "ar")
    }

    @Test func badCatalogsAreOneLineNamingWhere() {
        #expect(throws: MessageCatalog.CatalogError(line: 2, message: "a string in double quotes expected")) {
            try MessageCatalog.read(po: "msgctxt \"a\"\nmsgid Tiles\nmsgstr \"x\"\n")
        }
        #expect(throws: MessageCatalog.CatalogError(line: 1, message: "msgstr without a msgid")) { try MessageCatalog.read(po: "msgstr \"x\"\n") }
        #expect(throws: MessageCatalog.CatalogError(line: 0, message: "not a .mo file (no gettext magic number)")) {
            try MessageCatalog.read(mo: Array(repeating: 7, count: 64))
        }
        // A .mo file whose tables point past its end.
        var cut: [UInt8] = [0xDE, 0x12, 0x04, 0x95, 0, 0, 0, 0, 1, 0, 0, 0, 28, 0, 0, 0, 36, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]
        cut += [200, 0, 0, 0, 0, 0, 0, 0, 4, 0, 0, 0, 0, 1, 0, 0]
        #expect(throws: MessageCatalog.CatalogError(line: 0, message: "a .mo file whose string 0 lies outside it")) { try MessageCatalog.read(mo: cut) }
        #expect(throws: MessageCatalog.CatalogError(line: 0, message: "Plural-Forms \"nplurals=2; plural=n +;\" cannot be read")) {
            try MessageCatalog.read(po: "msgid \"\"\nmsgstr \"Plural-Forms: nplurals=2; plural=n +;\\n\"\n")
        }
    }

    @Test func pluralRulesAreEvaluatedAsCDoes() throws {
        let arabic = try #require(PluralRule(header: Self.arabicRule))
        // The CLDR categories the kiosk had written in code, in gettext's order.
        let order = ["zero", "one", "two", "few", "many", "other"]
        let ar = shipped("ar")
        for n in 0...250 { #expect(arabic.index(n) == order.firstIndex(of: ar.pluralCategory(n)), "n = \(n)") }
        let french = try #require(PluralRule(header: "nplurals=2; plural=(n > 1);"))
        #expect([0, 1, 2].map(french.index) == [0, 0, 1])
        let japanese = try #require(PluralRule(header: "nplurals=1; plural=0;"))
        #expect([0, 1, 7].map(japanese.index) == [0, 0, 0])
        // Polish, for an operator's catalog: nested choices and short-circuits.
        let polish = try #require(PluralRule(header: "nplurals=3; plural=(n==1 ? 0 : n%10>=2 && n%10<=4 && (n%100<10 || n%100>=20) ? 1 : 2);"))
        #expect([1, 2, 5, 12, 22, 25].map(polish.index) == [0, 1, 2, 2, 1, 2])
        #expect(PluralRule(header: "nplurals=2; plural=n / 0;")?.index(5) == 0, "no crash on a division by zero")
        #expect(PluralRule(header: "nplurals=9; plural=n;") == nil)
    }
}
