import Testing
#if canImport(Glibc)
import Glibc
#endif
@testable import Kiosk
@testable import KioskScenes
@testable import KioskUI
@testable import KioskRender
@testable import KioskCore

/// An operator's own content: the folder as written (and written wrong), the board and a page
/// as a visitor uses them — the first touch after a pause, a finger that scrolls and lets go, a
/// fresh start, another language, speech — and the pictures' screensaver.
@Suite struct ExhibitsFolderTests {
    @Test func theFolderAsAnOperatorWritesIt() {
        let folder = ExhibitsFolder.read(ExhibitsFixture.folder)
        #expect(folder.problems.isEmpty, "\(folder.problems)")
        #expect(folder.exhibits.map(\.words.title) == ["The Moon", "Mars", "Saturn", "Earth", "Jupiter"])
        let moon = folder.exhibits[0]
        #expect(moon.picture == ExhibitsFixture.folder + "/moon.jpg" && moon.words.paragraphs.count == 4)
        #expect(moon.words.paragraphs[0].hasPrefix("The Moon is Earth's only natural satellite. It is about a quarter"))
        #expect(moon.words(in: "fr") == Exhibit.Words(title: "La Lune", paragraphs: ["La Lune est le seul satellite naturel de la Terre."]))
        #expect(moon.words(in: "de") == moon.words, "a language the folder lacks: its own words")
        #expect(Exhibit.paragraphs("One\nline.\n\n\n  Two.  \n") == ["One line.", "Two."])
    }

    @Test func checkConfigChecksTheFolderItsPicturesAndTheirWords() throws {
        let checked = ExhibitsFolder.read(ExhibitsFixture.folder).checked(coverage: { nil }).map(\.description)
        #expect(checked == ["\(ExhibitsFixture.folder)/jupiter.jpg: cannot read: No such file or directory: its tile and page show a placeholder"])
        let path = "/tmp/kiosk-exhibits-check-\(getpid()).toml"
        let f = fopen(path, "w")
        fputs("[shell]\nscenes = [\"exhibits\", \"tiles\"]\n[exhibits]\nfolder = \"\(ExhibitsFixture.folder)\"\n", f)
        fclose(f)
        defer { unlink(path) }
        let problems = KioskCommand.CheckConfig.problems(in: path, languages: ([.english], [])).map(\.description)
        #expect(problems == checked)
        // Not using the exhibits, and no folder: nothing to say of it.
        #expect(KioskCommand.CheckConfig.exhibitsProblems(Settings()).isEmpty)
    }

    func problems(_ toml: String) -> [String] {
        var f = ExhibitsFolder(path: "/srv/ex")
        f.parse(Array(toml.utf8))
        return f.problems.map(\.description)
    }

    @Test func whatIsWrongIsNamedByFileLineAndColumn() {
        #expect(problems("[[exhibit]]\ntitle = \"A\"\ntext = \"unclosed\n") == ["/srv/ex/exhibits.toml:3:17: the string is not closed before the end of the line: no exhibits to show"])
        #expect(problems("[[exhibit]]\npicture = \"a.jpg\"\n[[exhibit]]\ntitle = \"B\"\n") == ["/srv/ex/exhibits.toml:1:1: exhibit 1 has no title: left out"])
        #expect(problems("[[exhibit]]\ntitel = \"A\"\ntitle = \"A\"\n")
                == ["/srv/ex/exhibits.toml:2:1: unknown key 'titel' (did you mean 'title'?): an exhibit has title, picture, text and a table for each language ([exhibit.fr])"])
        #expect(problems("[[exhibit]]\ntitle = 5\n")
                == ["/srv/ex/exhibits.toml:2:9: title must be a string in quotes", "/srv/ex/exhibits.toml:1:1: exhibit 1 has no title: left out"])
        #expect(problems("[[exhibit]]\ntitle = \"A\"\n[exhibit.fr]\ntexte = \"x\"\n")
                == ["/srv/ex/exhibits.toml:4:1: unknown key 'texte' in [exhibit.fr]: a language's table has title and text"])
        #expect(problems("title = \"A\"\n") == ["/srv/ex/exhibits.toml:1:1: unknown key 'title': exhibits are [[exhibit]] tables",
                                                "/srv/ex/exhibits.toml: no [[exhibit]] in it: no exhibits to show"])
        #expect(ExhibitsFolder.read("/nonexistent/exhibits").problems.map(\.description)
                == ["/nonexistent/exhibits: the folder does not exist: no exhibits to show"])
        #expect(ExhibitsFolder.read("/etc/hostname").problems.map(\.description) == ["/etc/hostname: not a folder: no exhibits to show"])
    }
}

@Suite struct ExhibitsSceneTests {
    final class Lines { var lines: [String] = [] }
    final class Rig {
        let scene: ExhibitsScene
        let renderer: HeadlessRenderer
        private let said = Lines()
        var reports: [String] { said.lines }
        var now: Double { renderer.clock.now }

