import Testing
@testable import Kiosk
@testable import KioskScenes
@testable import KioskRender
@testable import KioskCore
#if canImport(Glibc)
import Glibc
#endif

@Suite struct ShellTests {
    final class Rig {
        let scheduler = ManualScheduler()
        let shell: Shell
        let saver: ScreensaverController
        var now: Double { scheduler.now }
        init(idle: Double = 10, start: String = "tiles", screensaver: Bool = false, store: StateStore? = nil) {
            let fonts = FontCache()
            let s = scheduler
            shell = Shell.make(SceneMaking(fonts: fonts, scheduler: s, store: store), names: SceneCatalog.standard.benchScenes, start: start, home: start, startInScreensaver: screensaver)
            saver = ScreensaverController(shell: shell, scheduler: s, idleTimeout: idle)
            shell.layout(DisplayInfo(size: Size(width: 1280, height: 800)))
            shell.advance(to: 0)
        }
        func wait(_ dt: Double) { shell.advance(to: now + dt) }
        func tap(_ x: Double, _ y: Double, id: Int32 = 1) {
            shell.handle(TouchBatch(time: now, points: [touch(id, .began, x, y)]))
            wait(0.05)
            shell.handle(TouchBatch(time: now, points: [touch(id, .ended, x, y)]))
        }
        var tiles: TileBoardScene { shell.current as! TileBoardScene }
    }

    @Test func theFirstSwipeAfterAPauseIsASwipe() {
        // A visitor arrives after seconds of nothing: no frame was drawn since, and the first
        // touch must not begin at the last frame's time (the stroke would last seconds).
        let r = Rig(start: "touch")
        let scene = r.shell.current as! TouchTestScene
        r.scheduler.advance(to: 3.0)
        let (x, y) = (300.0, 500.0)
        r.shell.handle(TouchBatch(time: 3.0, points: [touch(1, .began, x, y)]))
        r.shell.advance(to: 3.016)
        for (i, t) in [3.033, 3.066, 3.1].enumerated() {
            r.scheduler.advance(to: t)
            r.shell.handle(TouchBatch(time: t, points: [touch(1, .moved, x + 100 * Double(i + 1), y)]))
            r.shell.advance(to: t + 0.01)
        }
        r.shell.handle(TouchBatch(time: 3.1, points: [touch(1, .ended, x + 320, y)]))
        r.shell.advance(to: 3.12)
        #expect(scene.swipeLabel.text == "Swipe: → right")
    }

    @Test func aSettingAppliedBeforeTheFirstLayoutDoesNotAnimateTheSceneIntoPlace() {
        // scene_bar = false is applied before the first layout; the tile board must not be laid
        // out at the placeholder size first and then slide into place.
        let fonts = FontCache(), s = ManualScheduler()
        let shell = Shell.make(SceneMaking(fonts: fonts, scheduler: s), names: ["touch", "tiles"], start: "tiles", home: "tiles")
        shell.showsSceneBar = false
        shell.layout(DisplayInfo(size: Size(width: 1920, height: 1080)))
        shell.advance(to: 0)
        #expect(!shell.window.isAnimating)
    }

