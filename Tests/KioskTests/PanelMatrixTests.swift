import Testing
@testable import Kiosk
@testable import KioskScenes
@testable import KioskUI
@testable import KioskRender
@testable import KioskCore
#if canImport(Glibc)
import Glibc
#endif

/// The kiosk as visitors see it — the whole shell with its scene bar, not a bare scene — on the
/// panels kiosks use, for every scene and for the help overlay, the admin panel and the
/// screensaver: nothing people read or touch under the bar or off screen, no text clipped, no
/// two controls or texts on top of each other, every touch target a fingertip (9 mm) or more,
/// a tap in the middle of the tile board on a tile; and each screen kept as a golden image
/// (reduced to 640 px wide: layout, not glyphs, is what these guard).
@Suite struct PanelMatrixTests {
    struct Panel: Sendable, CustomTestStringConvertible {
        let name: String
        let size: Size, scale: Int, millimetres: Size
        var testDescription: String { name }
        var info: DisplayInfo { DisplayInfo(size: size, scale: scale, physicalSize: millimetres) }
    }
    static let panels = [
        Panel(name: "7in-800x480", size: Size(width: 800, height: 480), scale: 1, millimetres: Size(width: 154, height: 86)),
        Panel(name: "7in-1024x600", size: Size(width: 1024, height: 600), scale: 1, millimetres: Size(width: 154, height: 90)),
        Panel(name: "10in-1280x800", size: Size(width: 1280, height: 800), scale: 1, millimetres: Size(width: 217, height: 136)),
        Panel(name: "22in-1920x1080", size: Size(width: 1920, height: 1080), scale: 1, millimetres: Size(width: 476, height: 268)),
        Panel(name: "22in-1080x1920", size: Size(width: 1080, height: 1920), scale: 1, millimetres: Size(width: 268, height: 476)),
        Panel(name: "27in-2560x1440", size: Size(width: 2560, height: 1440), scale: 1, millimetres: Size(width: 597, height: 336)),
        Panel(name: "27in-3840x2160-scale2", size: Size(width: 1920, height: 1080), scale: 2, millimetres: Size(width: 597, height: 336)),
    ]
    /// Every scene of the bar's (the test suite's own scenes too), then the screens within them
    /// and the operators'.
    static let screens = testSceneCatalog.barScenes + ["exhibits-page", "lander-help", "admin", "screensaver",
                          "setup-touch", "setup-calibrate", "setup-calibrated", "setup-rotate", "setup-pin", "setup-scenes"]

    /// The shell on `panel` showing `screen`, settled (cross-fades and fades over).
    final class Composed {
        let scheduler = ManualScheduler()
        let shell: Shell
        let renderer: HeadlessRenderer
        let panel: Panel

        let settings: Settings

        init(_ panel: Panel, _ screen: String, language: Language = .english, large: Bool = false) throws {
            self.panel = panel
            // A test scene's screen in the kiosk that has it, among the standard scenes; every
            // other in the standard kiosk.
            let catalog = SceneCatalog.standard.description(screen) == nil && testSceneCatalog.description(screen) != nil ? testSceneCatalog : .standard
            var settings = Settings()
            settings.catalog = catalog
            settings.language = language
            settings.knownLanguages = shippedLanguages
            settings.sections[ExhibitsSettings.self].folder = ExhibitsFixture.folder
            self.settings = settings
            let fonts = testFonts, s = scheduler
            let start = screen == "lander-help" ? "lander" : screen == "exhibits-page" ? "exhibits" : catalog.barScenes.contains(screen) ? screen : "touch"
            // The scenes a kiosk has without a setting (and the touch test): one the operator
            // adds joins them for its own screens.
            let usual = SceneCatalog.standard.benchScenes
            let names = usual + (usual.contains(start) ? [] : [start])
            shell = Shell.make(SceneMaking(fonts: fonts, scheduler: s, settings: settings), names: names, start: start, home: start, catalog: catalog)
            shell.setLanguages([settings.kioskTexts])
            shell.isLarge = large
            renderer = try HeadlessRenderer(scene: shell, info: panel.info)
            renderer.run(until: 0.1)
            switch screen {
            case "lander-help": (shell.current as! LanderScene).showHelp()
            case "exhibits-page": (shell.current as! ExhibitsScene).open(0)
            case "admin": shell.show(.admin(AdminPanel(fonts: fonts, scheduler: s, settings: settings) { _ in }))
            case "screensaver": shell.show(.screensaver)
            case let s where s.hasPrefix("setup-"): showSetup(s)
            default: break
            }
            // The screensaver a few seconds in, when words are falling all over.
            renderer.run(until: screen == "screensaver" ? 6 : 1)
        }

