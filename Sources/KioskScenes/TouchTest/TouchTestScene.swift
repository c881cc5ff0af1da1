import KioskCore
import KioskRender
import KioskUI

/// The Touch test scene: a panel check for operators. A 10 mm grid, the screen's facts, a
/// numbered marker with a fading trail under every finger, and one widget per touch pattern of
/// the source material: a spinner two fingers rotate and pinch, a square that rides above the
/// finger dragging it, a button that pops up a bubble after a 1 s hold, a small target whose
/// enlarged hot area is outlined, and a swipe indicator. Only damaged areas are repainted.
public final class TouchTestScene: ViewScene {
    public private(set) var model = TouchTestModel()
    private var time = 0.0

    static let background = Color.ink
    static let gridColor = Color(rgb: 0x1f2630)
    static let textColor = Color.paper
    static let dimText = Color.slate
    static let accent = Color.sky
    /// Ignored contacts: a red no finger's colour is (`palette`).
    static let ignoredColor = Color(rgb: 0xff1744)
    static let palette: [Color] = [0x4fc3f7, 0xffb74d, 0x81c784, 0xf06292, 0xba68c8, 0xfff176, 0x4db6ac, 0xe57373, 0x9575cd, 0xa1887f].map { Color(rgb: $0) }

    private let grid = GridView()
    let title = Label(), infoLine = Label(), counter = Label(), lastKey = Label()
    private let fingers = FingersView()
    let spinner = SpinnerView()
    let follower = View()
    let holdButton = Button()
    let bubble = Label()
    let target = View(), targetHotArea = View(), targetLabel = Label()
    let swipeLabel = Label()
    let spinnerCaption = Label(), followerCaption = Label()
    private var targetHits = 0
    /// The last swipe recognized (nil: none yet), named in the swipe caption.
    private var lastSwipe: SwipeGestureRecognizer.Direction?
    private var spinnerAngle = 0.0, spinnerScale = 1.0
    private var gestureStartAngle = 0.0, gestureStartScale = 1.0

    public init(fonts: FontCache, scheduler: Scheduler = ManualScheduler()) {
        super.init(name: "touch", fonts: fonts, scheduler: scheduler, texts: Self.textTable)
    }

    // MARK: Building

    public override func build(in view: SceneView) {
        view.touchObserver = { [unowned self] in self.observe($0) }
        // Trails fade continuously: frames keep coming while a finger leaves one.
        view.addDisplayLink(wantsFrames: { [unowned self] in model.hasLiveTrails }) { [unowned self] time in fadeTrails(to: time) }
        view.backgroundColor = Self.background
        fingers.scene = self
        view.addSubview(grid)
        for (l, size, color) in [(title, 40.0, Self.textColor), (infoLine, 20, Self.dimText), (counter, 24, Self.textColor), (lastKey, 20, Self.dimText)] {
            l.fontSize = size
            l.textColor = color
            l.isUserInteractionEnabled = false
            view.addSubview(l)
        }
        infoLine.numberOfLines = 0
        // The last key's line shrinks rather than cut a longer language's words.
        lastKey.adjustsFontSizeToFitWidth = true
        lastKey.minimumScaleFactor = 0.7
        counter.numberOfLines = 0
        buildSpinner(in: view)
        buildFollower(in: view)
        buildHoldButton(in: view)
        buildTarget(in: view)
        for l in [targetLabel, swipeLabel, spinnerCaption, followerCaption] {
            l.fontSize = 20
            l.numberOfLines = 0
            l.textColor = Self.dimText
            l.alignment = .center
            l.isUserInteractionEnabled = false
            view.addSubview(l)
        }
        buildSwipe()
        fingers.isUserInteractionEnabled = false
        view.addSubview(fingers)
    }

    /// Spinner: rotate and pinch with two fingers.
    private func buildSpinner(in view: SceneView) {
        spinner.isMultipleTouchEnabled = true
        let pinch = PinchGestureRecognizer(), rotate = RotationGestureRecognizer()
        pinch.recognizesSimultaneously = { $0 === rotate }
        rotate.recognizesSimultaneously = { $0 === pinch }
        pinch.addTarget { [unowned self] p in
            if p.state == .began { gestureStartScale = spinnerScale }
            spinnerScale = max(0.5, min(2.5, gestureStartScale * p.scale))
            applySpinner()
        }
        rotate.addTarget { [unowned self] g in
            if g.state == .began { gestureStartAngle = spinnerAngle }
            spinnerAngle = gestureStartAngle + g.rotation
            applySpinner()
        }
        pinch.name = "pinch"
        rotate.name = "rotate"
        spinner.accessibilityIdentifier = "spinner"
        spinner.addGestureRecognizer(pinch)
        spinner.addGestureRecognizer(rotate)
        view.addSubview(spinner)
    }