        init(size: Size = Size(width: 1280, height: 800), folder: String = ExhibitsFixture.folder, helper: Helper = InlineHelper()) throws {
            let f = ExhibitsFolder.read(folder)
            scene = ExhibitsScene(fonts: testFonts, folder: f, helper: helper) { [said] in said.lines.append($0) }
            scene.texts = kioskTexts()
            renderer = try HeadlessRenderer(scene: scene, info: DisplayInfo(size: size, physicalSize: Size(width: 217, height: 136)))
            renderer.renderFrame()
        }

        /// A finger down and up 60 ms later, after `pause` seconds of nothing.
        func tap(_ p: Point, after pause: Double = 0) {
            renderer.clock.advance(by: pause)
            scene.handle(TouchBatch(time: now, points: [touch(1, .began, p.x, p.y)]))
            renderer.clock.advance(by: 0.06)
            scene.handle(TouchBatch(time: now, points: [touch(1, .ended, p.x, p.y)]))
            renderer.renderFrame()
        }
        func centre(_ v: View) -> Point { v.convert(v.bounds, to: nil).center }
    }

    @Test func theFirstTouchAfterAPauseOpensAnExhibitAndBackReturns() throws {
        let r = try Rig()
        #expect(r.scene.tiles.count == 5 && r.scene.tiles.allSatisfy { !$0.isHidden })
        #expect(r.scene.tiles.map(\.title) == ["The Moon", "Mars", "Saturn", "Earth", "Jupiter"])
        r.tap(r.centre(r.scene.tiles[0]), after: 45)
        #expect(r.scene.opened == 0 && !r.scene.page.isHidden && r.scene.board.isHidden)
        #expect(r.scene.page.title.text == "The Moon" && r.scene.page.paragraphs.count == 4)
        #expect(r.scene.page.picture.image != nil, "the page's picture, decoded for its place")
        r.tap(r.centre(r.scene.page.back), after: 20)
        #expect(r.scene.opened == nil && r.scene.page.isHidden && !r.scene.board.isHidden)
    }

