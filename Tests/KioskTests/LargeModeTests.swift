import Testing
@testable import Kiosk
@testable import KioskScenes
@testable import KioskUI
@testable import KioskRender
@testable import KioskCore

/// The visitors' large high-contrast mode on every panel of the matrix, and in every language on
/// the smallest panel and the tall one: the matrix's own checks with 15 mm targets, and on top
/// text at least twice the size it has in the usual mode, and text and controls at 7:1 against
/// what is behind them, read from the rendered pixels.
@Suite struct LargeModeTests {
    static let screens = ["lander", "tiles", "lander-help", "screensaver", "exhibits", "exhibits-page"]
    typealias Panel = PanelMatrixTests.Panel

    static var cases: [(Panel, String)] { PanelMatrixTests.panels.flatMap { p in screens.map { (p, $0) } } }
    static var languageCases: [(Language, Panel, String)] {
        shippedLanguages.filter { $0 != .english }.flatMap { l in
            [PanelMatrixTests.panels[0], PanelMatrixTests.panels[4]].flatMap { p in screens.map { (l, p, $0) } }
        }
    }

    @Test(arguments: cases) func whatAVisitorWithLowVisionSees(panel: Panel, screen: String) throws {
        try PanelMatrixTests().check(panel: panel, screen: screen, language: .english, large: true)
    }

    @Test(arguments: languageCases) func inTheirLanguage(language: Language, panel: Panel, screen: String) throws {
        try PanelMatrixTests().check(panel: panel, screen: screen, language: language, large: true)
    }