    /// A square that rides above the finger dragging it, so the finger never hides it.
    private func buildFollower(in view: SceneView) {
        follower.backgroundColor = Self.palette[2]
        follower.cornerRadius = 10
        follower.accessibilityIdentifier = "follower"
        let drag = PanGestureRecognizer { [unowned self] pan in
            guard let sv = follower.superview else { return }
            let finger = pan.location(in: sv)
            let lift = pan.points(.millimetres(12))
            follower.center = Point(x: finger.x, y: finger.y - lift - follower.bounds.height / 2)
        }
        drag.minimumDistance = .points(0)
        drag.name = "drag"
        follower.addGestureRecognizer(drag)
        view.addSubview(follower)
    }

    /// Hold for one second: a bubble pops up, and closes on release.
    private func buildHoldButton(in view: SceneView) {
        holdButton.titleLabel.fontSize = 20
        holdButton.titleLabel.textColor = Self.background
        holdButton.backgroundColor = Self.palette[1]
        holdButton.cornerRadius = 12
        let hold = LongPressGestureRecognizer { [unowned self] r in
            switch r.state {
            case .began: showBubble(true)
            case .ended, .cancelled: showBubble(false)
            default: break
            }
        }
        hold.minimumPressDuration = 1
        hold.allowableMovement = .millimetres(4)
        hold.cancelsTouchesInView = false
        hold.name = "hold"
        holdButton.accessibilityIdentifier = "hold button"
        holdButton.addGestureRecognizer(hold)
        view.addSubview(holdButton)
        bubble.fontSize = 20
        bubble.alignment = .center
        bubble.textColor = Self.background
        bubble.backgroundColor = Self.textColor
        bubble.cornerRadius = 10
        bubble.alpha = 0
        bubble.isUserInteractionEnabled = false
        view.addSubview(bubble)
    }

    /// A small target with a finger-sized hot area, drawn as an outline.
    private func buildTarget(in view: SceneView) {
        targetHotArea.borderWidth = 1
        targetHotArea.borderColor = Self.dimText
        targetHotArea.isUserInteractionEnabled = false
        view.addSubview(targetHotArea)
        target.backgroundColor = Self.palette[3]
        target.cornerRadius = 4
        let tap = TapGestureRecognizer { [unowned self] _ in
            targetHits += 1
            targetLabel.text = texts.count("touch.target", targetHits)
            target.alpha = 0.3
            View.animate(duration: 0.3, animations: { self.target.alpha = 1 })
        }
        tap.name = "tap"
        target.accessibilityIdentifier = "small target"
        target.addGestureRecognizer(tap)
        view.addSubview(target)
    }

    /// Swipes anywhere on the background; markers keep following those fingers.
    private func buildSwipe() {
        let swipe = SwipeGestureRecognizer { [unowned self] r in
            let d = r.recognizedDirection
            lastSwipe = d
            swipeLabel.text = swipeCaption
            swipeLabel.textColor = Self.accent
            swipeLabel.alpha = 0.2
            View.animate(duration: 0.4, animations: { self.swipeLabel.alpha = 1 })
        }
        swipe.direction = [.left, .right, .up, .down]
        swipe.cancelsTouchesInView = false
        swipe.name = "swipe"
        grid.addGestureRecognizer(swipe)
    }

    /// A new visitor: no fingers or trails, counters and hits at zero, the spinner upright and
    /// the square back in its place.
    public override func reset() {
        for f in model.fingers + model.fading { fingers.invalidate(f) }
        for p in model.ignored { fingers.invalidateIgnored(at: p) }
        model = TouchTestModel()
        targetHits = 0
        lastSwipe = nil
        targetLabel.text = texts.count("touch.target", 0)
        swipeLabel.text = swipeCaption
        swipeLabel.textColor = Self.dimText
        spinnerAngle = 0
        spinnerScale = 1
        applySpinner()
        bubble.alpha = 0
        updateCounters()
        layout(view: view)
    }

