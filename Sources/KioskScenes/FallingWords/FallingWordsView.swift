import KioskCore
import KioskRender
import KioskUI

/// Every falling label in one view. A label's text is shaped and fitted once, rasterized once
/// into a translucent coverage mask shared by all labels of the same text and font size, and
/// then only composited; each frame repaints only the boxes labels left and entered.
///
/// One view rather than a `Label` per word: with hundreds of labels, per-view bookkeeping and
/// ~20 glyph composites per label cost more than the pixels (`kiosk bench --scene words`).
final class FallingWordsView: View {
    private struct Entry {
        let word: FallingWordsModel.Word
        var run: TextRun?
        var mask: TextMask?
        /// Pen origin (baseline, left) relative to the label's centre, in pixels.
        var penOffsetX: Int32 = 0, penOffsetY: Int32 = 0
        /// The ink box relative to the pen origin, in pixels.
        var ink = PixelRect(x: 0, y: 0, width: 0, height: 0)
        /// The text's pixel size, once fitted.
        var pixelSize: Int?
        /// Pen origin where it was last drawn, in pixels (meaningful once `placed`).
        var penX: Int32 = 0, penY: Int32 = 0
        var placed = false
        /// The ink box on screen where it was last drawn (empty before it is placed).
        var screenInk: PixelRect { placed ? PixelRect(x: penX + ink.x, y: penY + ink.y, width: ink.width, height: ink.height) : PixelRect(x: 0, y: 0, width: 0, height: 0) }
    }
    private var entries: [Entry] = []
    /// The mean ink box of the labels, in pixels (what a label costs to draw and to composite).
    var meanInkPixels: Double {
        let boxes = entries.filter { $0.mask != nil || $0.run != nil }.map { Double($0.ink.width) * Double($0.ink.height) }
        return boxes.isEmpty ? 0 : boxes.reduce(0, +) / Double(boxes.count)
    }
    private var preparedScale = 0
    let config: FallingWordsConfig
    var fontFamily = "DejaVu Sans"

    /// What placing a label needs of its text at a pixel size, remembered once measured: new
    /// labels are then fitted and placed without a font (their masks come from the mask cache).
    private struct Line {
        let pixelWidth: Int32, ascent: Int32, descent: Int32, height: Int32
    }
    private struct LineKey: Hashable {
        let text: String, family: String, pixelSize: Int
    }
    private var lines: [LineKey: Line] = [:]
    /// Fonts for measuring and masking new label text, dropped whenever more than a few are
    /// held: a font with its glyph cache is ~150 KB, and labels in random sizes use a dozen or
    /// more (2.6 MiB of fonts for the peers' 200 labels, against 2.2 MiB of masks).
    private var labelFonts: FontCache?
    static let labelFontsKept = 4
    /// Fonts held for labels now (for `textMemory`).
    var labelFontCount: Int { labelFonts?.count ?? 0 }

    init(config: FallingWordsConfig) {
        self.config = config
        super.init(frame: .zero)
        isUserInteractionEnabled = false
    }

    override var drawsContent: Bool { true }
    override var drawsDirectly: Bool { true }

    var count: Int { entries.count }

    /// Where the label of word `id` was last placed (its centre, in whole device pixels).
    func placedCentre(of id: Int) -> Point? {
        guard let e = entries.first(where: { $0.word.id == id }), e.placed, preparedScale > 0 else { return nil }
        let s = Double(preparedScale)
        return Point(x: Double(e.penX - e.penOffsetX) / s, y: Double(e.penY - e.penOffsetY) / s)
    }

    func pixelSize(of id: Int) -> Int? { entries.first(where: { $0.word.id == id })?.pixelSize }

    func add(_ word: FallingWordsModel.Word) {
        var e = Entry(word: word)
        if preparedScale > 0 { prepare(&e, scale: preparedScale) }
        entries.append(e)
    }

    func remove(ids: [Int]) {
        guard !ids.isEmpty else { return }
        let gone = Set(ids)
        for e in entries where gone.contains(e.word.id) && !e.screenInk.isEmpty { pendingDamage.append(e.screenInk) }
        entries.removeAll { gone.contains($0.word.id) }
        flushDamage()
    }

