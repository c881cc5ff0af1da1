import Testing
@testable import Kiosk
@testable import KioskScenes
@testable import KioskRender
@testable import KioskCore

@Suite struct AppRotationTests {
    /// The board laid out 400×300 and drawn straight, and the same board drawn through each
    /// app rotation into a buffer of the window's size.
    func render(rotation: Int) throws -> (HeadlessRenderer, TileBoardScene) {
        let scene = TileBoardScene(fonts: FontCache())
        let window = rotation % 2 == 1 ? Size(width: 300, height: 400) : Size(width: 400, height: 300)
        let r = try HeadlessRenderer(scene: scene, info: DisplayInfo(size: window), rotation: Rotation(quarterTurns: rotation))
        r.renderFrame()
        return (r, scene)
    }

    /// Pixels (every third, over the 400×300 upright frame) where `turned` is not `upright`
    /// turned `quarterTurns` clockwise.
    static func mismatches(_ turned: Image, _ upright: Image, quarterTurns rot: Int) -> Int {
        let W = Int(turned.pixelSize.width), H = Int(turned.pixelSize.height)
        var mismatches = 0
        for ly in stride(from: 0, to: 300, by: 3) {
            for lx in stride(from: 0, to: 400, by: 3) {
                let (bx, by): (Int, Int)
                switch rot {
                case 1: (bx, by) = (W - 1 - ly, lx)
                case 2: (bx, by) = (W - 1 - lx, H - 1 - ly)
                default: (bx, by) = (ly, H - 1 - lx)
                }
                if turned.pixel(x: bx, y: by) != upright.pixel(x: lx, y: ly) { mismatches += 1 }
            }
        }
        return mismatches
    }

    @Test func aRotatedFrameIsTheUprightFrameTurnedExactly() throws {
        let (upright, _) = try render(rotation: 0)
        for rot in 1...3 {
            let (turned, scene) = try render(rotation: rot)
            #expect(scene.view.bounds.size == Size(width: 400, height: 300)) // laid out in the rotated size
            let mismatches = AppRotationTests.mismatches(turned.image, upright.image, quarterTurns: rot)
            #expect(mismatches == 0, "rotation \(rot * 90)°: \(mismatches) pixels differ")
        }
    }

    /// The large mode through each app rotation: the board laid out 400×300 at scale 2 in an
    /// 800×600 window, every pixel the upright frame's turned; a tap on glass lands on its tile
    /// and damages it where it is on the glass.
    @Test func theLargeModeTurnsExactlyAndTouchesFindTheirTiles() throws {
        func render(_ rot: Int) throws -> (HeadlessRenderer, TileBoardScene) {
            let scene = TileBoardScene(fonts: FontCache())
            scene.prefersLargeDisplay = true
            let window = rot % 2 == 1 ? Size(width: 600, height: 800) : Size(width: 800, height: 600)
            let r = try HeadlessRenderer(scene: scene, info: DisplayInfo(size: window), rotation: Rotation(quarterTurns: rot))
            r.renderFrame()
            return (r, scene)
        }
        let (upright, _) = try render(0)
        for rot in 0...3 {
            let (r, scene) = try render(rot)
            #expect(scene.view.bounds.size == Size(width: 400, height: 300) && scene.view.info.scale == 2)
            if rot > 0 {
                let W = Int(r.image.pixelSize.width), H = Int(r.image.pixelSize.height)
                var mismatches = 0
                for y in stride(from: 0, to: 600, by: 3) {
                    for x in stride(from: 0, to: 800, by: 3) {
                        let (bx, by) = rot == 1 ? (W - 1 - y, x) : rot == 2 ? (W - 1 - x, H - 1 - y) : (y, H - 1 - x)
                        if r.image.pixel(x: bx, y: by) != upright.image.pixel(x: x, y: y) { mismatches += 1 }
                    }
                }
                #expect(mismatches == 0, "rotation \(rot * 90)°: \(mismatches) pixels differ")
            }
            let (d, tileOnGlass) = tapTileFive(r, scene)
            #expect(scene.model.selectedIDs == [5], "rotation \(rot * 90)°")
            #expect(d.intersects(tileOnGlass.insetBy(dx: 6, dy: 6).pixelBounds(scale: 1)), "rotation \(rot * 90)°: damage \(d)")
        }
    }