    private func applySpinner() {
        spinner.transform = AffineTransform(scaleX: spinnerScale, y: spinnerScale)
            .concatenating(AffineTransform(rotationAngle: spinnerAngle))
    }

    private func showBubble(_ on: Bool) {
        View.animate(duration: 0.15, animations: { self.bubble.alpha = on ? 1 : 0 })
    }

    // MARK: Layout

    var info: DisplayInfo { view.info }
    var markerRadius: Double { max(18, Self.markerMM * info.pointsPerMillimetre) }
    var trailWidth: Double { max(3, markerRadius / 6) }
    /// Marker radius in millimetres: about a fingertip, so the marker peeks out around it.
    static let markerMM = 9.0

    public override func layout(view: SceneView) {
        let size = view.bounds.size, safe = info.safeArea
        grid.frame = Rect(origin: .zero, size: size)
        fingers.frame = Rect(origin: .zero, size: size)
        fingers.layoutChanged()
        updateInfoLine()
        updateCounters()

        // The widgets as blocks (the widget and its caption), sized from millimetres and text;
        // on a small screen the captions wrap to narrow the blocks, and on a tiny one the
        // spinner, square and button shrink (the small target and its finger-sized hot area
        // never do: they are what the test measures).
        let mm = info.pointsPerMillimetre
        let t = max(16, 5 * mm), hot = t + 2 * max(12, 4 * mm)
        let captionTexts = [[spinnerCaption.text], [followerCaption.text], [],
                            [texts.count("touch.target", 9999)],
                            [texts["touch.swipe"]] + ["touch.left", "touch.right", "touch.up", "touch.down"].map { texts("touch.swiped", ["direction": texts[$0]]) }]
        var spin = 0.0, sq = 0.0, holdSize = Size.zero
        func layoutBlocks(captionLimit: Double, shrink f: Double) -> (blocks: [Size], captions: [Size]) {
            spin = max(120, 32 * mm) * f; sq = max(56, 14 * mm) * f
            holdSize = Size(width: max(180, 48 * mm) * f, height: max(56, 14 * mm) * max(f, 0.75))
            let widgetSizes = [Size(width: spin, height: spin), Size(width: sq, height: sq), holdSize,
                               Size(width: hot, height: hot), .zero]
            let captions = zip(captionTexts, widgetSizes).map { texts, widget -> Size in
                texts.isEmpty ? .zero : captionSize(texts, width: max(widget.width, captionLimit))
            }
            let blocks = zip(widgetSizes, captions).map { w, c in
                Size(width: max(w.width, c.width), height: w.height + (c.height > 0 ? 6 + c.height : 0))
            }
            return (blocks, captions)
        }
        // The header, top left below the shell's scene bar; its long lines wrap when the
        // widgets need the room beside it.
        let headerTop = max(32, safe.minY + 8)
        let headerX = safe.minX + 32
        let header: (Double) -> Rect = { [unowned self] width in
            Rect(x: headerX, y: headerTop, width: width, height: headerHeights(width: width).reduce(0, +))
        }
        let natural = min(safe.width - 64, [title, infoLine, lastKey].map { textWidth($0.text, $0.fontSize) }
            .max()!.rounded(.up))
        var sized: (blocks: [Size], captions: [Size]) = ([], [])
        var placed: (tops: [Point], headerWidth: Double, fits: Bool) = ([], 0, false)
        for (limit, f) in [(Double.infinity, 1.0), (180, 1), (150, 0.75), (120, 0.5)] {
            sized = layoutBlocks(captionLimit: limit, shrink: f)
            placed = Self.arrangeWidgets(sized.blocks, screen: Rect(origin: .zero, size: size), safe: safe, header: header,
                                         naturalHeaderWidth: max(10, natural), gap: max(16, 4 * mm) * f)
            if placed.fits { break }
        }
        var y = headerTop
        for (l, h) in zip([title, infoLine, counter, lastKey], headerHeights(width: placed.headerWidth)) {
            l.frame = Rect(x: headerX, y: y, width: placed.headerWidth, height: h - 8)
            y += h
        }
        let tops = placed.tops, captions = sized.captions

        // Each widget in its block: centred across it, caption below.
        let c = tops.map(\.x)
        spinner.bounds = Rect(x: 0, y: 0, width: spin, height: spin)
        spinner.center = Point(x: c[0], y: tops[0].y + spin / 2)
        spinnerCaption.frame = Rect(x: c[0] - captions[0].width / 2, y: tops[0].y + spin + 6, width: captions[0].width, height: captions[0].height)
        follower.bounds = Rect(x: 0, y: 0, width: sq, height: sq)
        // Shrunk on a crowded screen, it still takes a fingertip (9 mm) where it begins.
        follower.touchDownHitOutset = max(0, (9 * mm - sq) / 2)
        follower.center = Point(x: c[1], y: tops[1].y + sq / 2)
        followerCaption.frame = Rect(x: c[1] - captions[1].width / 2, y: tops[1].y + sq + 6, width: captions[1].width, height: captions[1].height)
        holdButton.frame = Rect(x: c[2] - holdSize.width / 2, y: tops[2].y, width: holdSize.width, height: holdSize.height)
        // The bubble pops up above the button, on screen whatever the column's place.
        let bw = min(340, size.width - 16)
        bubble.frame = Rect(x: min(max(8, c[2] - bw / 2), size.width - 8 - bw), y: max(safe.minY, tops[2].y - 56), width: bw, height: 44)
        let tc = Point(x: c[3], y: tops[3].y + hot / 2)
        target.frame = Rect(x: tc.x - t / 2, y: tc.y - t / 2, width: t, height: t)
        target.touchDownHitOutset = (hot - t) / 2
        targetHotArea.frame = Rect(x: tc.x - hot / 2, y: tc.y - hot / 2, width: hot, height: hot)
        targetLabel.frame = Rect(x: c[3] - captions[3].width / 2, y: tops[3].y + hot + 6, width: captions[3].width, height: captions[3].height)
        swipeLabel.frame = Rect(x: c[4] - captions[4].width / 2, y: tops[4].y, width: captions[4].width, height: captions[4].height)
        // A right-to-left language reads the header on the right, the widgets from there.
        if view.isRightToLeft { view.mirrorHorizontally(view.subviews.filter { $0 !== grid && $0 !== fingers }) }
    }

