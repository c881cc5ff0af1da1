#if canImport(Glibc)
import Glibc
#endif
import KioskCore
import KioskRender
import KioskUI

/// A grid of tiles, each on or off. A tap toggles a tile; dragging toggles every tile a finger
/// enters (once per entry), each finger on its own; a cancelled touch puts back what it toggled.
/// Double tap removes a tile. Remove deletes the selected tiles — they shrink away and the rest
/// slide to their new places — and Refill brings the board back to full. Where not all tiles fit
/// at their least size (a small panel in the large mode), the board shows them a page at a
/// time, with arrow buttons at its sides.
public final class TileBoardScene: ViewScene {
    public private(set) var model: TileBoardModel
    private let store: SceneStore?
    private let report: (String) -> Void
    private var onImage: Image?, offImage: Image?

    let board = BoardView()
    private(set) var tileViews: [Int: TileView] = [:]
    let removeButton = Button()
    let refillButton = Button()
    let status = Label()
    let previousPage = Button(), nextPage = Button()
    private var laidOut = false
    /// The page on screen, and how many tiles a page holds (all of them when all fit).
    private(set) var page = 0
    private(set) var perPage = TileBoardModel.fullCount
    private var isPaged: Bool { perPage < model.tiles.count }
    private var pageCount: Int { isPaged ? (model.tiles.count + perPage - 1) / perPage : 1 }
    /// Grid indices of the tiles on screen.
    var shownRange: Range<Int> {
        let first = min(page, pageCount - 1) * perPage
        return first..<min(model.tiles.count, first + perPage)
    }
    /// The page buttons' side (a strip beside the tiles when paged).
    private var pagerSide = 44.0
    /// The board's margin: half in the large mode, whose points are twice as large.
    private var margin = TileBoardModel.margin
    private(set) var tileSide = 68.0, gap = 9.0, minimumTile = 45.0
    private(set) var columns = 4
    /// Per finger: the tile it is on and what it toggled (to undo on cancel).
    private var tracks: [ObjectIdentifier: (current: Int?, toggled: [Int])] = [:]
    static let animation = 0.5

    public init(fonts: FontCache, scheduler: Scheduler = ManualScheduler(), store: SceneStore? = nil,
                themeDirectory: String? = nil, report: @escaping (String) -> Void = { _ in }) {
        var m = TileBoardModel()
        if let saved = store?.load(TileBoardModel.self, name: "tiles") {
            if saved.isPlausible { m = saved } else {
                let p = store!.path("tiles")
                report("\(p): saved board is out of range; \(store!.moveAside(p)); starting with a full board")
            }
        }
        model = m
        self.store = store
        self.report = report
        let images = Theme.images(["on.png", "off.png"], in: themeDirectory, report: report)
        // Both or neither: a board mixing pictures and vector tiles would look broken.
        if let on = images["on.png"], let off = images["off.png"] { onImage = on; offImage = off }
        super.init(name: "tiles", fonts: fonts, scheduler: scheduler, texts: Self.textTable)
    }

    // MARK: Building

    public override func build(in view: SceneView) {
        view.backgroundColor = Color.ink
        board.scene = self
        board.isMultipleTouchEnabled = true
        let doubleTap = TapGestureRecognizer { [unowned self] r in
            if let id = tile(at: r.location(in: board)) { removeTiles([id]) }
        }
        doubleTap.numberOfTapsRequired = 2
        doubleTap.cancelsTouchesInView = false
        doubleTap.name = "double tap"
        board.addGestureRecognizer(doubleTap)
        view.addSubview(board)
        for t in model.tiles { addTileView(t.id) }

        for (b, color) in [(removeButton, Color.coral), (refillButton, Color.leaf)] {
            b.titleLabel.fontSize = 24
            b.titleLabel.textColor = Color.ink
            b.backgroundColor = color
            b.cornerRadius = 12
            view.addSubview(b)
        }
        removeButton.accessibilityIdentifier = "tiles remove"
        refillButton.accessibilityIdentifier = "tiles refill"
        removeButton.action = { [unowned self] _ in removeTiles(model.selectedIDs) }
        refillButton.action = { [unowned self] _ in refill() }
        status.fontSize = 20
        status.textColor = Color.mist
        status.alignment = .center
        status.isUserInteractionEnabled = false
        view.addSubview(status)
        for (b, step) in [(previousPage, -1), (nextPage, 1)] {
            b.styleQuiet(fontSize: 24)
            b.action = { [unowned self] _ in turnPage(by: step) }
            view.addSubview(b)
        }
        previousPage.accessibilityIdentifier = "tiles previous"
        nextPage.accessibilityIdentifier = "tiles next"
        refreshControls()
    }