    /// Tile 5 tapped where it is on the glass; the next frame's damage, and the tile on the glass.
    private func tapTileFive(_ r: HeadlessRenderer, _ scene: TileBoardScene) -> (Region, Rect) {
        let onGlass = r.stage.sceneToWindow.apply(scene.board.convert(scene.tileFrame(index: 5).center, to: nil))
        for phase in [TouchPhase.began, .ended] {
            scene.handle(r.stage.toScene(TouchBatch(time: r.clock.now, points: [TouchPoint(id: 1, phase: phase, location: onGlass)])))
        }
        r.clock.advance(by: 1)
        let d = r.renderFrame()
        return (d, r.stage.sceneToWindow.apply(scene.board.convert(scene.tileFrame(index: 5), to: nil)))
    }

    @Test func aTouchAtAnyCornerOfTheWindowWakesATurnedPanel() throws {
        // cage 0.2.0 puts every touch at the window's 0,0 while its output is off; turned, that
        // is the scene's far edge, where no view was hit and the dark panel never woke.
        for rot in 0...3 {
            for corner in [Point(x: 0, y: 0), Point(x: 300, y: 0), Point(x: 0, y: 400), Point(x: 300, y: 400)] {
                let fonts = FontCache(), s = ManualScheduler()
                let shell = Shell.make(SceneMaking(fonts: fonts, scheduler: s), names: ["tiles"], start: "tiles", home: "tiles", startInScreensaver: true)
                let window = rot % 2 == 1 ? Size(width: 300, height: 400) : Size(width: 400, height: 300)
                let at = rot % 2 == 1 ? corner : Point(x: corner.y, y: corner.x)
                let r = try HeadlessRenderer(scene: shell, info: DisplayInfo(size: window), rotation: Rotation(quarterTurns: rot))
                r.renderFrame()
                for phase in [TouchPhase.began, .ended] {
                    shell.handle(r.stage.toScene(TouchBatch(time: r.clock.now, points: [TouchPoint(id: 1, phase: phase, location: at)])))
                }
                #expect(shell.showing == .scene, "rotation \(rot * 90)°, a touch at \(at) of the window")
            }
        }
    }

    @Test func aTapLandsOnTheSameTileInEveryRotation() throws {
        for rot in 0...3 {
            let (r, scene) = try render(rotation: rot)
            let (d, tileOnGlass) = tapTileFive(r, scene)
            #expect(scene.model.selectedIDs == [5], "rotation \(rot * 90)°")
            // The change damages the tile where it is on the glass, not where it is in the scene.
            #expect(d.intersects(tileOnGlass.insetBy(dx: 4, dy: 4).pixelBounds(scale: 1)))
            #expect(d.area < 300 * 400 / 2)
        }
    }

    @Test func rotationCanChangeLive() throws {
        let (r, scene) = try render(rotation: 1)
        r.stage.setRotation(.upright)
        #expect(scene.view.bounds.size == Size(width: 300, height: 400))
        #expect(r.renderFrame().area == 300 * 400)
    }