        /// The setup screen at the step `screen` names, as the first start shows it; calibrated
        /// by taps on its targets (so the result, the udev line and its buttons are laid out).
        private func showSetup(_ screen: String) {
            let stepName = screen == "setup-calibrated" ? "calibrate" : String(screen.dropFirst("setup-".count))
            let step = SetupScene.Step.allCases.first { $0.name == stepName } ?? .touch
            let setup = SetupScene(fonts: testFonts, scheduler: scheduler, settings: settings, saved: nil, filePath: nil,
                                   stage: renderer.stage, step: step) { _ in }
            shell.show(.admin(setup))
            renderer.run(until: 0.5)
            guard screen == "setup-calibrated" else { return }
            while let run = setup.calibration.run, let i = run.asking {
                let t = run.targets[i], now = renderer.clock.now
                shell.handle(TouchBatch(time: now, points: [touch(1, .began, t.x + 3, t.y - 2)]))
                shell.handle(TouchBatch(time: now + 0.05, points: [touch(1, .ended, t.x + 3, t.y - 2)]))
                renderer.run(until: now + 0.2)
            }
        }

        var root: View { shell.activeScene.view }
        /// The screen as the shell has it: the panel, or half its points in the large mode.
        var info: DisplayInfo { renderer.stage.info }
        var mm: Double { info.pointsPerMillimetre }
        var showsBar: Bool { !shell.showingScreensaver && shell.overlay == nil }

        /// What is shown on top: a modal panel's subtree if one is open, else the whole root.
        var top: View { root.subviews.last(where: { $0 is KioskUI.Panel && !$0.isHidden }) ?? root }

        /// Visible views under `v` (itself excluded), with their frames in root coordinates: what
        /// a clipping view (a scroll view) shows of them, none of what it hides.
        func visible(under v: View) -> [(view: View, frame: Rect)] {
            var out: [(View, Rect)] = []
            func walk(_ v: View, clip: Rect?) {
                for s in v.subviews where !s.isHidden && s.alpha > 0.01 {
                    let frame = s.convert(Rect(origin: s.bounds.origin, size: s.bounds.size), to: nil)
                    let shown = clip.map { frame.intersection($0) } ?? frame
                    guard !shown.isEmpty else { continue }
                    // A view cut by its clip is measured whole where it shows: its text fits its box.
                    out.append((s, shown.height < frame.height - 0.5 ? shown : frame))
                    walk(s, clip: s.clipsToBounds ? shown : clip)
                }
            }
            walk(v, clip: nil)
            return out
        }

        /// Things a finger is meant to touch: buttons and views with their own touch handling,
        /// not full-screen backgrounds.
        func isTarget(_ v: View, _ f: Rect) -> Bool {
            if v is TargetView { return true } // a calibration target: where to touch, though the whole screen takes the tap
            guard v.isUserInteractionEnabled, !(v is Label) else { return false }
            let screen = Rect(origin: .zero, size: info.size)
            if f.width >= screen.width - 1 && f.height >= screen.height * 0.9 { return false }
            return v is Button || v is PadButton || v is BoardView || v is GripView || !v.gestureRecognizers.isEmpty
        }
    }