    /// Heights of the header's lines (each with the 8 pt below it) at `width`: the screen's
    /// facts and the counter wrap, the counter sized for its longest text so it never overflows.
    private func headerHeights(width: Double) -> [Double] {
        [(title, title.text), (infoLine, infoLine.text), (counter, counterText(points: 10, total: 99999, ignored: model.ignoredTotal > 0 ? 999 : 0)),
         (lastKey, lastKey.text)].map { l, text in
            guard let font = view.fonts.font(points: l.fontSize, scale: info.scale) else { return l.fontSize * 1.2 + 8 }
            let lines = l.numberOfLines == 1 ? 1 : Label.wrap(text, font: font, width: width, maxLines: .max).count
            return font.lineHeight * Double(lines) + 8
        }
    }

    /// Room for a caption (20 pt) showing any of `texts` within `width`: wrapped onto lines,
    /// and 16 pt wider than its longest line.
    private func captionSize(_ texts: [String], width: Double) -> Size {
        guard let font = view.fonts.font(points: 20, scale: info.scale) else { return Size(width: width, height: 26) }
        let lines = texts.map { Label.wrap($0, font: font, width: width - 16, maxLines: .max) }
        let widest = lines.flatMap { $0.map(\.width) }.max() ?? 0
        return Size(width: min(width, widest + 16), height: (font.lineHeight * Double(lines.map(\.count).max() ?? 1)).rounded(.up) + 2)
    }

    /// Width of `text` in points at `points` (an estimate without fonts).
    private func textWidth(_ text: String, _ points: Double) -> Double {
        guard let font = view.fonts.font(points: points, scale: info.scale) else { return Double(text.count) * points * 0.6 }
        return font.layout(text).width
    }