    /// Every colour of the palette, and any other, in high contrast: surfaces black, the rest 7:1
    /// against black, hue and alpha kept (a disabled button's faded title was once turned black).
    @Test func highContrastColours() {
        for c in [Color.space, .ink, .panel, .dusk] { #expect(c.inHighContrast == .black, "\(c)") }
        for c in [Color.steel, .slate, .mist, .paper, .sky, .amber, .leaf, .lemon, .coral, Color(rgb: 0x8e24aa), Color(rgb: 0x3a4756)] {
            let h = c.inHighContrast
            #expect(Color.contrast(h, .black) >= 7, "\(c) → \(h)")
            #expect((h.red >= h.green) == (c.red >= c.green) && (h.green >= h.blue) == (c.green >= c.blue), "\(c): hue kept")
        }
        let faded = Color.paper.withAlpha(0.35).inHighContrast
        #expect(faded.alpha == 0.35 && faded.relativeLuminance > 0.5)
        #expect(abs(Color.contrast(.white, .black) - 21) < 1e-9 && Color.contrast(.sky, .sky) == 1)
    }

    /// Operators' screens keep their size: the mode is the visitors'.
    @Test func theAdminPanelTheSetupAndTheTouchTestKeepTheirSize() throws {
        let touch = try PanelMatrixTests.Composed(PanelMatrixTests.panels[2], "touch", large: true)
        #expect(!touch.info.isLarge)
        touch.shell.switchTo("tiles")
        touch.renderer.run(until: touch.renderer.clock.now + 0.5)
        #expect(touch.info.isLarge, "a visitors' scene is large")
        for screen in ["admin", "setup-touch"] {
            let c = try PanelMatrixTests.Composed(PanelMatrixTests.panels[2], screen, large: true)
            #expect(!c.info.isLarge && c.info.size == PanelMatrixTests.panels[2].size, "\(screen)")
            c.shell.show(.scene)
            c.shell.switchTo("tiles")
            c.renderer.run(until: c.renderer.clock.now + 0.5)
            #expect(c.info.isLarge && c.info.size.width == PanelMatrixTests.panels[2].size.width / 2, "\(screen): back to the scene")
        }
    }

    /// The bar's "aA" pill turns the mode on with a tap (the stage follows on the next frame),
    /// touches land where they are seen, and the fresh start brings the site's default back.
    @Test func aVisitorTurnsItOnAndTheNextVisitorFindsTheDefault() throws {
        let panel = PanelMatrixTests.panels[2]
        let c = try PanelMatrixTests.Composed(panel, "tiles")
        c.shell.resetsOnWake = true
        let pill = c.shell.sceneBarFrames[3]
        tap(c, at: Point(x: pill.midX, y: pill.midY))
        #expect(c.shell.isLarge && c.info.isLarge)
        c.renderer.run(until: c.renderer.clock.now + 1) // the tiles slide to their new places
        // A tile tapped where it shows, in window points (the stage halves them).
        let tiles = c.shell.current as! TileBoardScene
        let tile = tiles.tileViews[tiles.model.tiles[0].id]!
        let f = tile.convert(Rect(origin: .zero, size: tile.bounds.size), to: nil)
        tapWindow(c, at: Point(x: f.midX * 2, y: f.midY * 2))
        #expect(tiles.model.selectedIDs == [tiles.model.tiles[0].id])
        c.shell.show(.screensaver)
        c.shell.show(.scene)
        c.renderer.run(until: c.renderer.clock.now + 0.5)
        #expect(!c.shell.isLarge && !c.info.isLarge, "a fresh start: the site's default (off)")
    }

    /// Where not all tiles fit at 15 mm, the board shows them a page at a time; the arrows turn
    /// the pages, say which tiles show, and a tile on the second page is chosen where it shows.
    @Test func aSmallPanelShowsTheTilesAPageAtATime() throws {
        let c = try PanelMatrixTests.Composed(PanelMatrixTests.panels[0], "tiles", large: true)
        let tiles = c.shell.current as! TileBoardScene
        var said: [String] = []
        c.shell.window.screenReader.speak = { said.append($0.text) }
        #expect(tiles.shownRange.count < tiles.model.tiles.count && !tiles.nextPage.isHidden && !tiles.previousPage.isEnabled)
        let first = tiles.shownRange
        // Without sight: a finger rests on the arrow and hears it, then a double tap anywhere.
        c.shell.window.screenReader.setOn(true, saying: false)
        let next = tiles.nextPage.convert(Rect(origin: .zero, size: tiles.nextPage.bounds.size), to: nil)
        tap(c, at: Point(x: next.midX, y: next.midY), holding: 0.4)
        #expect(said.last == "Next tiles, button", "\(said)")
        tap(c, at: Point(x: 5, y: 200), after: 0.5)
        tap(c, at: Point(x: 5, y: 200), after: 0.1)
        #expect(tiles.shownRange.lowerBound == first.upperBound, "the next page")
        #expect(said.contains("Tiles \(first.upperBound + 1) to \(tiles.shownRange.upperBound) of 24"), "\(said)")
        c.shell.window.screenReader.setOn(false, saying: false)
        let id = tiles.model.tiles[tiles.shownRange.lowerBound].id, v = tiles.tileViews[id]!
        let f = v.convert(Rect(origin: .zero, size: v.bounds.size), to: nil)
        tap(c, at: Point(x: f.midX, y: f.midY), after: 0.5)
        #expect(tiles.model.selectedIDs == [id])
        #expect(tiles.tileViews[tiles.model.tiles[0].id]!.isHidden, "the first page's tiles are not shown")
    }

    /// On the 7" panel the help shows a part at a time: More turns to the next part and back to
    /// the first; a screen reader hears the whole text whichever part shows.
    @Test func aLongHelpShowsAPartAtATime() throws {
        let c = try PanelMatrixTests.Composed(PanelMatrixTests.panels[0], "lander-help", large: true)
        let help = try #require((c.shell.current as? LanderScene)?.help)
        #expect(help.partCount > 1 && !help.moreButton.isHidden)
        var seen: [String] = []
        for _ in 0..<help.partCount {
            seen.append(help.bodyLabel.text)
            let f = help.moreButton.convert(Rect(origin: .zero, size: help.moreButton.bounds.size), to: nil)
            tap(c, at: Point(x: f.midX, y: f.midY))
        }
        #expect(help.part == 0, "back to the first part")
        let words = { (s: String) in s.split(whereSeparator: { $0 == " " || $0 == "\n" }) }
        #expect(words(seen.joined(separator: " ")) == words(help.body), "every part shown once, in order")
        #expect(help.bodyLabel.spokenLabel == help.body)
    }

    /// A tap in the shell's (scene) points.
    private func tap(_ c: PanelMatrixTests.Composed, at p: Point, after pause: Double = 0.2, holding: Double = 0.05) {
        let now = c.renderer.clock.now + pause
        c.renderer.run(until: now)
        c.shell.handle(TouchBatch(time: now, points: [touch(1, .began, p.x, p.y)]))
        c.renderer.run(until: now + holding)
        c.shell.handle(TouchBatch(time: now + holding, points: [touch(1, .ended, p.x, p.y)]))
        c.renderer.run(until: now + holding + 0.05)
    }

    /// A tap in window points, through the stage as the live kiosk delivers it.
    private func tapWindow(_ c: PanelMatrixTests.Composed, at p: Point) {
        let now = c.renderer.clock.now + 0.2
        c.renderer.run(until: now)
        for (t, phase) in [(now, TouchPhase.began), (now + 0.05, .ended)] {
            c.shell.handle(c.renderer.stage.toScene(TouchBatch(time: t, points: [touch(1, phase, p.x, p.y)])))
        }
        c.renderer.run(until: now + 0.1)
    }
}

/// What the large mode promises on one composed screen, beyond the matrix's layout checks.
struct LargeModeChecks {
    let composed: PanelMatrixTests.Composed
    let at: String
    /// WCAG 2.2's enhanced contrast (1.4.6), asked of text and controls alike.
    static let leastContrast = 7.0