    @discardableResult
    private func addTileView(_ id: Int) -> TileView {
        let v = TileView(on: onImage, off: offImage)
        v.isUserInteractionEnabled = false
        v.isOn = model.isSelected(id)
        tileViews[id] = v
        board.addSubview(v)
        return v
    }

    // MARK: Layout

    public override func layout(view: SceneView) {
        let size = view.bounds.size, safe = view.info.safeArea, mm = view.info.pointsPerMillimetre
        let large = view.info.isLarge
        gap = TileBoardModel.gapMillimetres * mm
        minimumTile = (large ? TileBoardModel.largeMinimumTileMillimetres : TileBoardModel.minimumTileMillimetres) * mm
        pagerSide = max(44, minimumTile)
        margin = large ? TileBoardModel.margin / 2 : TileBoardModel.margin
        // Buttons along the bottom, the status line above them, and the board in all the rest of
        // the safe area (below the shell's scene bar: a tile under it could not be touched).
        // Zoomed, the large mode's points are twice as big: 44 of them are 15 mm or more.
        let barH = max(large ? 44 : 64, 16 * mm)
        let bw = min(260, (safe.width - 48) / 2)
        let buttonsY = safe.maxY - barH - 12
        let leading = Rect(x: safe.midX - bw - 8, y: buttonsY, width: bw, height: barH)
        let trailing = Rect(x: safe.midX + 8, y: buttonsY, width: bw, height: barH)
        // Remove comes first in reading order: on the right in a right-to-left language.
        removeButton.frame = view.isRightToLeft ? trailing : leading
        refillButton.frame = view.isRightToLeft ? leading : trailing
        // Twice as large, the hint takes two lines on a narrow panel in a long language.
        let statusH = large ? 50.0 : 32
        status.numberOfLines = large ? 2 : 1
        status.frame = Rect(x: safe.minX, y: buttonsY - statusH - 8, width: safe.width, height: statusH)
        board.frame = Rect(x: 0, y: safe.minY, width: size.width, height: max(0, status.frame.minY - 4 - safe.minY))
        // The first layout places tiles; later ones (rotation) slide them to their new places.
        placeTiles(animated: laidOut)
        laidOut = true
    }

    /// Where the tiles go, in board coordinates: inside the margin, the safe area's width (less
    /// the page buttons' strips when paged).
    private var gridArea: Rect { gridArea(paged: isPaged) }
    private func gridArea(paged: Bool) -> Rect {
        let safe = view.info.safeArea, m = margin
        let x = paged ? m : safe.minX + m, strips = paged ? 2 * (pagerSide + m) : 0
        return Rect(x: x, y: m, width: max(0, safe.width - 2 * m - strips), height: max(0, board.bounds.height - 2 * m))
    }

    /// Sizes the grid for the tiles there are now: the fewer, the bigger; a page at a time when
    /// not all fit at the least size.
    private func updateGrid() {
        let fitting = { (paged: Bool) in TileBoardModel.capacity(area: self.gridArea(paged: paged).size, gap: self.gap, minimumTile: self.minimumTile) }
        perPage = model.tiles.count <= fitting(false) ? TileBoardModel.fullCount : fitting(true)
        page = min(page, pageCount - 1)
        let g = TileBoardModel.grid(count: isPaged ? perPage : model.tiles.count, area: gridArea.size, gap: gap, minimumTile: minimumTile)
        columns = g.columns
        tileSide = g.tile
        layoutPager()
    }

    /// The board across the screen, or between the page buttons at its sides when paged; the
    /// buttons facing the way the pages go (mirrored right to left).
    private func layoutPager() {
        let safe = view.info.safeArea, m = margin, strip = pagerSide + m
        board.frame = isPaged ? Rect(x: safe.minX + strip, y: board.frame.minY, width: max(0, safe.width - 2 * strip), height: board.frame.height)
            : Rect(x: 0, y: board.frame.minY, width: view.bounds.width, height: board.frame.height)
        let area = gridArea.offsetBy(dx: board.frame.minX, dy: board.frame.minY)
        let y = area.midY - pagerSide / 2
        let left = Rect(x: area.minX - m - pagerSide, y: y, width: pagerSide, height: pagerSide)
        let right = Rect(x: area.maxX + m, y: y, width: pagerSide, height: pagerSide)
        let rtl = view.isRightToLeft
        previousPage.frame = rtl ? right : left
        nextPage.frame = rtl ? left : right
        previousPage.title = rtl ? "▶" : "◀"
        nextPage.title = rtl ? "◀" : "▶"
        for b in [previousPage, nextPage] { b.isHidden = !isPaged }
        previousPage.isEnabled = page > 0
        nextPage.isEnabled = page < pageCount - 1
    }