    /// Places widget blocks (in order) clear of the header and the shell's bar: the top centre of
    /// each, and the header's width. Landscape, in this order: a column (or as few columns as
    /// fit) at the right beside the header; the same over the whole height with the header's
    /// lines wrapped into the width left (at least 180 pt); below the header. Portrait: a band
    /// along the bottom, two blocks to a row where they fit, the grid above free for fingers. On a screen
    /// too small for any of that, the arrangement tried that overflows its region least.
    static func arrangeWidgets(_ blocks: [Size], screen: Rect, safe: Rect, header: (Double) -> Rect,
                               naturalHeaderWidth: Double, gap: Double) -> (tops: [Point], headerWidth: Double, fits: Bool) {
        let margin = 16.0
        func below(_ h: Rect) -> Rect {
            Rect(x: safe.minX + margin, y: h.maxY + margin, width: safe.width - 2 * margin,
                 height: max(0, safe.maxY - margin - h.maxY - margin))
        }
        func beside(_ h: Rect) -> Rect {
            let x = h.maxX + 2 * margin
            return Rect(x: x, y: safe.minY + margin, width: max(0, safe.maxX - margin - x), height: max(0, safe.height - 2 * margin))
        }
        let full = header(naturalHeaderWidth)
        var closest: (tops: [Point], headerWidth: Double, overflow: Double)?
        func attempt(_ region: Rect, _ k: Int, band: Bool, headerWidth: Double = naturalHeaderWidth) -> [Point]? {
            let (tops, overflow) = arrange(blocks, in: region, columns: k, gap: gap, band: band)
            if overflow < closest?.overflow ?? .infinity { closest = (tops, headerWidth, overflow) }
            return overflow <= 0 ? tops : nil
        }
        if screen.width >= screen.height {
            for k in 1...blocks.count { if let t = attempt(beside(full), k, band: false) { return (t, naturalHeaderWidth, true) } }
            let tall = Rect(x: safe.minX, y: safe.minY + margin, width: safe.width - margin, height: max(0, safe.height - 2 * margin))
            for k in 1...blocks.count {
                let w = columnsWidth(blocks, columns: k, gap: gap)
                let headerWidth = (tall.maxX - w - 2 * margin - full.minX).rounded(.down)
                guard headerWidth >= 180 else { break }
                let h = header(headerWidth)
                guard h.maxY <= safe.maxY - margin else { continue }
                if let t = attempt(beside(h), k, band: false, headerWidth: headerWidth) { return (t, headerWidth, true) }
            }
            for k in 1...blocks.count { if let t = attempt(below(full), k, band: false) { return (t, naturalHeaderWidth, true) } }
        } else {
            // Two to a row looks best; one to a row on a narrow panel; more on a short one.
            for k in [2, 1] + Array(3...max(3, blocks.count)) {
                if let t = attempt(below(full), k, band: true) { return (t, naturalHeaderWidth, true) }
            }
        }
        return (closest?.tops ?? [], closest?.headerWidth ?? naturalHeaderWidth, false)
    }

    /// Width of `blocks` laid in `k` columns as `arrange` lays them.
    static func columnsWidth(_ blocks: [Size], columns k: Int, gap: Double) -> Double {
        let perColumn = (blocks.count + k - 1) / k
        let groups = stride(from: 0, to: blocks.count, by: perColumn).map { blocks[$0..<min($0 + perColumn, blocks.count)] }
        return groups.map { $0.map(\.width).max()! }.reduce(0, +) + gap * Double(groups.count - 1)
    }

    /// `blocks` in `k` columns within `region`, and by how much they overflow it (points; 0 or
    /// less: they fit). Not a
    /// band: columns of consecutive blocks packed to the right edge, each spread evenly over the
    /// height. A band: rows of `k` blocks, each block centred in its share of the width (a short
    /// last row centred too), the rows `gap` × 1.5 apart and resting on the bottom.
    static func arrange(_ blocks: [Size], in region: Rect, columns k: Int, gap: Double, band: Bool) -> (tops: [Point], overflow: Double) {
        var tops = [Point](repeating: .zero, count: blocks.count)
        if band {
            let rows = stride(from: 0, to: blocks.count, by: k).map { Array($0..<min($0 + k, blocks.count)) }
            let rowHeights = rows.map { r in r.map { blocks[$0].height }.max()! }
            let step = gap * 1.5
            let total = rowHeights.reduce(0, +) + step * Double(rows.count - 1)
            var overflow = max(0, total - region.height)
            var y = region.maxY - total
            for (r, row) in zip(rowHeights, rows) {
                let cell = region.width / Double(row.count)
                for (j, i) in row.enumerated() {
                    overflow += max(0, blocks[i].width - (cell - (row.count > 1 ? gap : 0)))
                    tops[i] = Point(x: region.minX + cell * (Double(j) + 0.5), y: y)
                }
                y += r + step
            }
            return (tops, overflow)
        }
        let perColumn = (blocks.count + k - 1) / k
        let groups = stride(from: 0, to: blocks.count, by: perColumn).map { Array($0..<min($0 + perColumn, blocks.count)) }
        let widths = groups.map { g in g.map { blocks[$0].width }.max()! }
        let heights = groups.map { g in g.map { blocks[$0].height }.reduce(0, +) + gap * Double(g.count - 1) }
        let totalWidth = widths.reduce(0, +) + gap * Double(groups.count - 1)
        let overflow = max(0, totalWidth - region.width) + max(0, heights.max()! - region.height)
        for (j, g) in groups.enumerated() {
            let cx = region.maxX - widths[(j + 1)...].reduce(0, +) - gap * Double(groups.count - 1 - j) - widths[j] / 2
            let used = g.map { blocks[$0].height }.reduce(0, +)
            let step = max(gap, (region.height - used) / Double(g.count + 1))
            var y = region.minY + (region.height - used - step * Double(g.count - 1)) / 2
            for i in g {
                tops[i] = Point(x: cx, y: y)
                y += blocks[i].height + step
            }
        }
        return (tops, overflow)
    }

