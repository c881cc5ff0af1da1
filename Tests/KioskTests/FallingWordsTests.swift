import Testing
import CPixman
@testable import KioskUI
@testable import Kiosk
@testable import KioskScenes
@testable import KioskRender
@testable import KioskCore

@Suite struct FallingWordsModelTests {
    @Test func aLabelEveryIntervalFromAFixedSeed() {
        var m = FallingWordsModel(config: FallingWordsConfig())
        #expect(m.advance(to: 0, height: 1080).added.count == 1)
        #expect(m.advance(to: 1.99, height: 1080).added.count == 3) // 0.5, 1.0, 1.5
        #expect(m.advance(to: 2.0, height: 1080).added.count == 1)
        #expect(m.words.map(\.spawnTime) == [0, 0.5, 1, 1.5, 2])
        var again = FallingWordsModel(config: FallingWordsConfig())
        again.advance(to: 0, height: 1080)
        again.advance(to: 2, height: 1080)
        #expect(again.words == m.words) // repeatable
    }

    @Test func sizesDurationsAndPathsStayInRange() {
        var c = FallingWordsConfig()
        c.seed = 99
        var m = FallingWordsModel(config: c)
        m.advance(to: 30, height: 1920)
        for w in m.words {
            #expect((1...2).contains(w.scale))
            #expect(w.duration >= 0.5 && w.duration <= 120 && w.duration.isFinite)
            #expect((0...1).contains(w.startX) && (0...1).contains(w.endX))
        }
    }

    @Test func noLabelSurvivesPastTheBottom() {
        var m = FallingWordsModel(config: FallingWordsConfig())
        let size = Size(width: 800, height: 600)
        for step in 0...600 {
            let t = Double(step) * 0.1
            m.advance(to: t, height: size.height)
            for w in m.words {
                let c = m.centre(of: w, at: t, in: size)
                let h = 60 * w.scale, bw = 200 * w.scale
                #expect(c.y - h / 2 < size.height) // still (partly) on screen while it exists
                #expect(c.x - bw / 2 >= -1e-9 && c.x + bw / 2 <= size.width + 1e-9) // never cut by a side
            }
        }
        // Each label starts fully above the top and ends fully below the bottom.
        let w = m.words[0]
        #expect(m.centre(of: w, at: w.spawnTime, in: size).y + 30 * w.scale <= 0)
        #expect(m.centre(of: w, at: w.spawnTime + w.duration, in: size).y - 30 * w.scale >= size.height - 1e-9)
    }

    @Test func blankPhrasesAndAbsurdSpeedsFallBackSafely() {
        var c = FallingWordsConfig()
        c.phrases = ["", "   "]
        c.speed = 0
        c.interval = .infinity
        var m = FallingWordsModel(config: c)
        m.advance(to: 100, height: 1080)
        #expect(m.words.allSatisfy { $0.text == "Peace Love Groovy Music" && $0.duration <= 120 })
        var many = FallingWordsConfig()
        many.phrases = ["Grüße", "春", "🎵 music"]
        var m2 = FallingWordsModel(config: many)
        m2.advance(to: 0, height: 1080)
        m2.advance(to: 20, height: 1080)
        #expect(Set(m2.words.map(\.text)).count == 3)
    }
}

@Suite struct FallingWordsSceneTests {
    @Test func labelsFollowTheModelAndARotationRetargetsThem() throws {
        let rig = SceneRig<FallingWordsScene>(size: Size(width: 1920, height: 1080)) { FallingWordsScene(fonts: $0, scheduler: $1) }
        rig.wait(3)
        #expect(rig.scene.labelCount == rig.scene.model.words.count && rig.scene.labelCount == 7)
        rig.scene.layout(DisplayInfo(size: Size(width: 1080, height: 1920)))
        let w = rig.scene.model.words[0]
        let expected = rig.scene.model.centre(of: w, at: rig.now, in: Size(width: 1080, height: 1920))
        let placed = try #require(rig.scene.labelCentre(of: w.id))
        #expect(abs(placed.x - expected.x) <= 0.5 && abs(placed.y - expected.y) <= 0.5)
        rig.wait(60)
        #expect(rig.scene.labelCount == rig.scene.model.words.count) // removed with the model
    }