    @Test func aMissingPictureIsAPlaceholderAndOneLineNamingIt() throws {
        let r = try Rig()
        let jupiter = r.scene.tiles[4].picture
        #expect(jupiter.failed && jupiter.image == nil)
        #expect(r.reports.filter { $0.contains("jupiter.jpg") }
                == ["exhibits: picture \(ExhibitsFixture.folder)/jupiter.jpg: cannot read: No such file or directory; a placeholder is shown instead"])
        r.tap(r.centre(r.scene.tiles[4]))
        r.tap(r.centre(r.scene.page.back))
        r.tap(r.centre(r.scene.tiles[4]))
        #expect(r.reports.filter { $0.contains("jupiter.jpg") }.count == 1, "said once, however often it is shown")
    }

    /// A finger drags the text, lets go with speed, and the text glides on and stops; only the
    /// text's own rectangle is repainted meanwhile.
    @Test func aFingerScrollsTheTextWhichGlidesOnThenStops() throws {
        let r = try Rig(size: Size(width: 800, height: 480))
        r.tap(r.centre(r.scene.tiles[0]))
        let text = r.scene.page.text
        #expect(text.canScroll && text.offset == 0 && !r.scene.page.up.isEnabled && r.scene.page.down.isEnabled)
        r.renderer.renderFrame()
        let start = r.centre(text)
        r.renderer.clock.advance(by: 10) // a pause first
        r.scene.handle(TouchBatch(time: r.now, points: [touch(2, .began, start.x, start.y)]))
        for i in 1...6 {
            r.renderer.clock.advance(by: 1.0 / 60)
            r.scene.handle(TouchBatch(time: r.now, points: [touch(2, .moved, start.x, start.y - Double(i) * 12)]))
            let damage = r.renderer.renderFrame()
            // The text (to the pixel its edge falls on), and the page buttons that light up.
            let allowed = [text, r.scene.page.up, r.scene.page.down].map { $0.convert($0.bounds, to: nil).insetBy(dx: -1, dy: -1).pixelBounds(scale: 1) }
            #expect(damage.rects.allSatisfy { d in allowed.contains { $0.union(d) == $0 } }, "frame \(i): \(damage.rects) beyond the text \(allowed[0])")
        }
        let dragged = text.offset
        #expect(dragged > 40, "moved with the finger: \(dragged)")
        r.scene.handle(TouchBatch(time: r.now, points: [touch(2, .ended, start.x, start.y - 72)]))
        #expect(r.scene.needsFrame, "it glides on")
        r.renderer.run(until: r.now + 3)
        #expect(text.offset > dragged + 20 && !r.scene.needsFrame, "glided to \(text.offset), then stopped")
        #expect(r.scene.page.up.isEnabled)
        // The buttons page the text too, for a visitor who does not drag.
        let before = text.offset
        r.tap(r.centre(r.scene.page.up))
        r.renderer.run(until: r.now + 1)
        #expect(text.offset < before)
    }

    @Test func aFreshStartBringsTheBoardBackAtItsFirstPage() throws {
        let r = try Rig()
        r.tap(r.centre(r.scene.tiles[1]))
        #expect(r.scene.opened == 1)
        r.scene.reset()
        r.renderer.renderFrame()
        #expect(r.scene.opened == nil && !r.scene.board.isHidden && r.scene.boardPage == 0)
    }

    @Test func theVisitorsLanguageWhereTheFolderHasIt() throws {
        let r = try Rig()
        r.scene.texts = kioskTexts(shipped("fr"))
        r.renderer.renderFrame()
        #expect(r.scene.tiles[0].title == "La Lune" && r.scene.tiles[1].title == "Mars")
        r.tap(r.centre(r.scene.tiles[0]))
        #expect(r.scene.page.title.text == "La Lune" && r.scene.page.paragraphs.map(\.text) == ["La Lune est le seul satellite naturel de la Terre."])
        #expect(r.scene.page.back.title == "Retour")
        r.scene.texts = kioskTexts(shipped("ar"))
        r.renderer.renderFrame()
        #expect(r.scene.page.title.text == "القمر")
        // Mirrored: Back at the top right, the picture on the right of the text.
        let back = r.scene.page.back.frame, picture = r.scene.page.picture.frame, text = r.scene.page.text.frame
        #expect(back.midX > 640 && picture.minX > text.maxX, "\(back) \(picture) \(text)")
    }

    /// Speech: explore by touch hears the title; flicks go on through the paragraphs, each
    /// brought into view as it is reached.
    @Test func speechReadsThePageParagraphByParagraph() throws {
        let r = try Rig(size: Size(width: 800, height: 480))
        var said: [String] = []
        let reader = r.scene.host.screenReader
        reader.speak = { said.append($0.text) }
        reader.setOn(true, saying: false)
        let tile = r.centre(r.scene.tiles[0])
        r.tap(tile, after: 30)
        r.renderer.run(until: r.now + 0.5)
        #expect(r.scene.opened == nil && said.last == "The Moon, button", "with speech on, a tap says what it touched: \(said)")
        // A double tap opens what was heard; the page says its title.
        r.tap(tile); r.renderer.clock.advance(by: 0.1); r.tap(tile)
        #expect(r.scene.opened == 0 && said.last == "The Moon")
        r.tap(r.centre(r.scene.page.title), after: 1)
        r.renderer.run(until: r.now + 0.5)
        #expect(said.last == "The Moon, heading")
        for _ in 0..<4 { flickRight(r) }
        #expect(said.suffix(4).map { String($0.prefix(20)) } == ["The Moon is Earth's ", "It always shows Eart", "Twelve people have w", "Its gravity is a six"])
        let last = r.scene.page.paragraphs[3], text = r.scene.page.text
        #expect(text.convert(text.bounds, to: nil).intersection(last.convert(last.bounds, to: nil)).height > 0, "the last paragraph scrolled into view")
    }

    private func flickRight(_ r: Rig) {
        let p = Point(x: 400, y: 300)
        r.renderer.clock.advance(by: 0.5)
        r.scene.handle(TouchBatch(time: r.now, points: [touch(7, .began, p.x, p.y)]))
        r.renderer.clock.advance(by: 0.05)
        r.scene.handle(TouchBatch(time: r.now, points: [touch(7, .moved, p.x + 120, p.y)]))
        r.renderer.clock.advance(by: 0.03)
        r.scene.handle(TouchBatch(time: r.now, points: [touch(7, .ended, p.x + 130, p.y)]))
        r.renderer.renderFrame()
    }

    /// Pictures decode on the live kiosk's helper: the board shows at once, each picture as it comes.
    @Test func picturesArriveAfterTheBoardAndStaleOnesAreDropped() throws {
        let helper = DeferredHelper()
        let r = try Rig(helper: helper)
        #expect(r.scene.tiles.allSatisfy { $0.picture.image == nil && !$0.picture.failed } && helper.pending == 5)
        helper.finishAll()
        r.renderer.renderFrame()
        #expect(r.scene.tiles.prefix(4).allSatisfy { $0.picture.image != nil } && r.scene.tiles[4].picture.failed)
        // A new size asks again; a result for the old size that comes late is not shown.
        r.tap(r.centre(r.scene.tiles[0]))
        let page = r.scene.page.picture
        #expect(helper.pending == 1)
        r.tap(r.centre(r.scene.page.back))
        helper.finishAll()
        #expect(page.image == nil, "the page was closed before its picture came")
    }

    @Test func aBoardOfManyExhibitsTurnsItsPages() throws {
        let path = "/tmp/kiosk-exhibits-many-\(getpid())"
        mkdir(path, 0o755)
        defer { _ = unlink(path + "/exhibits.toml"); rmdir(path) }
        let toml = (1...30).map { "[[exhibit]]\ntitle = \"Exhibit \($0)\"\n" }.joined()
        let fd = open(path + "/exhibits.toml", O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        _ = toml.withCString { write(fd, $0, strlen($0)) }
        close(fd)
        let r = try Rig(size: Size(width: 800, height: 480), folder: path)
        let shown = r.scene.tiles.filter { !$0.isHidden }.count
        #expect(shown < 30 && shown == r.scene.perPage && !r.scene.nextPage.isHidden && r.scene.pageLabel.text == "Page 1 of \((30 + shown - 1) / shown)")
        r.tap(r.centre(r.scene.nextPage))
        #expect(r.scene.boardPage == 1 && r.scene.tiles[shown].isHidden == false && r.scene.tiles[0].isHidden)
        // Every tile a fingertip or more (9 mm at 217 mm for 1280 points: 5.9 pt/mm).
        let mm = 800.0 / 217
        #expect(r.scene.tiles.filter { !$0.isHidden }.allSatisfy { min($0.frame.width, $0.frame.height) >= 9 * mm })
    }
}