    /// The screen's facts: they change only with the layout.
    private func updateInfoLine() {
        let dpi = Int((info.pointsPerMillimetre * 25.4 * Double(info.scale)).rounded())
        var line = texts("touch.info", ["size": "\(info.size)", "scale": "\(info.scale)", "dpi": "\(dpi)",
                                        "orientation": texts[info.isPortrait ? "touch.portrait" : "touch.landscape"]])
        if let p = info.physicalSize {
            line += " · " + texts("touch.info.panel", ["width": format(p.width), "height": format(p.height)])
        }
        infoLine.text = line
    }

    private var swipeCaption: String {
        guard let d = lastSwipe else { return texts["touch.swipe"] }
        let key = d == .left ? "touch.left" : d == .right ? "touch.right" : d == .up ? "touch.up" : "touch.down"
        return texts("touch.swiped", ["direction": texts[key]])
    }

    private func counterText(points: Int, total: Int, ignored: Int) -> String {
        let line = texts.count("touch.points", points) + " · " + texts.count("touch.total", total)
        return ignored == 0 ? line : line + "\n" + texts.count("touch.ignored", ignored)
    }

    public override func applyTexts() {
        title.text = texts["touch.title"]
        spinnerCaption.text = texts["touch.spinner"]
        followerCaption.text = texts["touch.follower"]
        targetLabel.text = texts.count("touch.target", targetHits)
        swipeLabel.text = swipeCaption
        holdButton.title = texts["touch.hold"]
        bubble.text = texts["touch.held"]
        shownCounts = (-1, -1, -1)
        updateCounters()
        if info.size.width > 1 { updateInfoLine() }
    }

    /// The touch counters and last key: per batch, and only when they changed.
    private func updateCounters() {
        let counts = (model.touchCount, model.totalTouches, model.ignoredTotal)
        if counts != shownCounts {
            shownCounts = counts
            counter.text = counterText(points: counts.0, total: counts.1, ignored: counts.2)
        }
        lastKey.text = texts("touch.lastKey", ["key": model.lastKey ?? texts["touch.lastKey.none"]])
    }
    private var shownCounts = (-1, -1, -1)

    /// A contact the filter ignored: marked where it landed, and counted.
    public override func ignoredContact(at location: Point, rule: TouchFilter.Rule) {
        // The first makes room for the count (the header then sizes for it), once.
        let first = model.ignoredTotal == 0
        if let gone = model.recordIgnored(at: location) { fingers.invalidateIgnored(at: gone) }
        if first && hasLaidOut { layout(view: view); view.setNeedsDisplay() }
        fingers.invalidateIgnored(at: location)
        updateCounters()
    }

    // MARK: Input and time

    /// Every touch on the scene, before its views hear of it: the markers and trails follow
    /// fingers wherever they are (on a control too).
    private func observe(_ batch: TouchBatch) {
        time = batch.time
        let ids = Set(batch.points.map(\.id))
        for f in model.fingers + model.fading where ids.contains(f.id) { fingers.invalidate(f) }
        let changed = model.apply(batch)
        for f in model.fingers + model.fading where changed.contains(f.id) { fingers.invalidate(f) }
        updateCounters()
    }

    public override func handle(_ key: KeyEvent) {
        guard key.pressed else { return }
        let printable = !key.text.isEmpty && !key.text.unicodeScalars.contains { $0.value < 0x20 || $0.value == 0x7f }
        model.recordKey(printable ? key.text : "keysym 0x" + String(key.keysym, radix: 16))
        updateCounters()
    }