    @Test func pausedItStopsAndResumesWithoutAFlood() {
        let rig = SceneRig<FallingWordsScene>(size: Size(width: 800, height: 600)) { FallingWordsScene(fonts: $0, scheduler: $1) }
        rig.wait(2)
        rig.scene.setActive(false)
        let n = rig.scene.labelCount
        rig.wait(100)
        #expect(rig.scene.labelCount == n)
        rig.scene.setActive(true)
        rig.wait(0.1)
        #expect(rig.scene.labelCount < 80) // at most a screenful catches up
    }
}

@Suite struct FallingWordsRenderingTests {
    /// The pixels of an image as 0xRRGGBB (opaque images).
    func pixels(_ img: Image) -> [UInt32] {
        var out: [UInt32] = []
        img.withRows { _, row in out.append(contentsOf: row.map { $0 & 0xff_ffff }) }
        return out
    }

    @Test(arguments: [1, 2])
    func damageOnlyFramesMatchAFullRepaint(scale: Int) throws {
        var c = FallingWordsConfig()
        c.interval = 0.05 // ~100 labels, many overlapping
        c.phrases = ["Peace Love Groovy Music", "Grüße aus Köln", "春夏秋冬"]
        let r = try HeadlessRenderer(scene: FallingWordsScene(fonts: testFonts, config: c),
                                     info: DisplayInfo(size: Size(width: 640, height: 400), scale: scale))
        r.run(until: 4)
        let scene = try #require(r.stage.scene as? FallingWordsScene)
        #expect(scene.labelCount > 40)
        // Only label boxes were repainted in the last frame, not the whole screen.
        r.clock.advance(by: 1.0 / 60)
        let damage = r.renderFrame()
        #expect(damage.area < r.stage.pixelSize.area * 9 / 10)
        #expect(damage.rectCount > 1)
        // Frames drawn damage-only (alternating two images) equal one drawn from scratch.
        let full = try #require(Image(pixelSize: r.stage.pixelSize, hasAlpha: false, scale: scale))
        r.stage.draw(in: Canvas(image: full))
        let a = pixels(r.image), b = pixels(full)
        let differing = zip(a, b).filter { $0 != $1 }.count
        #expect(differing == 0)
    }

    @Test func labelsInManySizesHoldOnlyAFewFontsAndKeepTheirFittedSizes() throws {
        // Sixteen phrases in random sizes: a dozen or more font sizes. The labels hold masks,
        // not fonts; the few fonts kept for making new ones are dropped when more pile up.
        var c = FallingWordsConfig()
        c.phrases = ["Welcome", "Peace", "Love", "Groovy Music", "Open daily", "Touch to begin", "Hello there",
                     "Discover more", "Ask our staff", "New this week", "Free entry", "Follow the signs",
                     "Enjoy your visit", "Look closer", "Try it out", "Peace Love Groovy Music"]
        c.interval = 0.05
        let fonts = testFonts
        let r = try HeadlessRenderer(scene: FallingWordsScene(fonts: fonts, config: c), info: DisplayInfo(size: Size(width: 1920, height: 1080)))
        r.run(until: 12)
        let scene = try #require(r.stage.scene as? FallingWordsScene)
        #expect(scene.labelCount > 100)
        let sizes = Set(scene.model.words.compactMap { w in scene.labelPixelSize(of: w.id) })
        #expect(sizes.count > 8)
        #expect(scene.textMemory.fonts <= FallingWordsView.labelFontsKept)
        // Each label has the size fitting its box that fonts loaded afresh give.
        let config = scene.model.config
        for w in scene.model.words.prefix(60) {
            let box = Size(width: config.baseSize.width * w.scale, height: config.baseSize.height * w.scale)
            let fitted = Label.fitLine(w.text, fonts: fonts, family: "DejaVu Sans", points: 0.6 * box.height, scale: 1,
                                       width: box.width, minimumScaleFactor: 0.2, sizeRatio: 1.1)
            #expect(scene.labelPixelSize(of: w.id) == fitted?.font.pixelSize, "\(w.text) at scale \(w.scale)")
        }
    }

