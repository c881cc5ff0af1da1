import Foundation
import Testing
@testable import Kiosk
@testable import KioskCore
import KioskScenes

/// The settings' one list against what operators read: kiosk.toml(5) and kiosk.toml.example.
@Suite struct SettingDeclarationTests {
    /// Each `.BR name " = value"` entry of a `[section]` of the man page, as "section.name" →
    /// "name = value" rendered ("\(dq" a double quote, quoted arguments one word).
    static func manPageEntries() throws -> [String: String] {
        try manPage().mapValues(\.heading)
    }

    /// Each entry of the man page as "section.name" → its heading ("name = value") and the
    /// paragraph under it (the lines up to the next entry or section, joined by spaces).
    static func manPage() throws -> [String: (heading: String, text: String)] {
        let page = try String(contentsOfFile: repositoryRoot + "/Packaging/man/kiosk.toml.5", encoding: .utf8)
        var section: String?, entries: [String: (heading: String, text: String)] = [:], current: String?
        for line in page.split(separator: "\n").map(String.init) {
            if line.hasPrefix(".SH ") {
                let title = line.dropFirst(4).filter { $0 != "\"" }
                section = title.hasPrefix("[") && title != "[text]" ? String(title.dropFirst().dropLast()) : nil
                current = nil
            } else if let section, line.hasPrefix(".BR "), line.contains("\" = ") {
                let words = troffArguments(String(line.dropFirst(4)))
                current = "\(section).\(words[0])"
                entries[current!] = (words.joined().replacingOccurrences(of: "\\(dq", with: "\""), "")
            } else if line.hasPrefix(".TP") {
                current = nil
            } else if let key = current {
                entries[key]!.text += " " + line
            }
        }
        return entries
    }

    /// A request's arguments: split at spaces, a quoted argument one (its quotes dropped).
    static func troffArguments(_ text: String) -> [String] {
        var args: [String] = [], current = "", quoted = false
        for c in text {
            if c == "\"" { quoted.toggle(); continue }
            if c == " " && !quoted {
                if !current.isEmpty { args.append(current) }
                current = ""
            } else { current.append(c) }
        }
        if !current.isEmpty { args.append(current) }
        return args
    }

    @Test func theManPageDocumentsEverySettingWithItsDefaultOrAnExample() throws {
        let entries = try Self.manPageEntries()
        let declared = Set(Settings.declarations.map(\.key))
        #expect(Set(entries.keys).subtracting(declared).sorted() == [], "documented, but no such setting")
        #expect(declared.subtracting(entries.keys).sorted() == [], "settings kiosk.toml(5) does not document")
        for d in Settings.declarations {
            guard let shown = entries[d.key] else { continue }
            #expect(shown == "\(d.name) = \(d.example ?? d.defaultText)", "\(d.key)")
        }
        // A number's range is the one the kiosk checks.
        let paragraphs = try Self.manPage()
        for d in Settings.declarations {
            guard let range = d.range, let text = paragraphs[d.key]?.text else { continue }
            #expect(text.contains("\(format(range.lowerBound)) to \(format(range.upperBound))"), "\(d.key): \(text)")
        }
        // What a saved file does not change at once, it says.
        let page = try String(contentsOfFile: repositoryRoot + "/Packaging/man/kiosk.toml.5", encoding: .utf8)
        for d in Settings.declarations where !d.live {
            #expect(page.contains(".B \(d.name)\napplies at the next start"), "\(d.key)")
        }
    }

    @Test func theAdminPanelsStepsLieWithinTheDeclaredRanges() {
        for row in SceneCatalog.standard.adminRows + AdminPanel.kioskRows {
            guard case .steps(let values, _) = row.control else { continue }
            #expect(values.allSatisfy(Settings.range(row.setting).contains), "\(row.setting)")
        }
    }

    @Test func theExampleFileNamesEverySettingInItsSection() throws {
        let text = try String(contentsOfFile: repositoryRoot + "/Packaging/kiosk.toml.example", encoding: .utf8)
        var section = "", found: Set<String> = []
        for raw in text.split(separator: "\n") {
            let line = raw.hasPrefix("# ") ? raw.dropFirst(2) : raw[...]
            if line.hasPrefix("[") { section = String(line.dropFirst().prefix { $0 != "]" }); continue }
            if let eq = line.range(of: " = ") { found.insert("\(section).\(line[..<eq.lowerBound])") }
        }
        let declared = Set(Settings.declarations.map(\.key))
        #expect(declared.subtracting(found).sorted() == [])
        #expect(found.filter { !$0.hasPrefix("text.") }.subtracting(declared).sorted() == [])
    }