    private func fadeTrails(to time: Double) {
        self.time = time
        if model.hasLiveTrails || !model.fading.isEmpty {
            // Trails fade continuously, so each frame repaints the (small) area they cover.
            for f in model.fingers where f.trail.count > 1 { fingers.invalidate(f, trailOnly: true) }
            for f in model.fading { fingers.invalidate(f, trailOnly: true) }
            model.prune(at: time)
        }
    }

    func color(for id: Int32) -> Color {
        id == TouchPoint.pointerID ? Color(rgb: 0xffffff) : Self.palette[Int(id) % Self.palette.count]
    }
    var currentTime: Double { time }
}

/// The 10 mm grid: an operator can check that a touch lands where the finger is, and that the
/// panel's reported size is right (a square must measure 10 mm). Drawn straight into the frame.
final class GridView: View {
    override var drawsContent: Bool { true }
    override var drawsDirectly: Bool { true }
    override func drawDirectly(in canvas: Canvas, origin: Point, alpha: Double) {
        guard let info = root?.info else { return }
        let step = 10 * info.pointsPerMillimetre
        guard step >= 4 else { return }
        let w = 1.0 / Double(canvas.scale), size = bounds.size
        var x = step
        while x < size.width {
            let r = Rect(x: origin.x + x, y: origin.y, width: w, height: size.height)
            if canvas.isVisible(r) { canvas.fill(r, color: TouchTestScene.gridColor) }
            x += step
        }
        var y = step
        while y < size.height {
            let r = Rect(x: origin.x, y: origin.y + y, width: size.width, height: w)
            if canvas.isVisible(r) { canvas.fill(r, color: TouchTestScene.gridColor) }
            y += step
        }
    }
}

/// A wheel with spokes and a notch, so rotation and scale are easy to see.
final class SpinnerView: View {
    override var drawsContent: Bool { true }
    override func draw(in canvas: Canvas) {
        let c = Point(x: bounds.width / 2, y: bounds.height / 2), r = min(bounds.width, bounds.height) / 2 - 3
        canvas.fillCircle(center: c, radius: r, color: Color.panel)
        canvas.strokeCircle(center: c, radius: r, width: 4, color: TouchTestScene.accent)
        for i in 0..<8 {
            let a = Double(i) / 8 * 2 * .pi
            canvas.strokeLine(from: c, to: Point(x: c.x + r * 0.85 * cos(a), y: c.y + r * 0.85 * sin(a)), width: 3,
                              color: TouchTestScene.accent.withAlpha(0.6))
        }
        canvas.fillCircle(center: Point(x: c.x, y: c.y - r * 0.7), radius: r * 0.12, color: Color.amber)
        canvas.fillCircle(center: c, radius: r * 0.15, color: TouchTestScene.accent)
    }
}

/// Every finger's marker and trail, drawn straight into the frame; only the areas around
/// fingers that moved are repainted.
final class FingersView: View {
    weak var scene: TouchTestScene?
    private var markerLayers: [Int32: Image] = [:]
    override var drawsContent: Bool { true }
    override var drawsDirectly: Bool { true }

    func layoutChanged() { markerLayers.removeAll() }

    /// Damages a finger's marker and its trail in short runs of segments: a diagonal stroke then
    /// repaints a thin band instead of its whole bounding box, while the number of rectangles
    /// (each costs pixman a little on every drawing call) stays small.
    func invalidate(_ f: TouchTestModel.Finger, trailOnly: Bool = false) {
        guard let scene else { return }
        if f.liftedAt == nil && !trailOnly { setNeedsDisplay(in: Rect(center: f.location, radius: scene.markerRadius + 4)) }
        let pad = scene.trailWidth + 2
        var i = 0
        while i < f.trail.count {
            // Runs share their end point so the segment between two runs is covered.
            let run = f.trail[i..<min(f.trail.count, i + Self.segmentsPerDamageRect + 1)]
            setNeedsDisplay(in: run.reduce(Rect.zero) { $0.union(Rect(center: $1.location, radius: pad)) })
            i += Self.segmentsPerDamageRect
        }
    }
    /// Measured with `kiosk bench`: 1 → 0.47 ms and 0.6 % damaged; 4 → 0.39 ms and 0.7 %;
    /// the whole trail's box → 0.34 ms and 2.4 %.
    static let segmentsPerDamageRect = 4

