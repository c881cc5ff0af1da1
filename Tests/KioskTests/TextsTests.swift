import Testing
@testable import Kiosk
@testable import KioskScenes
@testable import KioskUI
@testable import KioskRender
@testable import KioskCore
#if canImport(Glibc)
import Glibc
#endif

/// The kiosk's own words: one catalog in six languages, the operator's `[text]`, the language
/// settings, and the visitors' language pill.
@Suite struct TextsTests {
    // MARK: The catalog

    static let poFiles = ["ar.po", "de.po", "es.po", "fr.po", "ja.po"]

    /// Each po/LANG.po translates every text of the current English, each count in all the forms
    /// its Plural-Forms rule counts, with the placeholders the kiosk fills: an English text changed
    /// since (msgmerge marks its translations fuzzy; without msgmerge it is stale) is named here.
    @Test(arguments: poFiles) func everyShippedCatalogIsCompleteAndCurrent(file: String) throws {
        let path = "\(repositoryRoot)/po/\(file)"
        let catalog = try LanguageCatalogs.read(path).get()
        #expect(LanguageCatalogs.fuzzy(catalog, path: path) == [])
        #expect(LanguageCatalogs.check(catalog, path: path).problems == [])
        #expect(LanguageCatalogs.missing(catalog, path: path) == [])
        for m in TemplateMessage.all where m.msgidPlural == nil {
            let text = catalog.text(m.context, m.msgid) ?? ""
            #expect(TextCatalog.placeholders(text) == TextCatalog.placeholders(m.msgid), "\(file) '\(m.context)': \(text)")
        }
        let language = Language(code: String(file.dropLast(3)), catalog: catalog)
        #expect(catalog.header["Language"] == language.code && language.name != language.code, "\(file): its header names the language")
    }

    /// po/kiosk.pot is what `kiosk texts --pot` prints now: `make pot` after changing English.
    @Test func theTemplateIsTheCurrentEnglish() throws {
        guard case .success(let bytes) = readRegularFile("\(repositoryRoot)/po/kiosk.pot", limit: 1 << 20) else { Issue.record("no po/kiosk.pot"); return }
        #expect(String(decoding: bytes, as: UTF8.self) == TemplateMessage.pot(), "po/kiosk.pot is stale: run make pot")
    }

    /// The package ships exactly the languages in po/, each with its own name, direction and numbers.
    @Test func theShippedLanguagesAreThePoFiles() {
        #expect(shippedLanguages.map(\.code) == ["en", "ar", "de", "es", "fr", "ja"])
        #expect(shippedLanguages.map(\.name) == ["English", "العربية", "Deutsch", "Español", "Français", "日本語"])
        #expect(shippedLanguages.filter(\.isRightToLeft).map(\.code) == ["ar"])
        #expect(shippedLanguages.map { String($0.decimalSeparator) } == [".", ".", ",", ",", ",", "."])
    }