    private func turnPage(by step: Int) {
        let next = max(0, min(pageCount - 1, page + step))
        guard next != page else { return }
        page = next
        placeTiles(animated: false)
        let shown = shownRange
        view.root?.screenReader.announce(texts("tiles.page", ["first": String(shown.lowerBound + 1), "last": String(shown.upperBound),
                                                             "count": String(model.tiles.count)]))
    }

    /// The frame of the tile at grid `index`, on its page.
    func tileFrame(index: Int) -> Rect {
        TileBoardModel.frame(index: index - shownRange.lowerBound, count: isPaged ? perPage : model.tiles.count, columns: columns,
                             tile: tileSide, gap: gap, area: gridArea)
    }

    private func placeTiles(animated: Bool) {
        updateGrid()
        let shown = shownRange
        for (i, t) in model.tiles.enumerated() {
            guard let v = tileViews[t.id] else { continue }
            v.isHidden = !shown.contains(i)
            let f = tileFrame(index: i)
            if animated {
                View.animate(duration: Self.animation, animations: {
                    v.bounds = Rect(origin: .zero, size: f.size)
                    v.center = f.center
                })
            } else {
                v.bounds = Rect(origin: .zero, size: f.size)
                v.center = f.center
            }
        }
    }

    /// The tile under `p` (board coordinates), by where tiles are going to be. Each tile's
    /// target reaches halfway into the gaps around it (and a hair more, so rounding leaves no
    /// seam): no dead strips between tiles.
    func tile(at p: Point) -> Int? {
        let reach = -(gap / 2 + 0.01)
        for i in shownRange where tileFrame(index: i).insetBy(dx: reach, dy: reach).contains(p) { return model.tiles[i].id }
        return nil
    }

    // MARK: Actions

    private func removeTiles(_ ids: [Int]) {
        guard !ids.isEmpty else { return }
        for id in ids {
            model.remove(id)
            guard let v = tileViews.removeValue(forKey: id) else { continue }
            View.animate(duration: Self.animation, animations: { v.transform = AffineTransform(scaleX: 0.01, y: 0.01) },
                         completion: { _ in v.removeFromSuperview() })
        }
        placeTiles(animated: true)
        labelTiles()
        refreshControls()
    }

    /// A new visitor: a full board with nothing selected (said to nobody).
    public override func reset() {
        for t in model.tiles where t.selected { setTile(t.id, on: false) }
        page = 0
        refill(announcing: false)
    }

    private func refill(announcing: Bool = true) {
        let added = model.refill()
        updateGrid()  // the new tiles grow in at their places in the fuller grid
        for id in added {
            let v = addTileView(id)
            if let i = model.index(of: id) {
                let f = tileFrame(index: i)
                v.bounds = Rect(origin: .zero, size: f.size)
                v.center = f.center
            }
            v.transform = AffineTransform(scaleX: 0.01, y: 0.01)
            View.animate(duration: Self.animation, animations: { v.transform = .identity })
        }
        placeTiles(animated: true)
        labelTiles()
        refreshControls(announcing: announcing)
    }

    private func setTile(_ id: Int, on: Bool) {
        model.setSelected(id, on)
        tileViews[id]?.isOn = on
    }

    private func refreshControls(announcing: Bool = true) {
        let n = model.selectedIDs.count
        removeButton.isEnabled = n > 0
        refillButton.isEnabled = model.tiles.count < TileBoardModel.fullCount
        let before = status.text
        if model.tiles.isEmpty {
            status.text = texts["tiles.empty"]
        } else {
            status.text = n == 0 ? texts["tiles.hint"] : texts.count("tiles.selected", n)
        }
        if status.text != before, announcing { view.root?.screenReader.announce(status.text) }
    }