    @Test func phrasesWithoutInkOrWithEmojiFallAndRepaintLikeTheOthers() throws {
        // A phrase of zero-width spaces has no ink (no mask: its run is kept and drawn), emoji
        // come from whatever font fontconfig falls back to: neither may upset the labels.
        var c = FallingWordsConfig()
        c.phrases = ["\u{200B}\u{200B}", "👍🏽 🇫🇷 🎵", "Peace"]
        c.interval = 0.1
        let r = try HeadlessRenderer(scene: FallingWordsScene(fonts: testFonts, config: c),
                                     info: DisplayInfo(size: Size(width: 640, height: 400)))
        r.run(until: 5)
        let scene = try #require(r.stage.scene as? FallingWordsScene)
        #expect(scene.labelCount > 20)
        #expect(Set(scene.model.words.map(\.text)).count == 3)
        r.clock.advance(by: 1.0 / 60)
        _ = r.renderFrame()
        let full = try #require(Image(pixelSize: r.stage.pixelSize, hasAlpha: false))
        r.stage.draw(in: Canvas(image: full))
        #expect(pixels(r.image) == pixels(full))
    }

    @Test func onePhraseNeedsOnlyAMaskPerFontSize() throws {
        let r = try HeadlessRenderer(scene: FallingWordsScene(fonts: testFonts), info: DisplayInfo(size: Size(width: 1920, height: 1080)))
        r.run(until: 10)
        let scene = try #require(r.stage.scene as? FallingWordsScene)
        #expect(scene.labelCount >= 15)
        #expect(scene.host.renderCache.textMasks.count <= scene.labelCount)
        #expect(scene.host.renderCache.textMasks.count < 40)
    }
}

@Suite struct CoverageTests {
    func run(_ text: String, px: Double = 20) throws -> TextRun {
        try #require(testFonts.font(points: px, scale: 1)).layout(text)
    }

    @Test func aMaskHoldsTheInkAtItsAlpha() throws {
        let r = try run("Hg")
        let m = try #require(TextMask(run: r, alpha: 0.5))
        #expect(m.colorRun == nil)
        #expect(m.offsetY < 0 && m.offsetY + m.pixelSize.height > 0) // above and below the baseline
        // Drawn white on black, full coverage × 0.5 is mid grey and nothing is brighter.
        let img = try #require(Image(pixelSize: PixelSize(width: 60, height: 40), hasAlpha: false))
        Canvas(image: img).drawCoverage([.init(mask: m, x: 10, y: 30)], color: .white, background: .black)
        var peak: UInt32 = 0
        img.withRows { _, row in for p in row { peak = max(peak, p & 0xff) } }
        #expect(peak >= 126 && peak <= 129)
        #expect(TextMask(run: try run("   "), alpha: 1) == nil) // no ink, no mask
    }

    @Test func theMaskCacheSharesMasksAndDropsOnlyUnheldOnesOverBudget() throws {
        let cache = TextMaskCache()
        cache.budget = 0
        let held = try #require(cache.mask(for: try run("held"), alpha: 0.75))
        #expect(cache.mask(for: try run("held"), alpha: 0.75) === held) // shared
        _ = cache.mask(for: try run("dropped"), alpha: 0.75)
        _ = cache.mask(for: try run("third"), alpha: 0.75) // over budget: a sweep first
        #expect(cache.count == 2) // "held" (still in use) and "third"
        #expect(cache.mask(for: try run("held"), alpha: 0.75) === held)
    }