    /// Every key the sources look up by a literal is in the catalog (a missing one would show
    /// its key on screen); keys built from names are checked by name.
    @Test func everyKeyTheKioskAsksForExists() throws {
        let root = String(#filePath).components(separatedBy: "/Tests/")[0] + "/Sources"
        var used: Set<String> = []
        for file in try swiftFiles(under: root) {
            guard case .success(let bytes) = readRegularFile(file, limit: 1 << 20) else { continue }
            let text = String(decoding: bytes, as: UTF8.self)
            // Every string literal shaped like a key ("tiles.hint"), wherever it is: in a lookup,
            // an array of keys, a conditional (not the examples of the texts' own machinery).
            guard !file.contains("/KioskCore/Texts/") else { continue }
            for m in text.matches(of: /"((?:scene|panel|lander|tiles|touch|admin|key|setup|calibrate)\.[A-Za-z.]+)"/) {
                used.insert(String(m.output.1))
            }
        }
        #expect(used.count > 70, "found only \(used.count) keys: the scan is broken")
        let english = SceneCatalog.standard.texts.english
        // Settings' own names look alike ("admin.pin": the [admin] section's pin), and so do the
        // state files' ("setup.json").
        for key in used where !["touch.matrix", "admin.pin", "lander.pad", "admin.json", "setup.json"].contains(key) {
            #expect(english[key] != nil || english["\(key).other"] != nil, "'\(key)' is not in the catalog")
        }
        for name in SceneCatalog.standard.names { #expect(english["scene.\(name)"] != nil) }
        for step in SetupScene.Step.allCases {
            #expect(english["setup.step.\(step.name)"] != nil && english["setup.hint.\(step.name)"] != nil)
        }
    }

    private func swiftFiles(under dir: String) throws -> [String] {
        var out: [String] = []
        guard let d = opendir(dir) else { return [] }
        defer { closedir(d) }
        while let e = readdir(d) {
            let name = withUnsafeBytes(of: e.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            if name.hasPrefix(".") { continue }
            let path = dir + "/" + name
            if name.hasSuffix(".swift") { out.append(path) } else if e.pointee.d_type == UInt8(DT_DIR) { out += try swiftFiles(under: path) }
        }
        return out
    }

    @Test func countsTakeEachLanguagesForms() {
        let en = kioskTexts(.english), fr = kioskTexts(shipped("fr")), ja = kioskTexts(shipped("ja"))
        #expect(en.count("tiles.selected", 1) == "1 selected")
        #expect(en.count("touch.target", 1) == "Small target: 1 hit" && en.count("touch.target", 2) == "Small target: 2 hits")
        #expect(fr.count("tiles.selected", 0) == "0 choisie" && fr.count("tiles.selected", 1) == "1 choisie")
        #expect(fr.count("tiles.selected", 2) == "2 choisies")
        #expect(ja.count("touch.target", 1) == "小さな的：1 回命中")
        let ar = shipped("ar")
        #expect([0, 1, 2, 3, 10, 11, 99, 100, 102, 111].map(ar.pluralCategory)
                == ["zero", "one", "two", "few", "few", "many", "many", "other", "other", "many"])
    }

    @Test func theLocaleNamesTheLanguage() {
        #expect(Language.fromLocale(["LANG": "fr_FR.UTF-8"], in: shippedLanguages).code == "fr")
        #expect(Language.fromLocale(["LANG": "de_AT.UTF-8", "LC_ALL": "ja_JP.UTF-8"], in: shippedLanguages).code == "ja")
        #expect(Language.fromLocale(["LANG": "C.UTF-8"], in: shippedLanguages) == .english)
        #expect(Language.fromLocale(["LANG": "pt_BR.UTF-8"], in: shippedLanguages) == .english) // no table: English
        #expect(Language.fromLocale([:], in: shippedLanguages) == .english)
        #expect(Language.named("es-MX", in: shippedLanguages)?.code == "es" && Language.named("xx", in: shippedLanguages) == nil)
        // A service may start with no locale, or systemd's C.UTF-8: the system's files then say.
        let debian = "#  File generated by update-locale\nLANG=\"de_DE.UTF-8\"\nLANGUAGE=de_DE:de\n"
        #expect(Language.fromLocale([:], files: [debian], in: shippedLanguages).code == "de")
        #expect(Language.fromLocale(["LANG": "C.UTF-8"], files: ["LANG=C.UTF-8\n", debian], in: shippedLanguages).code == "de")
        #expect(Language.fromLocale(["LANG": "es_ES.UTF-8"], files: [debian], in: shippedLanguages).code == "es")
        #expect(Language.fromLocale(["LANG": "POSIX"], files: ["LANG='fr_FR.UTF-8'"], in: shippedLanguages).code == "fr")
        #expect(Language.fromLocale([:], files: ["", "garbage"], in: shippedLanguages) == .english)
    }

    @Test func numbersAreWrittenTheLanguagesWay() {
        #expect(kioskTexts(.english).decimal(1.25, digits: 1) == "1.3")
        #expect(kioskTexts(shipped("de")).decimal(12.04, digits: 1) == "12,0")
        #expect(kioskTexts(shipped("fr")).decimal(-0.5, digits: 2) == "-0,50")
        #expect(kioskTexts(.english).decimal(3, digits: 0) == "3")
    }

    // MARK: The operator's words

    @Test func anOperatorsTextIsCheckedAgainstTheCatalog() {
        let texts = SceneCatalog.standard.texts
        #expect(texts.problem(key: "tiles.hint", value: "Touchez les tuiles") == nil)
        #expect(texts.problem(key: "tiles.hnit", value: "x") == "unknown text 'tiles.hnit' (did you mean 'tiles.hint'?); see kiosk.toml(5) for the list")
        #expect(texts.problem(key: "tiles.selected", value: "{n} tiles")
                == "text 'tiles.selected' depends on a count: give its forms (tiles.selected.one, tiles.selected.other); using the kiosk's own")
        #expect(texts.problem(key: "tiles.selected.other", value: "{count} tiles")
                == "text 'tiles.selected.other' uses {count}, which the kiosk does not fill (it has {n}); using the kiosk's own")
        #expect(texts.problem(key: "lander.readout", value: "Fuel {fuel} %") == nil) // leaving some out is fine
    }

