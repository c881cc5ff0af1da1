import Testing
#if canImport(Glibc)
import Glibc
#endif
@testable import Kiosk
@testable import KioskScenes
@testable import KioskUI
@testable import KioskRender
@testable import KioskCore

/// A scene added the way a developer adds one: its folder (Scenes/Paint: the scene, its
/// description, words, section and admin row), and its line in the catalog; nothing else.
@Suite struct SceneCatalogTests {
    let catalog = testSceneCatalog

    @Test func aSceneWrittenOnceIsInTheSettingsTheBarAndTheSetup() throws {
        let text = "[shell]\nscenes = [\"lander\", \"Painting\"]\nstart = \"paint\"\n"
        let path = try temporaryFile(text)
        defer { unlink(path) }
        // check-config: the file is good for this kiosk, and not for one without the scene.
        #expect(KioskCommand.CheckConfig.problems(in: path, catalog: catalog, languages: loadShippedLanguages()).isEmpty)
        #expect(KioskCommand.CheckConfig.problems(in: path, languages: loadShippedLanguages()).map(\.description).contains { $0.contains(": scenes must list some of touch, lander, tiles") })
        let (settings, _) = Settings.load(path: path, catalog: catalog)
        #expect(settings.scenes == ["lander", "paint"] && settings.start == "paint")
        // Without a setting, visitors get it with the others.
        #expect(Settings.parse("", file: "k.toml", catalog: catalog).0.scenes == ["lander", "tiles", "paint"])

        // The scene bar: a pill with its title, lit, and the scene on screen.
        let fonts = FontCache(), s = ManualScheduler()
        let making = SceneMaking(fonts: fonts, scheduler: s, settings: settings)
        let shell = Shell.make(making, names: settings.scenes, start: settings.start, home: settings.start, catalog: catalog)
        let stage = Stage(scene: shell, info: DisplayInfo(size: Size(width: 1280, height: 800)))
        stage.advance(to: 1)
        #expect(shell.chromeBar.buttons.map(\.title) == ["Lander", "Paint"])
        #expect(shell.current is PaintScene && shell.chromeBar.selected == "paint")
        // Another language without a translation of its own: the description's title.
        shell.setLanguages([kioskTexts(shipped("fr"))])
        #expect(shell.chromeBar.buttons.map(\.title) == ["Alunissage", "Paint"])

        // The setup's scenes step offers it, titled, shown and started on as the settings say.
        let setup = SetupScene(fonts: fonts, scheduler: s, settings: settings, saved: nil, filePath: path, stage: stage,
                               step: .scenes, catalog: catalog) { _ in }
        shell.show(.admin(setup))
        stage.advance(to: 2)
        #expect(setup.scenes.offered == ["lander", "tiles", "exhibits", "paint"])
        #expect(setup.scenes.toggles.map(\.title) == ["✓ Lander", "Tiles", "Exhibits", "✓ Paint"])
        #expect(setup.scenes.start == "paint")
        // Its choice survives the saved setup's check.
        var chosen = Settings.parse("", file: "k.toml", catalog: catalog).0
        SetupChoices(scenes: ["paint"], start: "paint").apply(to: &chosen, catalog: catalog)
        #expect(chosen.scenes == ["paint"] && chosen.start == "paint")
    }

    /// Its words go into the translation template and `[text]`'s keys, its section into the
    /// settings, and its admin row onto the panel, where a change is saved as its setting and
    /// a reload makes the scene again with it.
    @Test func itsWordsSectionAndAdminRowNeedNothingElse() throws {
        let pot = TemplateMessage.pot(catalog.texts)
        #expect(pot.contains("#. A row of the admin panel: the colour of the paint scene's canvas.\nmsgctxt \"paint.color\"\nmsgid \"Paint colour\""))
        #expect(pot.contains("msgctxt \"scene.paint\"\nmsgid \"Paint\""))
        #expect(!TemplateMessage.pot().contains("paint."), "the standard kiosk's template has none of it")
        let (given, problems) = Settings.parse("[paint]\ncolor = \"#000000\"\n[text]\n\"paint.hint\" = \"Paint here\"\n", file: "k.toml", catalog: catalog)
        #expect(problems.isEmpty, "\(problems)")
        #expect(given.sections[PaintSettings.self].color == .black && given.kioskTexts["paint.hint"] == "Paint here")
        #expect(Settings.parse("[paint]\ncolor = 5\n", file: "k.toml", catalog: catalog).1.map(\.description)
                == ["k.toml:2:9: color must look like \"#5aa9e6\"; using the default"])