@Suite struct ExhibitSlidesTests {
    @Test func theScreensaverShowsThePicturesOneAfterAnotherAndRestsBetween() throws {
        let scene = ExhibitSlidesScene(fonts: testFonts, folder: ExhibitsFolder.read(ExhibitsFixture.folder))
        scene.texts = kioskTexts()
        let r = try HeadlessRenderer(scene: scene, info: DisplayInfo(size: Size(width: 800, height: 480)))
        scene.setActive(true)
        r.renderFrame()
        #expect(scene.exhibit == 0)
        r.run(until: 5)
        #expect(r.renderFrame().isEmpty && !scene.needsFrame, "nothing moves between two fades")
        r.run(until: ExhibitSlidesScene.seconds + 0.5)
        #expect(scene.needsFrame, "fading")
        r.run(until: ExhibitSlidesScene.seconds + ExhibitSlidesScene.fade + 0.1)
        #expect(scene.exhibit == 1 && !scene.needsFrame)
        scene.reset()
        #expect(scene.exhibit == 0)
    }

    @Test func itReplacesTheFallingWordsWhenTheSettingsSaySo() {
        var s = Settings()
        #expect(SceneCatalog.standard.screensaverName(s.sections) == "words")
        s.sections[ExhibitsSettings.self].screensaver = true
        #expect(SceneCatalog.standard.screensaverName(s.sections) == "slides")
        #expect(Settings.parse("[exhibits]\nscreensaver = true\nfolder = \"/srv/museum/\"\n", file: "k").0.sections[ExhibitsSettings.self]
                == { var e = ExhibitsSettings(); e.screensaver = true; e.folder = "/srv/museum"; return e }())
    }
}

/// A helper that keeps its work until told to do it, as a thread would finish it later.
final class DeferredHelper: Helper {
    private var queue: [(task: HelperTask, run: () -> Void)] = []
    var pending: Int { queue.filter { !$0.task.isCancelled }.count }

    @discardableResult
    func run<T>(_ work: @escaping @Sendable () -> T, then done: @escaping (T) -> Void) -> HelperTask {
        let task = HelperTask()
        queue.append((task, { done(work()) }))
        return task
    }

    func finishAll() {
        let q = queue
        queue.removeAll()
        for (task, run) in q where !task.isCancelled { run() }
    }
}

@Suite struct HelperThreadTests {
    /// Work goes to the thread and its result comes back on the loop, only once the shell is the
    /// loop's; work called off before it began is skipped.
    @Test func workComesBackOnTheLoopInOrder() throws {
        var wake: (fd: Int32, action: () -> Void)?
        let helper = try #require(HelperThread(log: Logger(level: .error), register: { wake = ($0, $1) }))
        let (fd, handBack) = try #require(wake)
        var results: [Int] = []
        let gate = HelperTask()
        helper.run({ () -> Int in while !gate.isCancelled { usleep(1000) }; return 1 }, then: { results.append($0) })
        helper.run({ 2 }, then: { results.append($0) }).cancel()
        helper.run({ 3 }, then: { results.append($0) })
        gate.cancel() // lets the first one finish
        func waitForWake() -> Bool {
            var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            return poll(&p, 1, 5000) == 1
        }
        #expect(waitForWake())
        usleep(50_000) // the third done too
        handBack()
        #expect(results.isEmpty, "held while the shell is still being made")
        helper.startDelivering()
        #expect(results == [1, 3])
    }
}