    @Test func scenesKeepWhatPeopleReadAndTouchClearOfTheSceneBar() throws {
        // On a 1280×720 panel (cage's headless output) the lander's readout ran under the bar
        // and the bar covered the first row of tiles, which could then not be touched.
        let fonts = FontCache(), s = ManualScheduler()
        let shell = Shell.make(SceneMaking(fonts: fonts, scheduler: s), names: SceneCatalog.standard.benchScenes, start: "tiles", home: "tiles")
        for size in [Size(width: 1280, height: 720), Size(width: 800, height: 480), Size(width: 480, height: 800)] {
            shell.layout(DisplayInfo(size: size))
            let bar = shell.sceneBarFrames
            try #require(bar.count == 5) // three scenes, large text and speech
            let barBottom = bar.map(\.maxY).max()!
            #expect(bar.allSatisfy { $0.minX >= 0 && $0.maxX <= size.width }, "\(size): the bar is off screen")
            // Every title fits its button at its full size (inside the title's 6-point inset).
            let font = try #require(fonts.font(points: 20, scale: 1))
            for (f, title) in zip(bar, ["Touch test", "Lander", "Tiles"]) { #expect(font.layout(title).width <= f.width - 12) }

            shell.switchTo("tiles")
            let tiles = try #require(shell.current as? TileBoardScene)
            #expect(tiles.board.frame.minY + tiles.tileFrame(index: 0).minY >= barBottom, "\(size): tiles under the bar")
            shell.switchTo("lander")
            let lander = try #require(shell.current as? LanderScene)
            for (name, f) in [("readout", lander.readout.frame), ("info button", lander.infoButton.frame)] {
                #expect(f.minY >= barBottom, "\(size): the \(name) is under the bar")
            }
            #expect(!lander.readout.frame.intersects(lander.infoButton.frame), "\(size): the readout runs under the info button")
            shell.switchTo("touch")
            let touchTest = try #require(shell.current as? TouchTestScene)
            #expect(touchTest.title.frame.minY >= barBottom && touchTest.spinner.frame.minY >= barBottom)
        }
        // Without the bar, the scenes have the whole screen again, at once.
        shell.switchTo("tiles")
        let tiles = try #require(shell.current as? TileBoardScene)
        shell.showsSceneBar = false
        #expect(shell.sceneBarFrames.isEmpty)
        #expect(tiles.board.frame.minY == 0)
        shell.showsSceneBar = true
        #expect(tiles.board.frame.minY >= shell.sceneBarFrames.map(\.maxY).max()!)
    }

    @Test func aFingerDownWhenTheTouchTestLeavesIsLetGoOfEverywhere() throws {
        // Switched away by key, by the scene bar's neighbour (a second finger), and by the
        // screensaver: each time the touch test's own model must drop the finger too.
        for leave in ["key", "screensaver"] {
            let r = Rig(idle: 5, start: "touch")
            let touchScene = try #require(r.shell.current as? TouchTestScene)
            r.shell.handle(TouchBatch(time: r.now, points: [touch(4, .began, 600, 500)]))
            r.wait(0.1)
            #expect(touchScene.model.fingers.count == 1)
            if leave == "key" {
                r.shell.handle(KeyEvent(keysym: 0xffc0, text: "", pressed: true, time: r.now)) // F3: tiles
            } else {
                r.wait(5.1) // a held finger is no input: the screensaver starts
            }
            #expect(touchScene.model.fingers.isEmpty, "\(leave): the model kept the finger")
            r.shell.handle(TouchBatch(time: r.now, points: [touch(4, .ended, 600, 500)]))
            r.wait(1)
            #expect(touchScene.model.fingers.isEmpty)
        }
    }

    @Test func idleShowsTheScreensaverAndTheWakingTouchIsSwallowed() {
        let r = Rig(idle: 10)
        let p = r.tiles.board.convert(r.tiles.tileFrame(index: 0).center, to: nil)
        r.wait(9.9)
        #expect(!r.shell.showingScreensaver)
        r.wait(0.2)
        #expect(r.shell.showingScreensaver && r.shell.window.isAnimating)
        r.tap(p.x, p.y) // wakes; must not toggle the tile under it
        #expect(!r.shell.showingScreensaver)
        #expect(r.tiles.model.selectedIDs.isEmpty)
        r.wait(0.5)
        r.tap(p.x, p.y) // now taps reach the scene
        #expect(r.tiles.model.selectedIDs == [0])
    }

    @Test func wakingStartsAfreshForTheNextVisitorUnlessTurnedOff() throws {
        for fresh in [true, false] {
            let r = Rig(idle: 5, start: "tiles")
            r.shell.resetsOnWake = fresh
            r.shell.homeScene = "touch"
            // The last visitor: a tile selected, a flight under way, fingers counted.
            let p = r.tiles.board.convert(r.tiles.tileFrame(index: 1).center, to: nil)
            r.tap(p.x, p.y)
            r.wait(0.5)
            r.shell.switchTo("lander")
            let lander = try #require(r.shell.current as? LanderScene)
            for _ in 0..<60 { r.wait(1.0 / 30) }
            r.shell.switchTo("touch")
            let touchTest = try #require(r.shell.current as? TouchTestScene)
            r.tap(600, 500)
            r.shell.switchTo("tiles")
            #expect(r.tiles.model.selectedIDs.count == 1 && touchTest.model.totalTouches == 1)
            let flown = lander.model.state
            r.wait(6) // the screensaver
            #expect(r.shell.showingScreensaver)
            r.tap(600, 500) // wakes
            r.wait(0.5)
            if fresh {
                #expect(r.shell.currentName == "touch")
                #expect(touchTest.model.totalTouches == 0)
                #expect(r.shell.current === touchTest)
                r.shell.switchTo("tiles")
                #expect(r.tiles.model.selectedIDs.isEmpty && r.tiles.model.tiles.count == TileBoardModel.fullCount)
                var fresh = lander.model
                fresh.reset()
                #expect(lander.model.state != flown && lander.model.state == fresh.state)
            } else {
                #expect(r.shell.currentName == "tiles" && r.tiles.model.selectedIDs.count == 1)
                #expect(touchTest.model.totalTouches == 1 && lander.model.state == flown)
            }
        }
    }

    @Test func theSavedStateFollowsAFreshStartEvenForScenesNotOpenedSinceTheRestart() throws {
        let dir = try #require(mkdtemp(strdup("/tmp/kiosk-fresh-XXXXXX")).map { String(cString: $0) })
        defer { _ = system("rm -rf \(dir)") }
        let store = StateStore(directory: dir)
        // The last visitor selected a tile, and the kiosk restarted since (on the touch test).
        let before = Rig(idle: 5, start: "tiles", store: store)
        let p = before.tiles.board.convert(before.tiles.tileFrame(index: 1).center, to: nil)
        before.tap(p.x, p.y)
        before.wait(0.5)
        before.shell.saveState()
        #expect(store.load(TileBoardModel.self, name: "tiles")?.selectedIDs == [1])
        let r = Rig(idle: 5, start: "touch", store: store)
        r.shell.resetsOnWake = true
        r.shell.homeScene = "touch"
        r.wait(6)
        r.tap(600, 500) // wakes: a fresh start, tiles never opened in this run
        r.shell.saveState()
        #expect(store.load(TileBoardModel.self, name: "tiles")?.selectedIDs == [])
    }

    /// Every part that follows the shell hears each change (the screensaver controller, which
    /// listens first, did not take the only slot), and after the controller acted on it.
    @Test func everyoneFollowingTheShellHearsWhenTheScreensaverStartsAndEnds() {
        let r = Rig(idle: 5)
        var events: [Bool] = [], others: [Showing] = []
        r.shell.showingChanged.add { _ in events.append(r.shell.showing.isScreensaver) }
        r.shell.showingChanged.add { old in others.append(old) }
        r.wait(5.1)
        r.tap(100, 700)
        r.wait(5.1)
        r.shell.handle(KeyEvent(keysym: 0x61, text: "a", pressed: true, time: r.now))
        #expect(events == [true, false, true, false])
        #expect(others == [.scene, .screensaver, .scene, .screensaver])
    }

    @Test func inputRestartsTheIdleTimerAndZeroMeansNever() {
        let r = Rig(idle: 10)
        r.wait(8); r.tap(600, 600); r.wait(8)
        #expect(!r.shell.showingScreensaver)
        let never = Rig(idle: 0)
        never.wait(10_000)
        #expect(!never.shell.showingScreensaver)
        let asleep = Rig(idle: 0, screensaver: true)
        #expect(asleep.shell.showingScreensaver)
    }

    @Test func switchingPausesTheOldSceneAndResumesItWhereItWas() {
        let r = Rig(start: "lander")
        let lander = r.shell.current as! LanderScene
        r.wait(0.5); r.wait(0.5)
        r.shell.handle(KeyEvent(keysym: 0xffc0, text: "", pressed: true, time: r.now)) // F3 → tiles
        #expect(r.shell.currentName == "tiles")
        let frozen = lander.model.state
        r.wait(5)
        #expect(lander.model.state == frozen) // paused behind the other scene
        r.shell.handle(KeyEvent(keysym: 0xffbf, text: "", pressed: true, time: r.now)) // F2 → lander
        r.wait(0.2); r.wait(0.2)
        #expect(r.shell.current === lander && lander.model.state != frozen)
        #expect(abs(lander.model.state.vy - frozen.vy) < 1) // resumed, no 5-second jump
    }

    @Test func theSceneBarAndEdgeSwipesSwitchScenes() {
        let r = Rig(start: "touch")
        // The bar: three buttons centred at the top; the middle one is "lander".
        r.tap(640, 20)
        #expect(r.shell.currentName == "lander")
        // A swipe in from the right edge goes to the next scene.
        r.wait(1)
        r.shell.handle(TouchBatch(time: r.now, points: [touch(2, .began, 1278, 400)]))
        for i in 1...10 { r.wait(0.016); r.shell.handle(TouchBatch(time: r.now, points: [touch(2, .moved, 1278 - Double(i) * 20, 402)])) }
        r.shell.handle(TouchBatch(time: r.now, points: [touch(2, .ended, 1078, 402)]))
        #expect(r.shell.currentName == "tiles")
    }

    @Test func oneBatchIsSplitBetweenTheChromeAndTheSceneBelow() throws {
        // A finger on the bar's "Lander" pill and one on a tile go down in the same frame: the
        // pill is pressed, the tile is the scene's, and the pill switches only when its finger
        // lifts.
        let r = Rig(start: "tiles")
        r.wait(0.5)
        let pill = r.shell.sceneBarFrames[1]
        let tile = r.tiles.board.convert(r.tiles.tileFrame(index: 2).center, to: nil)
        r.shell.handle(TouchBatch(time: r.now, points: [touch(1, .began, pill.midX, pill.midY), touch(2, .began, tile.x, tile.y)]))
        r.wait(0.05)
        r.shell.handle(TouchBatch(time: r.now, points: [touch(2, .ended, tile.x, tile.y)]))
        r.wait(0.5)
        #expect(r.tiles.model.selectedIDs == [2])
        #expect(r.shell.currentName == "tiles")
        r.shell.handle(TouchBatch(time: r.now, points: [touch(1, .ended, pill.midX, pill.midY)]))
        #expect(r.shell.currentName == "lander")
    }

    @Test func aSwipeFromTheEdgeNeverReachesTheSceneAndAnywhereElseItDoes() throws {
        let r = Rig(start: "touch")
        let scene = try #require(r.shell.current as? TouchTestScene)
        r.wait(0.5)
        // From the left edge (6 mm ≈ 22 pt at 96 dpi), but too short to switch.
        r.shell.handle(TouchBatch(time: r.now, points: [touch(1, .began, 5, 400)]))
        r.wait(0.05)
        #expect(scene.model.fingers.isEmpty)
        r.shell.handle(TouchBatch(time: r.now, points: [touch(1, .ended, 60, 400)]))
        #expect(r.shell.currentName == "touch")
        // 30 pt in: the scene's.
        r.shell.handle(TouchBatch(time: r.now, points: [touch(2, .began, 30, 400)]))
        r.wait(0.05)
        #expect(scene.model.fingers.count == 1)
        r.shell.handle(TouchBatch(time: r.now, points: [touch(2, .ended, 30, 400)]))
        // From the left edge far enough: the previous scene (the list wraps round).
        r.shell.handle(TouchBatch(time: r.now, points: [touch(3, .began, 3, 400)]))
        r.shell.handle(TouchBatch(time: r.now, points: [touch(3, .moved, 130, 410)]))
        #expect(r.shell.currentName == "tiles")
    }

    @Test func aSwitchCrossFadesThenStopsDrawing() throws {
        let fonts = FontCache()
        let s = ManualScheduler()
        let shell = Shell.make(SceneMaking(fonts: fonts, scheduler: s), names: ["touch", "tiles"], start: "touch", home: "touch")
        let r = try HeadlessRenderer(scene: shell, info: DisplayInfo(size: Size(width: 640, height: 400)))
        r.renderFrame()
        r.clock.advance(by: 1); r.renderFrame(); r.clock.advance(by: 1)
        #expect(r.renderFrame().isEmpty)
        shell.switchTo("tiles")
        r.clock.advance(by: 0.1)
        #expect(r.renderFrame().area == 640 * 400 && shell.window.isAnimating)
        r.clock.advance(by: 0.3); r.renderFrame()
        r.clock.advance(by: 0.1); r.renderFrame()
        #expect(!shell.needsFrame)
        r.clock.advance(by: 1)
        #expect(r.renderFrame().isEmpty)
    }

    /// Seen on a booted panel: after a switch the scene bar's pills kept a tint of what they had
    /// shown (the old scene's pill half lit, the others darker), because a layer redrawn was not
    /// cleared first (`Canvas.clear` with a transparent colour did nothing).
    @Test func theBarAfterSwitchingScenesLooksAsAFreshStartsDoes() throws {
        func kiosk(_ start: String) throws -> (Shell, HeadlessRenderer) {
            let fonts = FontCache(), s = ManualScheduler()
            let shell = Shell.make(SceneMaking(fonts: fonts, scheduler: s), names: SceneCatalog.standard.benchScenes, start: start, home: start)
            return (shell, try HeadlessRenderer(scene: shell, info: DisplayInfo(size: Size(width: 1280, height: 800))))
        }
        let (shell, r) = try kiosk("touch")
        r.run(until: 1)
        for name in ["tiles", "touch"] {
            let pill = shell.sceneBarFrames[SceneCatalog.standard.benchScenes.firstIndex(of: name)!]
            shell.handle(TouchBatch(time: r.clock.now, points: [touch(1, .began, pill.midX, pill.midY)]))
            r.clock.advance(by: 1.0 / 60); r.renderFrame()
            shell.handle(TouchBatch(time: r.clock.now, points: [touch(1, .ended, pill.midX, pill.midY)]))
            r.run(until: r.clock.now + 1.5)
            let (_, fresh) = try kiosk(name)
            fresh.run(until: 1)
            let bar = shell.sceneBarFrames.reduce(shell.sceneBarFrames[0]) { $0.union($1) }
            var differing = 0
            for y in Int(bar.minY)..<Int(bar.maxY) { for x in Int(bar.minX)..<Int(bar.maxX) where r.image.pixel(x: x, y: y) != fresh.image.pixel(x: x, y: y) { differing += 1 } }
            #expect(shell.currentName == name)
            #expect(differing == 0, "after switching to \(name), \(differing) pixels of the bar differ from a fresh start's")
        }
    }

    @Test func theSceneIsRememberedAcrossRestarts() {
        let dir = "/tmp/kiosk-shell-\(getpid())"
        defer { _ = system("rm -rf \(dir)") }
        let store = StateStore(directory: dir)
        let r = Rig(start: "touch", store: store)
        r.shell.switchTo("lander")
        r.shell.saveState()
        #expect(store.load(ShellSaved.self, name: "shell") == ShellSaved(scene: "lander"))
    }
}

@Suite struct ShellReconfigureTests {
    @Test func aSettingsReloadRebuildsChangedScenesAndKeepsTheirState() throws {
        let dir = try #require(mkdtemp(strdup("/tmp/kiosk-reconf-XXXXXX")).map { String(cString: $0) })
        let store = StateStore(directory: dir)
        let r = ShellTests.Rig(idle: 10, start: "tiles", store: store)
        let p = r.tiles.board.convert(r.tiles.tileFrame(index: 3).center, to: nil)
        r.wait(0.5)
        r.tap(p.x, p.y)
        r.wait(0.5) // a tap waits out the double-tap window
        #expect(r.tiles.model.selectedIDs == [3], "\(p) \(r.tiles.model.tiles.count)")
        let oldTiles = r.tiles
        // New settings: the touch scene is gone, the tile board's theme changed.
        let fonts = FontCache(), s = r.scheduler
        var made: [String] = []
        r.shell.reconfigure(names: ["lander", "tiles"], rebuild: ["tiles", "words"]) { n in
            made.append(n)
            return SceneCatalog.make(n, fonts: fonts, scheduler: s, store: store)!
        }
        #expect(r.shell.names == ["lander", "tiles"] && r.shell.currentName == "tiles")
        #expect(r.tiles !== oldTiles)                   // made anew …
        #expect(r.tiles.model.selectedIDs == [3])       // … with its state
        #expect(Set(made) == ["words", "tiles"])
        // The scene on screen is dropped from the list: the first listed one shows.
        r.shell.reconfigure(names: ["lander"], rebuild: []) { SceneCatalog.make($0, fonts: fonts, scheduler: s, store: store)! }
        #expect(r.shell.currentName == "lander")
        r.wait(1)
        #expect(!r.shell.showingScreensaver)
    }
}

@Suite struct FileWatcherTests {
    @Test func anAtomicReplaceIsOneChangeAndOtherFilesAreNone() throws {
        let dir = try #require(mkdtemp(strdup("/tmp/kiosk-watch-XXXXXX")).map { String(cString: $0) })
        let path = dir + "/kiosk.toml"
        func write(_ p: String, _ text: String) { let f = fopen(p, "w"); fputs(text, f); fclose(f) }
        write(path, "[shell]\n")
        let scheduler = ManualScheduler()
        var readable: (() -> Void)?
        var changes = 0
        let w = try #require(FileWatcher(paths: [path], scheduler: scheduler, report: { _ in }, register: { _, action in readable = action }) {
            changes += 1
        })
        // Another file in the folder: nothing.
        write(dir + "/notes.txt", "hello")
        readable?()
        scheduler.advance(to: 1)
        #expect(changes == 0)
        // An editor's save: a temp file renamed over the settings, in a burst of events.
        write(dir + "/.kiosk.toml.tmp", "[shell]\nidle_timeout = 5\n")
        rename(dir + "/.kiosk.toml.tmp", path)
        write(path, "[shell]\nidle_timeout = 6\n")
        readable?()
        scheduler.advance(to: 1.1)
        #expect(changes == 0) // still settling
        scheduler.advance(to: 2)
        #expect(changes == 1)
        // Removed, then created again.
        unlink(path)
        readable?()
        scheduler.advance(to: 3)
        #expect(changes == 2)
        write(path, "[shell]\n")
        readable?()
        scheduler.advance(to: 4)
        #expect(changes == 3)
        _ = w
    }
    /// An operator's folder of content: it comes later (copied in whole), a picture is replaced,
    /// one is removed: each a change; a file left as it was is none.
    @Test func aWatchedFolderChangesWithAnyFileInIt() throws {
        let parent = try #require(mkdtemp(strdup("/tmp/kiosk-watch-XXXXXX")).map { String(cString: $0) })
        let folder = parent + "/exhibits"
        func write(_ p: String, _ text: String) { let f = fopen(p, "w"); fputs(text, f); fclose(f) }
        let scheduler = ManualScheduler()
        var readable: (() -> Void)?
        var changes = 0
        let w = try #require(FileWatcher(paths: [], folders: [folder], scheduler: scheduler, report: { _ in },
                                         register: { _, action in readable = action }) { changes += 1 })
        // Copied in: made elsewhere, then moved into place.
        mkdir(parent + "/.new", 0o755)
        write(parent + "/.new/exhibits.toml", "[[exhibit]]\ntitle = \"A\"\n")
        rename(parent + "/.new", folder)
        readable?()
        scheduler.advance(to: 1)
        #expect(changes == 1)
        // A picture added, then replaced: each seen, in the folder watched from when it came.
        write(folder + "/a.jpg", "1")
        readable?()
        scheduler.advance(to: 2)
        #expect(changes == 2)
        write(folder + "/a.jpg", "22")
        readable?()
        scheduler.advance(to: 3)
        #expect(changes == 3)
        // Touched without a change (the same contents written again leaves size and inode, but
        // not the change time): a change; reading it is none.
        unlink(folder + "/a.jpg")
        readable?()
        scheduler.advance(to: 4)
        #expect(changes == 4)
        _ = w
    }
}
