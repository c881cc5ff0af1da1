import Testing
@testable import Kiosk
#if canImport(Glibc)
import Glibc
#endif

@Suite struct ShellTests {
    final class Rig {
        let scheduler = ManualScheduler()
        let shell: Shell
        var now: Double { scheduler.now }
        init(idle: Double = 10, start: String = "tiles", screensaver: Bool = false, store: StateStore? = nil) {
            let fonts = FontCache()
            let s = scheduler
            shell = Shell(names: ["touch", "lander", "tiles"], start: start, fonts: fonts, scheduler: s, idleTimeout: idle,
                          startInScreensaver: screensaver, store: store) { SceneCatalog.make($0, fonts: fonts, scheduler: s)! }
            shell.layout(DisplayInfo(size: Size(width: 1280, height: 800)))
            shell.advance(to: 0)
        }
        func wait(_ dt: Double) { shell.advance(to: now + dt) }
        func tap(_ x: Double, _ y: Double, id: Int32 = 1) {
            shell.handle(TouchBatch(time: 0, points: [touch(id, .began, x, y)]), at: now)
            wait(0.05)
            shell.handle(TouchBatch(time: 0, points: [touch(id, .ended, x, y)]), at: now)
        }
        var tiles: TileBoardScene { shell.current as! TileBoardScene }
    }

    @Test func idleShowsTheScreensaverAndTheWakingTouchIsSwallowed() {
        let r = Rig(idle: 10)
        let p = r.tiles.board.convert(r.tiles.tileFrame(index: 0).center, to: nil)
        r.wait(9.9)
        #expect(!r.shell.showingScreensaver)
        r.wait(0.2)
        #expect(r.shell.showingScreensaver && r.shell.isAnimating)
        r.tap(p.x, p.y) // wakes; must not toggle the tile under it
        #expect(!r.shell.showingScreensaver)
        #expect(r.tiles.model.selectedIDs.isEmpty)
        r.wait(0.5)
        r.tap(p.x, p.y) // now taps reach the scene
        #expect(r.tiles.model.selectedIDs == [0])
    }

    @Test func theApplicationHearsWhenTheScreensaverStartsAndEnds() {
        let r = Rig(idle: 5)
        var events: [Bool] = []
        r.shell.onScreensaverChange = { events.append($0) }
        r.wait(5.1)
        r.tap(100, 700)
        r.wait(5.1)
        r.shell.handle(KeyEvent(keysym: 0x61, text: "a", pressed: true), at: r.now)
        #expect(events == [true, false, true, false])
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
        r.shell.handle(KeyEvent(keysym: 0xffc0, text: "", pressed: true), at: r.now) // F3 → tiles
        #expect(r.shell.currentName == "tiles")
        let frozen = lander.model.state
        r.wait(5)
        #expect(lander.model.state == frozen) // paused behind the other scene
        r.shell.handle(KeyEvent(keysym: 0xffbf, text: "", pressed: true), at: r.now) // F2 → lander
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
        r.shell.handle(TouchBatch(time: 0, points: [touch(2, .began, 1278, 400)]), at: r.now)
        for i in 1...10 { r.wait(0.016); r.shell.handle(TouchBatch(time: 0, points: [touch(2, .moved, 1278 - Double(i) * 20, 402)]), at: r.now) }
        r.shell.handle(TouchBatch(time: 0, points: [touch(2, .ended, 1078, 402)]), at: r.now)
        #expect(r.shell.currentName == "tiles")
    }

    @Test func aSwitchCrossFadesThenStopsDrawing() throws {
        let fonts = FontCache()
        let s = ManualScheduler()
        let shell = Shell(names: ["touch", "tiles"], start: "touch", fonts: fonts, scheduler: s, idleTimeout: 0) {
            SceneCatalog.make($0, fonts: fonts, scheduler: s)!
        }
        let r = try HeadlessRenderer(scene: shell, info: DisplayInfo(size: Size(width: 640, height: 400)))
        r.renderFrame()
        r.clock.advance(by: 1); r.renderFrame(); r.clock.advance(by: 1)
        #expect(r.renderFrame().isEmpty)
        shell.switchTo("tiles")
        r.clock.advance(by: 0.1)
        #expect(r.renderFrame().area == 640 * 400 && shell.isAnimating)
        r.clock.advance(by: 0.3); r.renderFrame()
        r.clock.advance(by: 0.1); r.renderFrame()
        #expect(!shell.isAnimating)
        r.clock.advance(by: 1)
        #expect(r.renderFrame().isEmpty)
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