    @Test func aRotatedOutputGetsAPreRotatedBufferAndTouchesNeedNoMapping() throws {
        let (upright, _) = try render(rotation: 0)
        for b in 1...3 {
            let scene = TileBoardScene(fonts: FontCache())
            let r = try HeadlessRenderer(scene: scene, info: DisplayInfo(size: Size(width: 400, height: 300)), bufferRotation: Rotation(quarterTurns: b))
            r.renderFrame()
            #expect(scene.view.bounds.size == Size(width: 400, height: 300)) // the surface's size
            #expect(r.image.pixelSize == (b % 2 == 1 ? PixelSize(width: 300, height: 400) : PixelSize(width: 400, height: 300)))
            let mismatches = AppRotationTests.mismatches(r.image, upright.image, quarterTurns: b)
            #expect(mismatches == 0, "buffer turned \(b * 90)°: \(mismatches) pixels differ")
            // Surface coordinates are the scene's: the compositor undoes the buffer's turn.
            #expect(r.stage.toScene(Point(x: 10, y: 20)) == Point(x: 10, y: 20))
        }
    }
}

@Suite struct RelayoutEverywhereTests {
    /// Every scene, mid-animation and with two fingers down, turned portrait ↔ landscape a few
    /// times: it keeps running, repaints everything, takes the lifts, and settles.
    @Test(arguments: SceneCatalog.standard.names)
    func relayoutDuringAnimationWithFingersDown(name: String) throws {
        let fonts = FontCache()
        let scene = try #require(SceneCatalog.make(name, fonts: fonts))
        let r = try HeadlessRenderer(scene: scene, info: DisplayInfo(size: Size(width: 1280, height: 800)))
        r.run(until: 1)
        scene.handle(TouchBatch(time: r.clock.now, points: [touch(1, .began, 300, 300), touch(2, .began, 900, 500)]))
        r.clock.advance(by: 0.1)
        r.renderFrame()
        for (i, size) in [Size(width: 800, height: 1280), Size(width: 1280, height: 800), Size(width: 720, height: 1280)].enumerated() {
            r.stage.relayout(DisplayInfo(size: size))
            scene.handle(TouchBatch(time: r.clock.now, points: [touch(1, .moved, 200 + Double(i) * 10, 300), touch(2, .moved, 500, 600)]))
            r.clock.advance(by: 1.0 / 60)
            let d = r.renderFrame()
            #expect(d.area == r.stage.pixelSize.area, "\(name): a relayout repaints everything")
        }
        scene.handle(TouchBatch(time: r.clock.now, points: [touch(1, .ended, 210, 300), touch(2, .ended, 500, 600)]))
        r.run(until: r.clock.now + 3)
        #expect(r.image.pixelSize == PixelSize(width: 720, height: 1280))
    }
}

@Suite struct TurnedCanvasTests {
    /// `scene` laid out 640×400 and run for a few seconds of frames (two fingers down part of
    /// the way), drawn through `turns` quarter turns: of the app (`app`) or of the buffer.
    func frames(_ name: String, turns: Int, app: Bool, scale: Int = 1) throws -> Image {
        let scene = try #require(SceneCatalog.make(name, fonts: FontCache()))
        let upright = Size(width: 640, height: 400)
        let window = app && turns % 2 == 1 ? Size(width: 400, height: 640) : upright
        let r = try HeadlessRenderer(scene: scene, info: DisplayInfo(size: window, scale: scale), rotation: Rotation(quarterTurns: app ? turns : 0), bufferRotation: Rotation(quarterTurns: app ? 0 : turns))
        r.run(until: 1.5)
        scene.handle(TouchBatch(time: r.clock.now, points: [touch(1, .began, 200, 150), touch(2, .began, 450, 260)]))
        for i in 1...20 {
            r.clock.advance(by: 1.0 / 60)
            scene.handle(TouchBatch(time: r.clock.now, points: [touch(1, .moved, 200 + Double(i) * 7, 150), touch(2, .moved, 450, 260 - Double(i) * 5)]))
            r.renderFrame()
        }
        scene.handle(TouchBatch(time: r.clock.now, points: [touch(1, .ended, 340, 150), touch(2, .ended, 450, 160)]))
        r.run(until: 4)
        return r.image
    }