    func check(texts: [(view: View, frame: Rect)], targets: [(view: View, frame: Rect)]) throws {
        let c = composed
        #expect(c.info.isLarge, "\(at): not in the large mode")
        try checkTextIsTwiceItsSize(texts)
        let image = c.renderer.image, scale = Double(c.info.scale)
        func pixels(_ f: Rect) -> PixelRect { f.pixelBounds(scale: Int(scale)) }
        for (v, f) in texts where isActive(v) {
            let ratio = Contrast.ofText(in: image, pixels(f))
            #expect(ratio >= Self.leastContrast, "\(at): '\((v as! Label).text)' stands \(ratio):1 against its background")
        }
        // A board or a scroll view is a region, not a control: what it holds is what stands out.
        for (v, f) in targets where isActive(v) && !(v is BoardView) && !(v is ScrollView) {
            // The grip's target is taller than the bar it shows: the bar is what must stand out.
            let ratio = v is GripView ? Contrast.ofText(in: image, pixels(f)) : Contrast.ofEdge(in: image, pixels(f))
            #expect(ratio >= Self.leastContrast, "\(at): the edge of '\(v.accessibilityIdentifier ?? "\(type(of: v))")' stands \(ratio):1")
        }
        if let tiles = c.shell.current as? TileBoardScene, c.shell.activeScene === tiles {
            for i in tiles.shownRange {
                let v = tiles.tileViews[tiles.model.tiles[i].id]!
                let ratio = Contrast.ofEdge(in: image, pixels(v.convert(Rect(origin: .zero, size: v.bounds.size), to: nil)))
                #expect(ratio >= Self.leastContrast, "\(at): tile \(i + 1) stands \(ratio):1")
            }
        }
    }

    /// A disabled control (and its title) is exempt, as in WCAG: nothing can be done with it.
    private func isActive(_ v: View) -> Bool {
        var view: View? = v
        while let x = view {
            if let b = x as? Button, !b.isEnabled { return false }
            view = x.superview
        }
        return true
    }