        let settings = Settings.parse("", file: "k.toml", catalog: catalog).0
        let s = ManualScheduler()
        var outcome: AdminPanel.Outcome?
        let panel = AdminPanel(fonts: FontCache(), scheduler: s, settings: settings) { outcome = $0 }
        panel.layout(DisplayInfo(size: Size(width: 1280, height: 800)))
        func find(_ v: View) -> [Button] { (v as? Button).map { [$0] } ?? [] + v.subviews.flatMap(find) }
        func tap(_ name: String) throws {
            let b = try #require(find(panel.view).first { $0.accessibilityIdentifier == name && !$0.isHidden }, "\(name)")
            let p = b.convert(Point(x: b.bounds.width / 2, y: b.bounds.height / 2), to: nil)
            panel.handle(TouchBatch(time: s.now, points: [touch(9, .began, p.x, p.y)]))
            panel.advance(to: s.now + 0.05)
            panel.handle(TouchBatch(time: s.now, points: [touch(9, .ended, p.x, p.y)]))
            panel.advance(to: s.now + 0.05)
        }
        #expect(find(panel.view).contains { $0.title == "Orange" })
        try tap("admin paint Orange")
        try tap("admin save")
        guard case .save(let changes) = outcome else { Issue.record("not saved: \(String(describing: outcome))"); return }
        #expect(changes == PanelSettings(["paint.color": "\"#f28c28\""]))
        var changed = settings
        #expect(changes.apply(to: &changed).isEmpty)
        #expect(changed.sections[PaintSettings.self].color == Color(rgb: 0xf28c28))
        #expect(catalog.changed(from: settings, to: changed) == ["paint"])
    }

    @Test func aScenesSettingsSectionComesWithItsDescription() {
        let withoutLander = SceneCatalog(scenes: SceneCatalog.standard.scenes.filter { $0.name != "lander" })
        let file = "[lander]\npad = \"left\"\n"
        #expect(Settings.parse(file, file: "k.toml").1.isEmpty)
        #expect(Settings.parse(file, file: "k.toml", catalog: withoutLander).1.map(\.description) == ["k.toml:1:1: unknown section or setting 'lander'"])
    }

    @Test func aReloadRebuildsOnlyTheScenesMadeFromWhatChanged() {
        var a = Settings(), b = Settings()
        b.sections[LanderSettings.self].pad = .left
        #expect(SceneCatalog.standard.changed(from: a, to: b) == ["lander"])
        a.sections[FallingWordsConfig.self].speed = 10
        #expect(SceneCatalog.standard.changed(from: a, to: b) == ["lander", "words"])
        b = a
        b.theme = "/srv/theme"
        #expect(SceneCatalog.standard.changed(from: a, to: b) == ["lander", "tiles"])
    }

    /// Nothing to write by hand for a reload: a scene is made again when any setting of its
    /// section, or any it names in `madeFrom`, is changed in the file.
    @Test func aChangeToAnySettingASceneIsMadeFromRebuildsIt() {
        let others = ["words.phrases": "[\"Hello\"]", "words.color": "\"#000000\"", "lander.pad": "\"left\"", "shell.theme": "\"/srv/theme\"",
                      "exhibits.folder": "\"/srv/museum\"", "exhibits.screensaver": "true"]
        let declared = Settings.declarations
        for scene in SceneCatalog.standard.scenes {
            for key in scene.declarations.map(\.key) + scene.madeFrom {
                let d = declared.first { $0.key == key }
                #expect(d?.value != nil, "\(scene.name) is made from \(key), which does not say its value")
                guard let d, let changed = others[key] ?? d.range.map({ format($0.upperBound) }) else {
                    Issue.record("\(key): no other value to try")
                    continue
                }
                let (new, problems) = Settings.parse("[\(d.section)]\n\(d.name) = \(changed)\n", file: "k.toml")
                #expect(problems.isEmpty, "\(key): \(problems)")
                #expect(SceneCatalog.standard.changed(from: Settings(), to: new).contains(scene.name), "\(key) = \(changed) leaves \(scene.name) as it was")
            }
        }
        // And nothing else does.
        let unrelated = Settings.parse("[shell]\nidle_timeout = 30\n[access]\nlarge = true\n", file: "k.toml").0
        #expect(SceneCatalog.standard.changed(from: Settings(), to: unrelated).isEmpty)
    }

    @Test func everyStandardSceneHasItsTitleInEveryLanguage() {
        for d in SceneCatalog.standard.scenes {
            #expect(SceneCatalog.standard.texts.english["scene.\(d.name)"] == d.title, "the kiosk's texts have the description's title")
            for l in shippedLanguages.dropFirst() { #expect(l.catalog?.text("scene.\(d.name)", d.title) != nil, "\(l.code): scene.\(d.name)") }
        }
    }

    private func temporaryFile(_ text: String) throws -> String {
        var template = Array("/tmp/kiosk-catalog-XXXXXX.toml".utf8CString)
        let fd = mkstemps(&template, 5)
        try #require(fd >= 0)
        _ = text.withCString { write(fd, $0, strlen($0)) }
        close(fd)
        return String(decoding: template.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