    /// Pixels of the upright frame whose turned counterpart differs by more than `tolerance`
    /// in a channel.
    static func differing(_ turned: Image, _ upright: Image, quarterTurns k: Int, tolerance: Int32 = 2) -> Int {
        let w = Int(upright.pixelSize.width), h = Int(upright.pixelSize.height)
        var n = 0
        for y in 0..<h {
            for x in 0..<w {
                let (tx, ty) = Rotation(quarterTurns: k).turn(x, y, width: w, height: h)
                let a = turned.pixel(x: tx, y: ty), b = upright.pixel(x: x, y: y)
                for shift in [0, 8, 16] where abs(Int32((a >> shift) & 0xff) - Int32((b >> shift) & 0xff)) > tolerance {
                    n += 1
                    break
                }
            }
        }
        return n
    }

    /// Every scene, drawn straight into a turned buffer (a rotated output, or the app's own
    /// rotation), shows what the upright frame shows, turned: shapes, text, layers, text
    /// masks and the damage of every frame on the way.
    @Test(arguments: SceneCatalog.standard.names)
    func aTurnedFrameIsTheUprightFrameTurned(name: String) throws {
        let upright = try frames(name, turns: 0, app: false)
        for (turns, app) in [(1, false), (2, false), (3, false), (1, true), (3, true)] {
            let turned = try frames(name, turns: turns, app: app)
            let n = TurnedCanvasTests.differing(turned, upright, quarterTurns: turns)
            #expect(n == 0, "\(name), \(app ? "app" : "buffer") turned \(turns * 90)°: \(n) pixels differ")
        }
        // At scale 3 (points are three pixels, and a pixel a third of a point) nothing may
        // round apart.
        let upright3 = try frames(name, turns: 0, app: false, scale: 3)
        let n = TurnedCanvasTests.differing(try frames(name, turns: 1, app: false, scale: 3), upright3, quarterTurns: 1)
        #expect(n == 0, "\(name), buffer turned 90° at scale 3: \(n) pixels differ")
    }
}

@Suite struct UprightPictureTests {
    /// What `kiosk screenshot` sends: the committed buffer copied and turned back by the app's
    /// and the output's turns is the upright frame, pixel for pixel, whatever the two turns.
    @Test func theBufferTurnedBackIsTheUprightFrame() throws {
        let upright = try HeadlessRenderer(scene: TileBoardScene(fonts: FontCache()), info: DisplayInfo(size: Size(width: 400, height: 300)))
        upright.renderFrame()
        for app in 0...3 {
            for output in 0...3 {
                let (a, o) = (Rotation(quarterTurns: app), Rotation(quarterTurns: output))
                let window = a.swapsSides ? Size(width: 300, height: 400) : Size(width: 400, height: 300)
                let r = try HeadlessRenderer(scene: TileBoardScene(fonts: FontCache()), info: DisplayInfo(size: window), rotation: a, bufferRotation: o)
                r.renderFrame()
                let picture = try #require(Image.copy(of: r.image.raw, turnedBy: a.then(o).inverse))
                #expect(picture.pixelSize == upright.image.pixelSize)
                var differ = 0
                for y in 0..<300 { for x in 0..<400 where picture.pixel(x: x, y: y) != upright.image.pixel(x: x, y: y) { differ += 1 } }
                #expect(differ == 0, "app \(a), output \(o): \(differ) pixels differ")
            }
        }
    }

    @Test func aPictureEncodesToAPNGThatReadsBackTheSame() throws {
        let r = try HeadlessRenderer(scene: TileBoardScene(fonts: FontCache()), info: DisplayInfo(size: Size(width: 200, height: 120)))
        r.renderFrame()
        let bytes = try PNG.encode(r.image, name: "test")
        #expect(bytes.starts(with: [0x89, 0x50, 0x4e, 0x47]))
        let back = try PNG.decode(bytes, path: "test", limits: .general)
        var differ = 0
        for y in 0..<120 { for x in 0..<200 where back.pixel(x: x, y: y) != r.image.pixel(x: x, y: y) { differ += 1 } }
        #expect(differ == 0)
    }
}