    @Test func theLanguageSettingsAndTheTextTable() {
        let file = """
        [shell]
        language = "fr"
        languages = ["fr", "en", "xx", "ar"]
        [text]
        "tiles.hint" = "Touchez les tuiles"
        lander.flyAgain = "Encore !"
        "tiles.hnit" = "typo"
        [text.en]
        "tiles.hint" = "Touch the tiles"
        [text.de]
        "tiles.refill" = 3

        """
        let (s, problems) = Settings.parse(file, file: "k.toml", languages: shippedLanguages)
        #expect(problems.map(\.description) == [
            "k.toml:3:26: languages: the kiosk has no texts for 'xx' (known: en, ar, de, es, fr, ja); left out",
            "k.toml:7:1: unknown text 'tiles.hnit' (did you mean 'tiles.hint'?); see kiosk.toml(5) for the list",
            "k.toml:11:18: text 'tiles.refill' must be a string in quotes; using the kiosk's own",
        ])
        #expect(s.language.code == "fr")
        #expect(s.visitorTexts.map(\.language.code) == ["fr", "en", "ar"])
        #expect(s.kioskTexts["tiles.hint"] == "Touchez les tuiles")
        #expect(s.kioskTexts["lander.flyAgain"] == "Encore !")
        #expect(s.kioskTexts["tiles.refill"] == "Remplir")
        #expect(s.texts(for: .english)["tiles.hint"] == "Touch the tiles")
        // The operator's words are checked for fonts like the phrases.
        #expect(s.configuredTexts.map(\.setting).contains("text 'tiles.hint'"))
    }

    @Test func withoutALanguageTheFirstVisitorsLanguageOrTheLocaleSpeaks() {
        #expect(Settings.parse("[shell]\nlanguages = [\"de\", \"en\"]\n", file: "k", languages: shippedLanguages).0.language.code == "de")
        #expect(Settings.parse("", file: "k", locale: shipped("es"), languages: shippedLanguages).0.language.code == "es")
        let (s, problems) = Settings.parse("[shell]\nlanguage = \"klingon\"\n", file: "k", locale: shipped("ja"), languages: shippedLanguages)
        #expect(s.language.code == "ja")
        #expect(problems.map(\.description) == ["k:2:12: language must be one of en, ar, de, es, fr, ja (another: a catalog in /etc/kiosk/locale); using ja"])
        #expect(Settings.parse("[shell]\nlanguages = [\"en\"]\n", file: "k", languages: shippedLanguages).0.visitorTexts.count == 1)
    }

    // MARK: Visitors' language pill

    final class Rig {
        let scheduler = ManualScheduler()
        let shell: Shell
        let saver: ScreensaverController
        var now: Double { scheduler.now }
        init(languages: [String], idleReset: Bool = true) {
            let fonts = testFonts, s = scheduler
            var settings = Settings()
            settings.languages = languages.compactMap { Language.named($0, in: shippedLanguages) }
            settings.language = settings.languages[0]
            shell = Shell.make(SceneMaking(fonts: fonts, scheduler: s, settings: settings), names: SceneCatalog.standard.benchScenes, start: "tiles", home: "tiles")
            shell.setLanguages(settings.visitorTexts)
            shell.resetsOnWake = idleReset
            shell.homeScene = "tiles"
            saver = ScreensaverController(shell: shell, scheduler: s, idleTimeout: 60)
            shell.layout(DisplayInfo(size: Size(width: 1280, height: 800), physicalSize: Size(width: 217, height: 136)))
            shell.advance(to: 0)
        }
        func wait(_ dt: Double) { scheduler.advance(to: now + dt); shell.advance(to: now) }
        func tap(_ p: Point) {
            shell.handle(TouchBatch(time: now, points: [touch(1, .began, p.x, p.y)]))
            wait(0.05)
            shell.handle(TouchBatch(time: now, points: [touch(1, .ended, p.x, p.y)]))
            wait(0.5)
        }
        var pill: Rect? { shell.chromeBar.languageFrame }
        var tiles: TileBoardScene { shell.current as! TileBoardScene }
    }

    @Test func thePillSwitchesEverySceneLiveAndAFreshStartBringsTheDefaultBack() throws {
        let r = Rig(languages: ["en", "fr", "ar"])
        let pill = try #require(r.pill)
        #expect(r.tiles.status.text == "Tap or drag across tiles to select them")
        r.tap(pill.center)
        #expect(r.shell.texts.language.code == "fr")
        #expect(r.tiles.status.text == "Touchez ou glissez sur les tuiles pour les choisir")
        #expect(r.shell.chromeBar.buttons.map(\.title) == ["Test tactile", "Alunissage", "Tuiles"])
        // A scene made after the switch comes in the visitor's language too.
        r.tap(r.shell.sceneBarFrames[1].center)
        let lander = try #require(r.shell.current as? LanderScene)
        #expect(lander.readout.text.hasPrefix("Vitesse"))
        // Arabic: the bar reads from the right, the pad comes to the left, text aligns right.
        r.tap(try #require(r.pill).center)
        #expect(r.shell.texts.language.code == "ar")
        let bar = r.shell.sceneBarFrames
        #expect(bar[0].minX > bar[1].minX && bar[1].minX > bar[2].minX, "the first scene on the right")
        #expect(try #require(r.pill).maxX < bar[2].minX, "the language pill on the left")
        #expect(lander.pad.center.x < 640 && lander.readout.frame.maxX > 1000)
        #expect(lander.view.isRightToLeft)
        // Nobody here: the screensaver; the next visitor finds the kiosk's own language.
        r.wait(61)
        #expect(r.shell.showingScreensaver)
        r.tap(Point(x: 600, y: 400))
        #expect(r.shell.texts.language.code == "en")
        #expect(r.tiles.status.text == "Tap or drag across tiles to select them")
        #expect(!r.tiles.view.isRightToLeft)
        let barAfter = r.shell.sceneBarFrames
        #expect(barAfter[0].minX < barAfter[1].minX)
    }

    @Test func oneLanguageShowsNoPill() {
        let r = Rig(languages: ["de"])
        #expect(r.pill == nil)
        #expect(r.shell.sceneBarFrames.count == 5, "three scenes, large text and speech")
        #expect(r.tiles.status.text == "Tippe auf Kacheln oder wische darüber, um sie auszuwählen")
    }

    // MARK: Line breaking

    @Test func japaneseBreaksBetweenCharactersNotBeforeClosingMarks() throws {
        let font = try #require(testFonts.font(points: 20, scale: 1))
        let text = kioskTexts(shipped("ja"))["setup.hint.touch"]
        let lines = Label.wrap(text, font: font, width: 300, maxLines: .max)
        #expect(lines.count >= 3)
        for l in lines {
            #expect(l.width <= 300.5, "'\(l.text)' is \(l.width) wide")
            #expect(!"、。」）：".contains(l.text.first!), "'\(l.text)' starts with a closing mark")
        }
        #expect(lines.map(\.text).joined() == text.split(separator: "\n").joined())
        // Latin still breaks at spaces only.
        #expect(Label.breakPieces("Hello world"[...]).map(\.0) == ["Hello", "world"])
    }
}