    @Test func theDeclaredDefaultsAreWhatTheKioskHasWithoutAFile() {
        // Settings() is made by reading them: each must read without a problem, and they give
        // what the scenes and the catalog say (the scene list, the words' own defaults).
        #expect(Settings.readDefaults(into: Settings()).1 == [])
        let s = Settings()
        #expect(s.scenes == SceneCatalog.standard.defaultScenes && s.start == SceneCatalog.standard.defaultName)
        #expect(s.sections[FallingWordsConfig.self] == FallingWordsConfig() && s.idleTimeout == 120 && s.adminCorner == .topLeft && s.sceneBar)
        #expect(s.sections[LanderSettings.self].pad == nil && s.language == .english && s.configuredTexts.isEmpty && s.fileKeys.isEmpty)
    }

    @Test func everyDefaultIsWhatAnEmptyFileGives() throws {
        // Each default, written in a file of its own, reads back as the defaults without problems;
        // but the language (the locale's), the pad's side (the language's) and the gesture (said
        // to need a PIN), whose defaults depend on something else.
        let dependent = ["shell.language", "lander.pad", "admin.gesture"]
        for d in Settings.declarations where !dependent.contains(d.key) {
            let (s, problems) = Settings.parse("[\(d.section)]\n\(d.name) = \(d.defaultText)\n", file: "k.toml")
            #expect(problems.isEmpty, "\(d.key): \(problems)")
            var plain = s
            plain.fileKeys = []
            plain.configuredTexts = []
            #expect(plain == Settings(), "\(d.key) = \(d.defaultText) is not the default")
        }
    }

    @Test func aNumberOutsideItsDeclaredRangeIsRefusedAtEitherEnd() {
        for d in Settings.declarations {
            guard let range = d.range else { continue }
            for bad in [range.lowerBound - 1, range.upperBound + 1] {
                let (_, problems) = Settings.parse("[\(d.section)]\n\(d.name) = \(bad)\n", file: "k.toml")
                #expect(problems.map(\.message).first?.hasPrefix("\(d.name) must be a number from") == true, "\(d.key) = \(bad)")
            }
        }
        // The admin panel's stored values go through the same ranges.
        var s = Settings()
        PanelSettings(["words.speed": "9000", "shell.idle_timeout": "-5"]).apply(to: &s)
        #expect(s == Settings())
    }

    /// The setup, the admin panel and the command line are layers over the same declarations:
    /// each of their values is read and checked as the file's is, and a refused one says where
    /// it came from.
    @Test func theSetupTheAdminPanelAndTheCommandLineAreCheckedAsTheFileIs() {
        let file = Settings.parse("[shell]\nidle_timeout = 100000\n", file: "k").1.map(\.message)
        #expect(file == ["idle_timeout must be a number from 0 to 86400; using 120"])
        var s = Settings()
        #expect(PanelSettings(["shell.idle_timeout": "100000"]).apply(to: &s) == ["admin.json: " + file[0]])
        #expect(Overrides(idleTimeout: 100_000).problems == ["--idle-timeout 100000: idle_timeout must be a number from 0 to 86400"])
        #expect(Overrides(rotate: 45).problems == ["--rotate 45: rotate must be \"auto\", 0, 90, 180 or 270"])
        #expect(SetupChoices(rotate: 7).apply(to: &s) == ["setup.json: rotate must be \"auto\", 0, 90, 180 or 270; using \"auto\""])
        #expect(s == Settings())

        // Every value each layer can hold is a declared setting, taken as the file would take it.
        let all = (setup: SetupChoices(touchMatrix: [-1, 0, 1, 0, 1, 0], rotate: 1, pin: "2580", scenes: ["tiles"], start: "tiles", language: "en"),
                   panel: PanelSettings(["words.speed": "300", "lander.pad": "\"left\"", "shell.idle_timeout": "30", "shell.rotate": "180"]))
        #expect(all.setup.apply(to: &s) == [] && all.panel.apply(to: &s) == [] && Overrides(idleTimeout: 9, rotate: 270).problems == [])
        let same = Settings.parse("""
            [shell]\nidle_timeout = 30\nrotate = 180\nscenes = ["tiles"]\nstart = "tiles"\nlanguage = "en"
            [touch]\nmatrix = [-1, 0, 1, 0, 1, 0]\n[admin]\npin = "2580"\n[words]\nspeed = 300\n[lander]\npad = "left"
            """, file: "k").0
        s.fileKeys = same.fileKeys
        #expect(s == same)
    }

    /// A reload says which changed setting the running kiosk keeps until its next start, and
    /// nothing for the ones it takes at once.
    @Test func aReloadNamesAChangedSettingThatWaitsForTheNextStart() {
        for d in Settings.declarations where !d.live { #expect(d.value != nil, "\(d.key) says it is not live but not what it is") }
        let old = Settings.parse("[shell]\nstart = \"lander\"\nidle_timeout = 5\n", file: "k").0
        let new = Settings.parse("[shell]\nstart = \"tiles\"\nidle_timeout = 9\n", file: "k").0
        #expect(SettingsController.waitingForNextStart(old: old, new: new)
                == ["[shell] start is now tiles: the kiosk takes it at its next start (it keeps lander)"])
        #expect(SettingsController.waitingForNextStart(old: old, new: old).isEmpty)
    }
}