    static var cases: [(Panel, String)] { panels.flatMap { p in screens.map { (p, $0) } } }

    /// Every other language on the smallest panel and on a tall narrow one: the longest
    /// words and the right-to-left layout.
    static var languageCases: [(Language, Panel, String)] {
        shippedLanguages.filter { $0 != .english }.flatMap { l in [panels[0], panels[4]].flatMap { p in screens.map { (l, p, $0) } } }
    }

    @Test(arguments: cases) func whatAVisitorSees(panel: Panel, screen: String) throws {
        try check(panel: panel, screen: screen, language: .english)
    }

    @Test(arguments: languageCases) func whatAVisitorSeesInTheirLanguage(language: Language, panel: Panel, screen: String) throws {
        try check(panel: panel, screen: screen, language: language)
    }

    /// The panel's checks, in the visitors' large high-contrast mode too (`large`): targets of
    /// 15 mm rather than a fingertip, and the checks of `LargeModeChecks` on top.
    func check(panel: Panel, screen: String, language: Language, large: Bool = false) throws {
        let c = try Composed(panel, screen, language: language, large: large)
        let at = "\(language) \(panel.name) \(screen)\(large ? " large" : "")"
        let size = c.info.size, screenRect = Rect(origin: .zero, size: size)
        let leastTarget = large ? 15.0 : 9.0
        let bar = c.showsBar ? c.shell.sceneBarFrames : []
        if c.showsBar {
            #expect(bar.count == c.shell.names.count + 2, "\(at): no scene bar (a pill for each scene, large text and speech)")
            for f in bar {
                #expect(f.minX >= 0 && f.maxX <= size.width && f.height >= leastTarget * c.mm - 1e-6, "\(at): bar button \(f)")
            }
        }
        let shown = c.visible(under: c.top)
        let texts = shown.filter { ($0.view as? Label).map { !$0.text.isEmpty } ?? false }
        let targets = shown.filter { c.isTarget($0.view, $0.frame) }
        #expect(!targets.isEmpty || screen == "screensaver", "\(at): found nothing to touch")
        for (v, f) in texts + targets {
            let name = (v as? Label)?.text ?? v.accessibilityIdentifier ?? "\(type(of: v))"
            #expect(f.minX >= -0.5 && f.minY >= -0.5 && f.maxX <= screenRect.maxX + 0.5 && f.maxY <= screenRect.maxY + 0.5,
                    "\(at): '\(name)' \(f) is off screen")
            for b in bar { #expect(!overlaps(f, b), "\(at): '\(name)' \(f) is under the scene bar") }
        }
        // Text that fits its box as drawn: no line cut off, no ellipsis — the bar's titles too
        // (a long one may shrink to fit its pill).
        let barTitles = c.showsBar ? c.shell.chromeBar.buttons.filter { $0.frame.width > 0 }.map {
            ($0.titleLabel as View, $0.titleLabel.convert(Rect(origin: .zero, size: $0.titleLabel.bounds.size), to: nil))
        } : []
        for (v, f) in texts + barTitles {
            let l = v as! Label
            #expect(!l.isTextTruncated, "\(at): '\(l.text)' does not fit \(f.size)")
        }
        // Targets a fingertip wide and tall (a small target may look small: its hot area counts).
        for (v, f) in targets {
            let side = min(f.width, f.height) + 2 * v.touchDownHitOutset
            #expect(side >= leastTarget * c.mm - 1e-6, "\(at): '\(v.accessibilityIdentifier ?? "\(type(of: v))")' is \(side / c.mm) mm")
        }
        // Nothing on top of anything else (a view and what it contains aside).
        let items = texts + targets
        for (i, a) in items.enumerated() {
            for b in items[(i + 1)...] where !a.view.isDescendant(of: b.view) && !b.view.isDescendant(of: a.view) {
                #expect(!overlaps(a.frame, b.frame), "\(at): \(describe(a.view)) \(a.frame) overlaps \(describe(b.view)) \(b.frame)")
            }
        }
        if screen == "tiles" && !large {
            // A tap in the middle of the screen lands on a tile (the large mode's twice-as-tall
            // status and buttons may take the middle on a small panel).
            let tiles = c.shell.current as! TileBoardScene
            let mid = Point(x: size.width / 2, y: size.height / 2)
            c.shell.handle(TouchBatch(time: c.renderer.clock.now, points: [touch(1, .began, mid.x, mid.y)]))
            c.shell.handle(TouchBatch(time: c.renderer.clock.now + 0.05, points: [touch(1, .ended, mid.x, mid.y)]))
            #expect(tiles.model.selectedIDs.count == 1, "\(at): the middle of the screen is not a tile")
        }
        if large { try LargeModeChecks(composed: c, at: at).check(texts: texts, targets: targets) }
        let name = (large ? "large/" : "") + (language == .english ? "panels/\(panel.name)-\(screen)" : "languages/\(language)/\(panel.name)-\(screen)")
        try GoldenImageTests().assertMatches(reduced(c.renderer.image, toWidth: 640), name)
    }