    /// What a screen reader calls each tile: its place among them (again when tiles come or go,
    /// or the language changes; its selection is the tile's own trait).
    private func labelTiles() {
        for (i, tile) in model.tiles.enumerated() {
            tileViews[tile.id]?.accessibilityLabel = texts("access.tile", ["n": String(i + 1), "count": String(model.tiles.count)])
        }
    }

    public override func applyTexts() {
        removeButton.title = texts["tiles.remove"]
        refillButton.title = texts["tiles.refill"]
        previousPage.accessibilityLabel = texts["tiles.previous"]
        nextPage.accessibilityLabel = texts["tiles.next"]
        labelTiles()
        refreshControls(announcing: false)
    }

    // MARK: Fingers on the board

    func touchesBegan(_ touches: Set<Touch>) {
        for t in touches {
            let id = tile(at: t.location(in: board))
            var toggled: [Int] = []
            if let id { toggled.append(id); setTile(id, on: !model.isSelected(id)) }
            tracks[ObjectIdentifier(t)] = (id, toggled)
        }
        refreshControls()
    }

    func touchesMoved(_ touches: Set<Touch>) {
        for t in touches {
            guard var track = tracks[ObjectIdentifier(t)] else { continue }
            let id = tile(at: t.location(in: board))
            guard id != track.current else { continue } // staying inside a tile toggles nothing
            track.current = id
            if let id {
                track.toggled.append(id)
                setTile(id, on: !model.isSelected(id))
            }
            tracks[ObjectIdentifier(t)] = track
        }
        refreshControls()
    }

    func touchesEnded(_ touches: Set<Touch>, cancelled: Bool) {
        for t in touches {
            guard let track = tracks.removeValue(forKey: ObjectIdentifier(t)) else { continue }
            if cancelled {
                // A cancelled touch never happened: flip back each tile it flipped. Flipping,
                // not restoring the value it saw, keeps this right when several fingers on one
                // tile are cancelled together, in whatever order.
                for id in track.toggled.reversed() where model.index(of: id) != nil { setTile(id, on: !model.isSelected(id)) }
            }
        }
        refreshControls()
    }

    // MARK: Saved state

    public override func saveState() { store?.save(model, name: "tiles") }
}

/// Takes the board's touches (tiles themselves do not take touches).
final class BoardView: View {
    weak var scene: TileBoardScene?
    override func touchesBegan(_ t: Set<Touch>, event: TouchEvent) { scene?.touchesBegan(t) }
    override func touchesMoved(_ t: Set<Touch>, event: TouchEvent) { scene?.touchesMoved(t) }
    override func touchesEnded(_ t: Set<Touch>, event: TouchEvent) { scene?.touchesEnded(t, cancelled: false) }
    override func touchesCancelled(_ t: Set<Touch>, event: TouchEvent) { scene?.touchesEnded(t, cancelled: true) }
}

/// One tile: the theme's `on.png`/`off.png` when both are present, else a vector tile.
final class TileView: View {
    private let onImage: Image?, offImage: Image?
    var isOn = false {
        didSet {
            guard isOn != oldValue else { return }
            setNeedsDisplay()
            accessibilityTraits = isOn ? [.button, .selected] : .button
        }
    }
    override var drawsContent: Bool { true }

    init(on: Image?, off: Image?) {
        onImage = on
        offImage = off
        super.init()
        isAccessibilityElement = true
        accessibilityTraits = .button
    }

    override func draw(in canvas: Canvas) {
        let b = Rect(origin: .zero, size: bounds.size)
        if let img = isOn ? onImage : offImage, img.size.width > 0 {
            canvas.draw(img, transform: AffineTransform(scaleX: b.width / img.size.width, y: b.height / img.size.height))
            return
        }
        let r = b.width * 0.16
        if isOn {
            canvas.fillRoundedRect(b, radius: r, color: Color.sky)
            let w = b.width
            canvas.strokeLine(from: Point(x: w * 0.27, y: w * 0.52), to: Point(x: w * 0.44, y: w * 0.68), width: w * 0.08, color: Color.ink)
            canvas.strokeLine(from: Point(x: w * 0.42, y: w * 0.70), to: Point(x: w * 0.74, y: w * 0.33), width: w * 0.08, color: Color.ink)
        } else {
            canvas.fillRoundedRect(b, radius: r, color: Color.panel)
            canvas.strokeRoundedRect(b, radius: r, width: 2, color: Color.steel)
        }
    }
}