/// The language pill beside three scene pills on every panel of the matrix, with the widest
/// language names: on screen, a fingertip tall, overlapping nothing, in both directions.
@Suite struct LanguagePillTests {
    @Test(arguments: PanelMatrixTests.panels) func thePillFitsBesideTheScenes(panel: PanelMatrixTests.Panel) throws {
        for first in ["fr", "ar"] {
            let fonts = testFonts, s = ManualScheduler()
            var settings = Settings()
            settings.languages = [first, "es", "ja", "de", "en"].compactMap { Language.named($0, in: shippedLanguages) }
            settings.language = settings.languages[0]
            let shell = Shell.make(SceneMaking(fonts: fonts, scheduler: s, settings: settings), names: SceneCatalog.standard.benchScenes, start: "tiles", home: "tiles")
            shell.setLanguages(settings.visitorTexts)
            let r = try HeadlessRenderer(scene: shell, info: panel.info)
            r.run(until: 0.5)
            let frames = shell.sceneBarFrames, mm = panel.info.pointsPerMillimetre
            #expect(frames.count == 6, "\(panel.name) \(first): three scenes, the language pill, large text and speech")
            for (i, f) in frames.enumerated() {
                #expect(f.minX >= 0 && f.maxX <= panel.size.width && f.height >= 9 * mm - 1e-6, "\(panel.name) \(first): \(f)")
                for g in frames[(i + 1)...] { #expect(f.intersection(g).width <= 0.01, "\(panel.name) \(first): \(f) overlaps \(g)") }
            }
            let pill = shell.chromeBar.languageButton
            #expect(!pill.titleLabel.isTextTruncated, "\(panel.name): '\(pill.title)' does not fit")
            for b in shell.chromeBar.buttons { #expect(!b.titleLabel.isTextTruncated, "\(panel.name): '\(b.title)' does not fit") }
        }
    }
}

@Suite struct LanguageBeforeLayoutTests {
    /// A scene given its language before its first layout (the shell makes scenes so) is laid
    /// out once, at the display's size: its views do not fly in from the default size.
    @Test func aLanguageSetBeforeTheFirstLayoutDoesNotAnimateTheSceneIntoPlace() throws {
        func board(_ code: String) throws -> Image {
            let scene = TileBoardScene(fonts: testFonts)
            scene.texts = kioskTexts(Language.named(code, in: shippedLanguages)!)
            let r = try HeadlessRenderer(scene: scene, info: DisplayInfo(size: Size(width: 1280, height: 720)))
            r.renderFrame()
            #expect(!scene.host.isAnimating, "\(code): the tiles are moving at the first frame")
            return r.image
        }
        let en = try board("en"), ar = try board("ar")
        var differ = 0
        for y in stride(from: 0, to: 560, by: 4) { for x in stride(from: 0, to: 1280, by: 4) where en.pixel(x: x, y: y) != ar.pixel(x: x, y: y) { differ += 1 } }
        #expect(differ == 0, "the boards differ in \(differ) sampled pixels above the hint")
    }
}