    /// Each text in device pixels at least twice its size in the usual mode on the same panel.
    private func checkTextIsTwiceItsSize(_ texts: [(view: View, frame: Rect)]) throws {
        let c = composed
        let usual = try PanelMatrixTests.Composed(c.panel, screenName, language: c.settings.language)
        var usualSize: [String: Double] = [:]
        for (v, _) in usual.visible(under: usual.top) {
            if let l = v as? Label, !l.text.isEmpty { usualSize[l.text] = l.fontSize * Double(usual.info.scale) }
        }
        for (v, _) in texts {
            let l = v as! Label
            guard let before = usualSize[l.text] else { continue }
            let now = l.fontSize * Double(c.info.scale)
            #expect(now >= 2 * before - 1e-6, "\(at): '\(l.text)' is \(now) px, \(before) px in the usual mode")
        }
    }

    private var screenName: String { String(at.split(separator: " ")[2]) }
}

/// Contrast read from pixels, as WCAG 2 defines the ratio.
enum Contrast {
    static func color(_ p: UInt32) -> Color { Color(rgb: p & 0xff_ffff) }

    /// How far text in `r` stands from its background: the background is the commonest colour
    /// there; the text's is the contrast that the strongest 0.5 % of the pixels reach (anti-
    /// aliased edges between them count for nothing).
    static func ofText(in image: Image, _ r: PixelRect) -> Double {
        let r = r.intersection(PixelRect(x: 0, y: 0, width: image.pixelSize.width, height: image.pixelSize.height))
        guard r.width > 0, r.height > 0 else { return 21 }
        var counts: [UInt32: Int] = [:]
        var all: [UInt32] = []
        for y in Int(r.y)..<Int(r.y + r.height) {
            for x in Int(r.x)..<Int(r.x + r.width) {
                let p = image.pixel(x: x, y: y) & 0xff_ffff
                counts[p, default: 0] += 1
                all.append(p)
            }
        }
        let background = color(counts.max { $0.value < $1.value }!.key)
        let ratios = all.map { Color.contrast(color($0), background) }.sorted(by: >)
        return ratios[min(ratios.count - 1, max(3, ratios.count / 200))]
    }

    /// How far a control's edge stands from what is around it: across the middle half of each
    /// side, from 3 px outside to 8 px inside, the strongest contrast against the pixel outside;
    /// the median of five such lines per side, the weakest side (sides at the screen's edge are
    /// not looked at).
    static func ofEdge(in image: Image, _ r: PixelRect) -> Double {
        let w = Int(image.pixelSize.width), h = Int(image.pixelSize.height)
        let x0 = Int(r.x), y0 = Int(r.y), x1 = Int(r.x + r.width), y1 = Int(r.y + r.height)
        func line(_ from: (Int, Int), _ step: (Int, Int)) -> Double? {
            guard (0..<w).contains(from.0), (0..<h).contains(from.1) else { return nil }
            let outside = color(image.pixel(x: from.0, y: from.1))
            var best = 1.0
            for i in 1...11 {
                let x = from.0 + step.0 * i, y = from.1 + step.1 * i
                guard (0..<w).contains(x), (0..<h).contains(y) else { break }
                best = max(best, Color.contrast(color(image.pixel(x: x, y: y)), outside))
            }
            return best
        }
        func side(_ lines: [Double?]) -> Double? {
            let found = lines.compactMap { $0 }.sorted()
            return found.count == lines.count ? found[found.count / 2] : nil
        }
        let along = (1...5).map { Double($0) / 6 * 0.5 + 0.25 }
        let xs = along.map { x0 + Int(Double(x1 - x0) * $0) }, ys = along.map { y0 + Int(Double(y1 - y0) * $0) }
        let sides = [side(xs.map { line(($0, y0 - 3), (0, 1)) }), side(xs.map { line(($0, y1 + 2), (0, -1)) }),
                     side(ys.map { line((x0 - 3, $0), (1, 0)) }), side(ys.map { line((x1 + 2, $0), (-1, 0)) })].compactMap { $0 }
        return sides.min() ?? 21
    }
}