    @Test func theStatsOverlayTakesItsStripFromTheScenes() throws {
        let fonts = testFonts, s = ManualScheduler()
        let shell = Shell.make(SceneMaking(fonts: fonts, scheduler: s), names: SceneCatalog.standard.benchScenes, start: "tiles", home: "tiles")
        let r = try HeadlessRenderer(scene: shell, info: DisplayInfo(size: Size(width: 800, height: 480)))
        let barTop = shell.sceneBarFrames[0].minY
        r.stage.showsStats = true
        #expect(shell.sceneBarFrames[0].minY >= 42 + 6, "the bar moves below the overlay")
        #expect(shell.sceneBarFrames[0].minY > barTop)
        let tiles = shell.current as! TileBoardScene
        #expect(tiles.board.frame.minY >= shell.sceneBarFrames[0].maxY)
        r.stage.showsStats = false
        #expect(shell.sceneBarFrames[0].minY == barTop)
    }

    /// Overlapping by more than rounding (frames that only touch do not).
    private func overlaps(_ a: Rect, _ b: Rect) -> Bool {
        let i = a.intersection(b)
        return i.width > 0.01 && i.height > 0.01
    }

    private func describe(_ v: View) -> String { "'\((v as? Label)?.text ?? v.accessibilityIdentifier ?? "\(type(of: v))")'" }

    /// `image` reduced by a whole factor to at most `width` pixels wide, each pixel the mean of
    /// the block it stands for.
    func reduced(_ image: Image, toWidth width: Int) -> Image {
        let w = Int(image.pixelSize.width), h = Int(image.pixelSize.height)
        let f = max(1, (w + width - 1) / width)
        let ow = w / f, oh = h / f
        var sums = [UInt32](repeating: 0, count: ow * oh * 3)
        image.withRows { y, row in
            let oy = y / f
            guard oy < oh else { return }
            for ox in 0..<ow {
                var r: UInt32 = 0, g: UInt32 = 0, b: UInt32 = 0
                for x in (ox * f)..<(ox * f + f) {
                    let p = row[x]
                    r += (p >> 16) & 0xff; g += (p >> 8) & 0xff; b += p & 0xff
                }
                let i = (oy * ow + ox) * 3
                sums[i] += r; sums[i + 1] += g; sums[i + 2] += b
            }
        }
        let out = Image(pixelSize: PixelSize(width: Int32(ow), height: Int32(oh)), hasAlpha: false)!
        let n = UInt32(f * f)
        out.withRows { y, row in
            for x in 0..<ow {
                let i = (y * ow + x) * 3
                row[x] = 0xff00_0000 | (sums[i] / n) << 16 | (sums[i + 1] / n) << 8 | (sums[i + 2] / n)
            }
        }
        return out
    }
}