    @Test func unheldMasksAreKeptUpToTheBudgetBeyondThoseInUse() throws {
        // Masks in use are never dropped; beyond them the cache keeps unheld ones for reuse up
        // to its budget, however much the held ones take (a screensaver's labels hold more
        // than the budget: every mask of a label that fell away used to go at the next sweep).
        let cache = TextMaskCache()
        let held = try (1...8).map { try #require(cache.mask(for: try run("held label \($0)"), alpha: 0.75)) }
        let heldBytes = held.reduce(0) { $0 + $1.byteCount }
        cache.budget = heldBytes / 4
        cache.sweep()
        _ = cache.mask(for: try run("spare"), alpha: 0.75)
        _ = cache.mask(for: try run("spare two"), alpha: 0.75)
        #expect(cache.count == 10) // both unheld ones kept: within the budget beyond the held
        for i in 3...30 { _ = cache.mask(for: try run("spare \(i)"), alpha: 0.75) }
        #expect(cache.byteCount <= heldBytes + cache.budget + 2_000)
        #expect(cache.count > 8)
        #expect(try cache.mask(for: run("held label 1"), alpha: 0.75) === held[0])
    }

    @Test func onBlackTheSumsAndColourArePixmansPixelsOnlyInTheClip() throws {
        // Every coverage value, in rows that cross the coverage band's boundary (128), twice
        // (overlapping, one copy partly off the canvas's top and left), under a clip of two
        // rectangles: each pixel as pixman's ADD of the masks and SRC of the colour through the
        // sum (its alpha byte too), and nothing outside the clip; into a buffer of this process
        // and into one the compositor reads (stores that bypass the cache for whole lines, plain
        // ones for each row's head and tail: rows start at every 16-byte phase of a line).
        let mask = try #require(Image(alphaMaskOf: PixelSize(width: 256, height: 200)))
        let base = UnsafeMutableRawPointer(pixman_image_get_data(mask.raw)!).assumingMemoryBound(to: UInt8.self)
        for y in 0..<200 { for x in 0..<256 { base[y * mask.stride + x] = UInt8((x + 3 * y) & 255) } }
        let places: [(x: Int32, y: Int32)] = [(20, 40), (-100, -30)]
        let color = Color(rgb: 0x8e24aa)
        let clip = Region(rects: [PixelRect(x: 30, y: 60, width: 200, height: 120), PixelRect(x: 0, y: 0, width: 90, height: 50),
                                  PixelRect(x: 5, y: 200, width: 290, height: 30),
                                  PixelRect(x: 250, y: 100, width: 7, height: 9)])
        let size = PixelSize(width: 300, height: 260)
        let sum = try #require(Image(alphaMaskOf: size))
        for p in places { pixman_image_composite32(PIXMAN_OP_ADD, mask.raw, nil, sum.raw, 0, 0, 0, 0, p.x, p.y, 256, 200) }
        for hasAlpha in [false, true] { for shared in [false, true] {
            let got = try #require(Image(pixelSize: size, hasAlpha: hasAlpha))
            let want = try #require(Image(pixelSize: size, hasAlpha: hasAlpha))
            for img in [got, want] { Canvas(image: img).clear(Color(rgb: 0x00ff00)) }
            let canvas = Canvas(target: got.raw, scale: 1, shared: shared)
            canvas.setClip(clip)
            canvas.drawCoverage(places.map { .init(mask: TextMask(image: mask), x: $0.x, y: $0.y) }, color: color, background: .black)
            var fg = color.pixman
            let src = try #require(pixman_image_create_solid_fill(&fg))
            defer { pixman_image_unref(src) }
            pixman_image_set_clip_region32(want.raw, clip.raw)
            pixman_image_composite32(PIXMAN_OP_SRC, src, sum.raw, want.raw, 0, 0, 0, 0, 0, 0, size.width, size.height)
            pixman_image_set_clip_region32(want.raw, nil)
            var wantRows: [[UInt32]] = []
            want.withRows { _, row in wantRows.append(Array(row)) }
            var differing = 0
            got.withRows { y, row in for x in row.indices where row[x] != wantRows[y][x] { differing += 1 } }
            #expect(differing == 0, "hasAlpha \(hasAlpha), shared \(shared)")
        } }
    }

    @Test func aMaskKeepsOnlyItsInkedStretchesAndSumsLikeTheWholeImage() throws {
        // Rows of ink and gaps of every width from 1 to 40 (short ones are kept inside a span,
        // long ones split it), an empty row, ink at both edges; summed with pixman's ADD from
        // the whole image as the reference, cut by the canvas on the left, the right and the top.
        let size = PixelSize(width: 300, height: 12)
        let image = try #require(Image(alphaMaskOf: size))
        let base = UnsafeMutableRawPointer(pixman_image_get_data(image.raw)!).assumingMemoryBound(to: UInt8.self)
        for y in 0..<Int(size.height) where y != 5 {
            var x = y % 3, gap = 1 + y
            while x < Int(size.width) {
                for i in x..<min(x + 7, Int(size.width)) { base[y * image.stride + i] = UInt8(37 * (i + y) % 255 + 1) }
                x += 7 + gap
                gap = gap % 40 + 3
            }
            base[y * image.stride + Int(size.width) - 1] = 200
        }
        let mask = TextMask(image: image)
        #expect(mask.byteCount < size.area) // the gaps are not kept
        let canvasSize = PixelSize(width: 320, height: 30)
        for place in [(x: Int32(10), y: Int32(8)), (x: -37, y: 3), (x: 45, y: -4), (x: -5, y: 20)] {
            let want = try #require(Image(alphaMaskOf: canvasSize))
            pixman_image_composite32(PIXMAN_OP_ADD, image.raw, nil, want.raw, 0, 0, 0, 0, place.x, place.y, size.width, size.height)
            pixman_image_composite32(PIXMAN_OP_ADD, image.raw, nil, want.raw, 0, 0, 0, 0, place.x + 3, place.y + 1, size.width, size.height)
            let got = try #require(Image(pixelSize: canvasSize, hasAlpha: true))
            Canvas(image: got).drawCoverage([.init(mask: mask, x: place.x, y: place.y), .init(mask: mask, x: place.x + 3, y: place.y + 1)],
                                            color: .white, background: .black)
            let w = UnsafeRawPointer(pixman_image_get_data(want.raw)!).assumingMemoryBound(to: UInt8.self)
            var differing = 0
            got.withRows { y, row in for x in row.indices where row[x] >> 24 != UInt32(w[y * want.stride + x]) { differing += 1 } }
            #expect(differing == 0, "at \(place)")
        }
    }

    @Test func aMaskOnATurnedCanvasIsTheUprightSumTurned() throws {
        // A mask of uneven ink (no side a whole vector), overlapping itself and cut by the
        // canvas' edges, drawn through every quarter turn in an order that turns the kept mask
        // from each orientation into each other one, under a clip: pixel for pixel the upright
        // picture turned (the turns written out here, not taken from TextMask).
        let size = PixelSize(width: 45, height: 23)
        let image = try #require(Image(alphaMaskOf: size))
        let base = UnsafeMutableRawPointer(pixman_image_get_data(image.raw)!).assumingMemoryBound(to: UInt8.self)
        // Columns 30–35 inked only in rows 5–11: turned, rows shorter than a vector.
        for y in 0..<Int(size.height) {
            for x in 0..<Int(size.width) where (x * 7 + y * 3) % 11 > 3 && (!(30..<36).contains(x) || (5..<12).contains(y)) {
                base[y * image.stride + x] = UInt8((x * 5 + y * 17) % 200 + 20)
            }
        }
        let mask = TextMask(image: image)
        let (W, H) = (70, 50)
        let places: [Canvas.MaskPlacement] = [.init(mask: mask, x: 10, y: 8), .init(mask: mask, x: 20, y: 15),
                                              .init(mask: mask, x: -12, y: 35), .init(mask: mask, x: 50, y: -6)]
        let clip = [PixelRect(x: 0, y: 0, width: 40, height: 50), PixelRect(x: 40, y: 10, width: 30, height: 30)]
        let upright = try #require(Image(pixelSize: PixelSize(width: Int32(W), height: Int32(H)), hasAlpha: false))
        let u = Canvas(image: upright)
        u.setClip(Region(rects: clip))
        u.drawCoverage(places, color: Color(rgb: 0xffcc66), background: .black)
        for k in [1, 2, 3, 0, 3, 1, 2, 0] {
            let turned = try #require(Image(pixelSize: k % 2 == 1 ? PixelSize(width: Int32(H), height: Int32(W)) : upright.pixelSize, hasAlpha: false))
            let tw = Int(turned.pixelSize.width), th = Int(turned.pixelSize.height)
            let outer = Canvas(image: turned)
            let t = AffineTransform.turning(Rotation(quarterTurns: k), into: Double(tw), Double(th))
            outer.setClip(Region(rects: clip.map { t.apply(Rect(x: Double($0.x), y: Double($0.y), width: Double($0.width), height: Double($0.height))).pixelBounds(scale: 1) }))
            let c = try #require(outer.turned(by: t, size: Size(width: Double(W), height: Double(H))))
            c.drawCoverage(places, color: Color(rgb: 0xffcc66), background: .black)
            var differing = 0
            for y in 0..<H {
                for x in 0..<W {
                    let (tx, ty): (Int, Int)
                    switch k {
                    case 1: (tx, ty) = (H - 1 - y, x)
                    case 2: (tx, ty) = (W - 1 - x, H - 1 - y)
                    case 3: (tx, ty) = (y, W - 1 - x)
                    default: (tx, ty) = (x, y)
                    }
                    if turned.pixel(x: tx, y: ty) != upright.pixel(x: x, y: y) { differing += 1 }
                }
            }
            #expect(differing == 0, "turned \(k * 90)°")
            #expect(mask.layout(turned: Rotation(quarterTurns: k)).rotation == Rotation(quarterTurns: k))
        }
    }

    @Test func overlapsAddUpAndOnlyTheClipIsPainted() throws {
        let img = try #require(Image(pixelSize: PixelSize(width: 60, height: 40), hasAlpha: false))
        let canvas = Canvas(image: img)
        canvas.clear(Color(rgb: 0x00ff00))
        let square = try #require(Image(alphaMaskOf: PixelSize(width: 20, height: 20)))
        Canvas(image: square).fill(Rect(x: 0, y: 0, width: 20, height: 20), color: Color(rgb: 0, alpha: 0.5))
        let m = TextMask(image: square)
        canvas.setClip(Region(PixelRect(x: 0, y: 0, width: 50, height: 40)))
        canvas.drawCoverage([.init(mask: m, x: 0, y: 0), .init(mask: m, x: 10, y: 0)], color: Color(rgb: 0xff0000), background: .black)
        #expect(img.pixel(x: 5, y: 5) & 0xff_ffff == 0x80_0000) // one label at ½
        #expect(img.pixel(x: 15, y: 5) & 0xff_ffff == 0xff_0000) // two: saturated
        #expect(img.pixel(x: 40, y: 5) & 0xff_ffff == 0x00_0000) // background
        #expect(img.pixel(x: 55, y: 5) & 0xff_ffff == 0x00_ff00) // outside the clip: untouched
        // A background other than black is painted first and the words blended over it.
        canvas.drawCoverage([.init(mask: m, x: 0, y: 0)], color: Color(rgb: 0xff0000), background: Color(rgb: 0x0000ff))
        #expect(img.pixel(x: 5, y: 5) & 0xff_ffff == 0x80_007f)
        #expect(img.pixel(x: 40, y: 5) & 0xff_ffff == 0x00_00ff)
        // A clip reaching past the canvas (damage of a larger screen) stays inside it.
        canvas.setClip(Region(PixelRect(x: -50, y: -50, width: 4000, height: 4000)))
        canvas.drawCoverage([.init(mask: m, x: 50, y: 30)], color: Color(rgb: 0xff0000), background: .black)
        #expect(img.pixel(x: 55, y: 35) & 0xff_ffff == 0x80_0000)
    }
}