    /// Text fitted to the label's box (its size is 1–2× the base), laid out and masked at `scale`.
    private func prepare(_ e: inout Entry, scale: Int) {
        guard let root else { return }
        let box = Size(width: config.baseSize.width * e.word.scale, height: config.baseSize.height * e.word.scale)
        let text = e.word.text, family = fontFamily
        let fonts = labelFonts ?? root.fonts.sibling()
        labelFonts = fonts
        // A run laid out while fitting is reused for the mask.
        let run = fonts.runs(of: text, family: family, scale: scale)
        func line(_ px: Int) -> Line? {
            let key = LineKey(text: text, family: family, pixelSize: px)
            if let l = lines[key] { return l }
            guard let r = run(px) else { return nil }
            let l = Line(pixelWidth: r.pixelWidth, ascent: r.ascent, descent: r.descent, height: Int32(r.font.lineHeight * Double(scale)))
            lines[key] = l
            return l
        }
        guard let px = Label.fitSize(points: 0.6 * box.height, scale: scale, width: box.width, minimumScaleFactor: 0.2,
                                     sizeRatio: 1.1, widthAt: { line($0).map { Double($0.pixelWidth) / Double(scale) } }),
              let l = line(px)
        else { e.run = nil; e.mask = nil; e.pixelSize = nil; return }
        e.pixelSize = px
        let masks = root.renderCache.textMasks
        if let m = masks.cachedMask(text: text, family: family, pixelSize: px, alpha: config.alpha) {
            e.mask = m; e.run = nil
        } else if let r = run(px) {
            e.mask = masks.mask(for: r, alpha: config.alpha)
            // A run is kept only to draw colour glyphs (emoji) that no mask holds.
            e.run = e.mask == nil ? r : nil
        } else {
            e.mask = nil; e.run = nil
        }
        // Centred in the box like a centred Label: half the advance left, the line box centred.
        e.penOffsetX = Int32((-Double(l.pixelWidth) / 2).rounded())
        e.penOffsetY = Int32((-Double(l.height) / 2 + Double(l.ascent)).rounded())
        // The mask's box, grown to the whole run when colour glyphs are drawn beside it.
        let runBox = PixelRect(x: 0, y: -l.ascent, width: l.pixelWidth, height: l.ascent + l.descent)
        if let m = e.mask {
            let r = m.rect(originX: 0, y: 0)
            e.ink = m.colorRun == nil ? r : r.union(runBox)
        } else {
            e.ink = runBox
        }
        if fonts.count > FallingWordsView.labelFontsKept {
            labelFonts = nil
            FontCache.returnFreedMemory()
        }
    }

    /// Moves every label to where the model has it at `time` on a screen of `size`.
    func place(model: FallingWordsModel, time: Double, size: Size) {
        guard let root else { return }
        let scale = root.info.scale
        if scale != preparedScale {
            preparedScale = scale
            for i in entries.indices { prepare(&entries[i], scale: scale) }
            setNeedsDisplay()
        }
        let s = Double(scale)
        for i in entries.indices {
            let c = model.centre(of: entries[i].word, at: time, in: size)
            let x = Int32((c.x * s).rounded()) + entries[i].penOffsetX
            let y = Int32((c.y * s).rounded()) + entries[i].penOffsetY
            if entries[i].placed && x == entries[i].penX && y == entries[i].penY { continue }
            let old = entries[i].screenInk
            entries[i].penX = x; entries[i].penY = y; entries[i].placed = true
            // One rectangle covering where it was and where it is: they overlap almost entirely.
            let r = old.union(entries[i].screenInk)
            if !r.isEmpty { pendingDamage.append(r) }
        }
        flushDamage()
    }

    private var pendingDamage: [PixelRect] = []
    private func flushDamage() {
        guard !pendingDamage.isEmpty, preparedScale > 0 else { return }
        let s = Double(preparedScale)
        setNeedsDisplay(inRects: pendingDamage.map { Rect(x: Double($0.x) / s, y: Double($0.y) / s, width: Double($0.width) / s, height: Double($0.height) / s) })
        pendingDamage.removeAll(keepingCapacity: true)
    }

    override func drawDirectly(in canvas: Canvas, origin: Point, alpha: Double) {
        let s = Double(canvas.scale)
        let ox = Int32((origin.x * s).rounded()), oy = Int32((origin.y * s).rounded())
        let items = entries.compactMap { e in e.mask.map { Canvas.MaskPlacement(mask: $0, x: e.penX + ox, y: e.penY + oy) } }
        canvas.drawCoverage(items, color: config.color, background: .black, alpha: alpha)
        // Colour glyphs (emoji) cannot go through a coverage mask: they are drawn on top.
        for e in entries {
            guard let run = e.mask?.colorRun ?? (e.mask == nil ? e.run : nil) else { continue }
            canvas.draw(run, at: Point(x: Double(e.penX + ox) / s, y: Double(e.penY + oy) / s),
                        color: config.color.withAlpha(config.alpha * alpha), colorGlyphsOnly: true)
        }
    }

    /// Rotated or scaled (never in the kiosk, but a view must draw anywhere): into its layer.
    override func draw(in canvas: Canvas) { drawDirectly(in: canvas, origin: .zero, alpha: 1) }
}