    override func drawDirectly(in canvas: Canvas, origin: Point, alpha: Double) {
        guard let scene else { return }
        let model = scene.model
        for f in model.fading { drawTrail(f, canvas: canvas, scene: scene) }
        for f in model.fingers { drawTrail(f, canvas: canvas, scene: scene) }
        for f in model.fingers { drawMarker(f, canvas: canvas, scene: scene) }
        for p in model.ignored { drawIgnored(at: p, canvas: canvas, scene: scene) }
    }

    func invalidateIgnored(at p: Point) {
        guard let scene else { return }
        setNeedsDisplay(in: Rect(center: p, radius: scene.markerRadius * 0.6 + 4))
    }

    /// A ring with a cross: a contact the filter ignored, smaller than a finger's marker.
    private func drawIgnored(at p: Point, canvas: Canvas, scene: TouchTestScene) {
        let r = scene.markerRadius * 0.6, c = TouchTestScene.ignoredColor
        guard canvas.isVisible(Rect(center: p, radius: r + 4)) else { return }
        canvas.strokeCircle(center: p, radius: r, width: 3, color: c)
        let d = r * 0.7
        canvas.strokeLine(from: Point(x: p.x - d, y: p.y - d), to: Point(x: p.x + d, y: p.y + d), width: 3, color: c)
        canvas.strokeLine(from: Point(x: p.x - d, y: p.y + d), to: Point(x: p.x + d, y: p.y - d), width: 3, color: c)
    }

    private func drawTrail(_ f: TouchTestModel.Finger, canvas: Canvas, scene: TouchTestScene) {
        guard f.trail.count > 1 else { return }
        let c = scene.color(for: f.id), w = scene.trailWidth, now = scene.currentTime
        for i in 1..<f.trail.count {
            let a = f.trail[i - 1], b = f.trail[i]
            let life = 1 - (now - a.time) / TouchTestModel.trailDuration
            guard life > 0 else { continue }
            let seg = Rect(center: a.location, radius: w).union(Rect(center: b.location, radius: w))
            guard canvas.isVisible(seg) else { continue }
            let alpha = 0.7 * min(1, life)
            canvas.strokeLine(from: a.location, to: b.location, width: w, color: c.withAlpha(alpha))
            canvas.fillCircle(center: b.location, radius: w / 2, color: c.withAlpha(alpha))
        }
    }

    private func drawMarker(_ f: TouchTestModel.Finger, canvas: Canvas, scene: TouchTestScene) {
        let r = scene.markerRadius
        guard canvas.isVisible(Rect(center: f.location, radius: r + 4)),
              let layer = markerLayer(for: f.id, scale: canvas.scale, scene: scene) else { return }
        // Snap to whole device pixels: the layer is then a plain blit, never resampled.
        let s = Double(canvas.scale), half = layer.size.width / 2
        let x = (f.location.x * s).rounded() / s - half, y = (f.location.y * s).rounded() / s - half
        canvas.draw(layer, transform: AffineTransform(translationX: x, y: y))
    }

    /// Each finger's marker, drawn once into a layer and then only composited as it moves.
    private func markerLayer(for id: Int32, scale: Int, scene: TouchTestScene) -> Image? {
        if let l = markerLayers[id], l.scale == scale { return l }
        let r = scene.markerRadius, side = Int32(((r + 4) * 2 * Double(scale)).rounded(.up))
        guard let layer = Image(pixelSize: PixelSize(width: side, height: side), hasAlpha: true, scale: scale) else { return nil }
        let c = Canvas(image: layer)
        c.highContrast = root?.info.isLarge ?? false
        let centre = Point(x: layer.size.width / 2, y: layer.size.height / 2)
        let color = scene.color(for: id)
        c.fillCircle(center: centre, radius: r, color: color.withAlpha(0.25))
        c.strokeCircle(center: centre, radius: r, width: 3, color: color)
        if let run = root?.fonts.font(points: max(14, r * 0.6), scale: scale)?.layout(id == TouchPoint.pointerID ? "M" : String(id)) {
            let origin = Point(x: centre.x - run.width / 2, y: centre.y + run.font.ascent / 2 - run.font.descent / 2)
            c.draw(run, at: origin, color: TouchTestScene.textColor)
        }
        markerLayers[id] = layer
        return layer
    }
}

#if canImport(Glibc)
import Glibc
#endif
