import KioskCore
import KioskRender
import KioskUI

/// An operator's own content (`ExhibitsFolder`): the exhibits as tiles — picture and title —
/// filling the screen, a page at a time where not all fit; a tap opens an exhibit's page: its
/// picture, its title and its text, which a finger scrolls (and lets glide) and two buttons page
/// through, and a Back control. Every word in the visitor's language where the folder has it,
/// read by the screen reader, laid out again in the large mode and mirrored right to left.
public final class ExhibitsScene: ViewScene {
    public private(set) var folder: ExhibitsFolder
    let loader: PictureLoader
    private let store: SceneStore?

    // The board
    let board = View()
    package private(set) var tiles: [ExhibitTile] = []
    let previousPage = Button(), nextPage = Button()
    let pageLabel = Label()
    let empty = Label()
    /// The board's page on screen, and how many tiles a page holds.
    private(set) var boardPage = 0
    package private(set) var perPage = 1
    private var pageCount: Int { max(1, (folder.exhibits.count + perPage - 1) / perPage) }

    // An exhibit's page
    package let page: ExhibitPage
    /// The exhibit whose page is open.
    public private(set) var opened: Int?

    public init(fonts: FontCache, scheduler: Scheduler = ManualScheduler(), folder: ExhibitsFolder, store: SceneStore? = nil,
                helper: Helper = InlineHelper(), report: @escaping (String) -> Void = { _ in }) {
        self.folder = folder
        self.store = store
        loader = PictureLoader(helper: helper, report: report)
        page = ExhibitPage(loader: loader)
        super.init(name: "exhibits", fonts: fonts, scheduler: scheduler, texts: Self.textTable)
        if let saved = store?.load(ExhibitsSaved.self, name: "exhibits") { restore(saved) }
    }

    // MARK: Building

    public override func build(in view: SceneView) {
        view.backgroundColor = Color.ink
        view.addSubview(board)
        for (i, e) in folder.exhibits.enumerated() {
            let tile = ExhibitTile(loader: loader)
            tile.picture.path = e.picture
            tile.accessibilityIdentifier = "exhibit \(i + 1)"
            tile.action = { [unowned self] _ in open(i) }
            board.addSubview(tile)
            tiles.append(tile)
        }
        for (b, step) in [(previousPage, -1), (nextPage, 1)] {
            b.styleQuiet(fontSize: 22)
            b.action = { [unowned self] _ in turnBoard(by: step) }
            view.addSubview(b)
        }
        previousPage.accessibilityIdentifier = "exhibits previous"
        nextPage.accessibilityIdentifier = "exhibits next"
        for l in [pageLabel, empty] {
            l.alignment = .center
            l.textColor = Color.mist
            l.isUserInteractionEnabled = false
            view.addSubview(l)
        }
        pageLabel.fontSize = 20
        pageLabel.adjustsFontSizeToFitWidth = true
        pageLabel.minimumScaleFactor = 0.6
        empty.fontSize = 24
        empty.numberOfLines = 0
        page.back.action = { [unowned self] _ in close() }
        page.isHidden = true
        view.addSubview(page)
    }

    public override func applyTexts() {
        let code = texts.language.code
        for (tile, e) in zip(tiles, folder.exhibits) { tile.title = e.words(in: code).title }
        // Arrows facing the way the pages go: mirrored right to left.
        previousPage.title = view.isRightToLeft ? "▶" : "◀"
        nextPage.title = view.isRightToLeft ? "◀" : "▶"
        previousPage.accessibilityLabel = texts["exhibits.previous"]
        nextPage.accessibilityLabel = texts["exhibits.next"]
        empty.text = texts["exhibits.empty"]
        page.applyTexts(texts)
        if let opened { page.show(folder.exhibits[opened].words(in: code)) }
        updatePageLabel()
    }

    // MARK: Layout

    public override func layout(view: SceneView) {
        let info = view.info, safe = info.safeArea, mm = info.pointsPerMillimetre
        board.frame = Rect(origin: .zero, size: view.bounds.size)
        page.frame = Rect(origin: .zero, size: view.bounds.size)
        page.lay(in: safe, mm: mm)
        layoutBoard(in: safe, mm: mm)
    }

    /// The tiles as large as the screen lets them be, the fewer the larger; where not all fit
    /// at the least size, a page of them at a time with buttons to turn, low on the screen.
    private func layoutBoard(in safe: Rect, mm: Double) {
        let margin = 12.0, gap = max(8, 2.5 * mm)
        let controlH = max(44, 12 * mm)
        let titleH = ExhibitTile.titleHeight
        var area = safe.insetBy(dx: margin, dy: margin)
        var grid = ExhibitGrid.fit(count: tiles.count, area: area.size, gap: gap, titleHeight: titleH, minimumWidth: 24 * mm, minimumHeight: controlH)
        let paged = grid.perPage < tiles.count
        if paged {
            area.size.height -= controlH + gap
            grid = ExhibitGrid.fit(count: tiles.count, area: area.size, gap: gap, titleHeight: titleH, minimumWidth: 24 * mm, minimumHeight: controlH)
        }
        perPage = max(1, grid.perPage)
        boardPage = min(boardPage, pageCount - 1)
        let first = boardPage * perPage, shown = first..<min(tiles.count, first + perPage)
        for (i, tile) in tiles.enumerated() {
            tile.isHidden = !shown.contains(i)
            guard shown.contains(i) else { continue }
            var f = grid.frame(index: i - first, count: shown.count, in: area)
            if board.isRightToLeft { f.origin.x = board.bounds.width - f.maxX }
            tile.frame = f
        }
        let y = safe.maxY - margin - controlH, bw = min(240, max(controlH * 1.5, (safe.width - 2 * margin) / 4))
        let leading = Rect(x: safe.minX + margin, y: y, width: bw, height: controlH)
        let trailing = Rect(x: safe.maxX - margin - bw, y: y, width: bw, height: controlH)
        previousPage.frame = board.isRightToLeft ? trailing : leading
        nextPage.frame = board.isRightToLeft ? leading : trailing
        pageLabel.frame = Rect(x: leading.maxX + 8, y: y, width: max(0, trailing.minX - leading.maxX - 16), height: controlH)
        for v in [previousPage, nextPage, pageLabel] { v.isHidden = !paged || opened != nil }
        empty.frame = safe.insetBy(dx: margin, dy: margin)
        empty.isHidden = !tiles.isEmpty || opened != nil
        updatePageLabel()
    }

    private func updatePageLabel() {
        pageLabel.text = texts("exhibits.page", ["n": String(boardPage + 1), "count": String(pageCount)])
        previousPage.isEnabled = boardPage > 0
        nextPage.isEnabled = boardPage < pageCount - 1
    }

    private func turnBoard(by step: Int) {
        let next = max(0, min(pageCount - 1, boardPage + step))
        guard next != boardPage else { return }
        boardPage = next
        layout(view: view)
        view.root?.screenReader.announce(pageLabel.text)
    }

    // MARK: An exhibit's page

    /// Opens exhibit `i`'s page, its text at the top.
    public func open(_ i: Int) {
        guard folder.exhibits.indices.contains(i) else { return }
        opened = i
        let e = folder.exhibits[i]
        // Shown first: a picture view asks for its picture only while it is shown.
        page.isHidden = false
        board.isHidden = true
        page.picture.path = e.picture
        page.show(e.words(in: texts.language.code))
        page.text.offset = 0
        page.text.stop()
        for v in [previousPage, nextPage, pageLabel, empty] { v.isHidden = true }
        view.root?.screenReader.announce(page.title.text)
    }

    /// Back to the board, where the visitor left it.
    public func close() {
        guard opened != nil else { return }
        opened = nil
        page.isHidden = true
        page.picture.path = nil // its decoded picture is let go
        board.isHidden = false
        layout(view: view)
    }

    /// A new visitor: the board, from its first page.
    public override func reset() {
        close()
        boardPage = 0
        if hasLaidOut { layout(view: view) }
    }

    public override func setActive(_ active: Bool) {
        super.setActive(active)
        if !active { page.text.stop() }
    }

    // MARK: Saved state

    public override func saveState() {
        store?.save(ExhibitsSaved(page: boardPage, opened: opened.map { folder.exhibits[$0].words.title }), name: "exhibits")
    }

    /// An exhibit is found again by its title: the folder may have changed since.
    private func restore(_ saved: ExhibitsSaved) {
        boardPage = max(0, saved.page)
        if let title = saved.opened, let i = folder.exhibits.firstIndex(where: { $0.words.title == title }) { open(i) }
    }
}

/// What survives a restart or a change of the folder: the board's page, and the open exhibit.
struct ExhibitsSaved: Codable, Equatable {
    var page: Int
    var opened: String?
}

/// The board's grid: how many columns, how large a tile, how many to a page.
struct ExhibitGrid: Equatable {
    var columns: Int
    var rows: Int
    var tileWidth: Double
    var tileHeight: Double
    var gap: Double
    var perPage: Int { columns * rows }

    /// The largest tiles that show `count` exhibits in `area`, a picture of 4:3 over a title
    /// strip; where they would be narrower than `minimumWidth`, pages of as many of that width
    /// as fit; where not even one fits (large text on a small panel), pages of rows, each a
    /// small picture beside its title, at least `minimumHeight` tall.
    static func fit(count: Int, area: Size, gap: Double, titleHeight: Double, minimumWidth: Double, minimumHeight: Double) -> ExhibitGrid {
        func tile(_ w: Double) -> Double { w * 0.75 + titleHeight }
        var best: ExhibitGrid?
        for columns in 1...max(1, count) {
            let rows = (count + columns - 1) / columns
            let byWidth = (area.width - Double(columns - 1) * gap) / Double(columns)
            let byHeight = ((area.height - Double(rows - 1) * gap) / Double(rows) - titleHeight) / 0.75
            let w = min(byWidth, byHeight)
            if w > best?.tileWidth ?? 0 { best = ExhibitGrid(columns: columns, rows: rows, tileWidth: w, tileHeight: tile(w), gap: gap) }
        }
        if let best, best.tileWidth >= minimumWidth { return best }
        // Pages: as many columns of the least width as fit, and as many rows.
        let columns = max(1, Int((area.width + gap) / (minimumWidth + gap)))
        let w = (area.width - Double(columns - 1) * gap) / Double(columns)
        if tile(w) <= area.height {
            let rows = max(1, Int((area.height + gap) / (tile(w) + gap)))
            return ExhibitGrid(columns: columns, rows: rows, tileWidth: w, tileHeight: tile(w), gap: gap)
        }
        let rowHeight = min(area.height, max(minimumHeight, titleHeight))
        let rows = max(1, Int((area.height + gap) / (rowHeight + gap)))
        return ExhibitGrid(columns: 1, rows: rows, tileWidth: area.width, tileHeight: rowHeight, gap: gap)
    }

    /// The frame of the `index`th of `count` tiles on a page, the grid centred in `area`.
    func frame(index: Int, count: Int, in area: Rect) -> Rect {
        let usedColumns = min(columns, count), usedRows = (count + columns - 1) / columns
        let width = Double(usedColumns) * tileWidth + Double(usedColumns - 1) * gap
        let height = Double(usedRows) * tileHeight + Double(usedRows - 1) * gap
        let x0 = area.minX + (area.width - width) / 2, y0 = area.minY + (area.height - height) / 2
        let c = index % columns, r = index / columns
        return Rect(x: x0 + Double(c) * (tileWidth + gap), y: y0 + Double(r) * (tileHeight + gap), width: tileWidth, height: tileHeight)
    }
}

/// One exhibit on the board: its picture filling the top, its title below; a tap opens it.
package final class ExhibitTile: Button {
    static let titleHeight = 56.0
    package let picture: PictureView

    init(loader: PictureLoader) {
        picture = PictureView(loader: loader, fit: .filling)
        super.init()
        backgroundColor = Color.panel
        cornerRadius = 12
        clipsToBounds = true
        addSubview(picture)
        titleLabel.fontSize = 20
        titleLabel.numberOfLines = 2
        titleLabel.textColor = Color.paper
        titleLabel.adjustsFontSizeToFitWidth = true
        titleLabel.minimumScaleFactor = 0.7
        normalAlpha = 1
    }

    /// A tile much wider than tall (a row, where a grid does not fit) has its picture beside its title.
    var isRow: Bool { bounds.width > bounds.height * 2.2 }

    package override func layoutSubviews() {
        // The picture inside a border of the tile's own: its edge shows (drawn in high contrast).
        let w = bounds.width, h = bounds.height, border = 4.0
        if isRow {
            let pw = (h - 2 * border) / 0.75
            picture.frame = Rect(x: border, y: border, width: pw, height: h - 2 * border)
            titleLabel.frame = Rect(x: pw + 2 * border + 8, y: 4, width: max(0, w - pw - 2 * border - 16), height: h - 8)
            titleLabel.alignment = .left
            if isRightToLeft { mirrorHorizontally([picture, titleLabel]) }
        } else {
            picture.frame = Rect(x: border, y: border, width: max(0, w - 2 * border), height: max(0, h - Self.titleHeight - border))
            titleLabel.frame = Rect(x: 8, y: h - Self.titleHeight + 4, width: max(0, w - 16), height: Self.titleHeight - 8)
            titleLabel.alignment = .center
        }
    }
}

/// An exhibit's page: Back and the title along the top; the picture beside the text (landscape)
/// or above it (portrait); the text in a scroll view, with buttons that page it.
package final class ExhibitPage: View {
    let back = Button()
    let title = Label()
    let picture: PictureView
    package let text = ScrollView()
    let up = Button(), down = Button()
    private(set) var paragraphs: [Label] = []
    private var textSize = 22.0

    init(loader: PictureLoader) {
        picture = PictureView(loader: loader, fit: .inside)
        super.init()
        backgroundColor = Color.ink
        picture.background = Color.ink
        addSubview(picture)
        back.styleQuiet(fontSize: 22)
        back.accessibilityIdentifier = "exhibits back"
        addSubview(back)
        title.fontSize = 30
        title.numberOfLines = 2
        title.adjustsFontSizeToFitWidth = true
        title.minimumScaleFactor = 0.6
        title.textColor = Color.paper
        title.isUserInteractionEnabled = false
        title.isAccessibilityElement = true
        title.accessibilityTraits = .header
        addSubview(title)
        addSubview(text)
        text.accessibilityIdentifier = "exhibits text"
        for (b, pages) in [(up, -1), (down, 1)] {
            b.styleQuiet(fontSize: 24)
            b.action = { [unowned self] _ in text.scroll(byPages: pages) }
            addSubview(b)
        }
        up.title = "▲"
        down.title = "▼"
        up.accessibilityIdentifier = "exhibits up"
        down.accessibilityIdentifier = "exhibits down"
        text.onScroll = { [unowned self] in updateScrollButtons() }
    }

    func applyTexts(_ texts: Texts) {
        back.title = texts["exhibits.back"]
        up.accessibilityLabel = texts["exhibits.up"]
        down.accessibilityLabel = texts["exhibits.down"]
    }

    /// The exhibit's words, laid out at once.
    func show(_ words: Exhibit.Words) {
        title.text = words.title
        while paragraphs.count > words.paragraphs.count { paragraphs.removeLast().removeFromSuperview() }
        while paragraphs.count < words.paragraphs.count {
            let l = Label()
            l.fontSize = textSize
            l.numberOfLines = 0
            l.textColor = Color.paper
            l.isUserInteractionEnabled = false
            l.isAccessibilityElement = true
            text.content.addSubview(l)
            paragraphs.append(l)
        }
        for (l, p) in zip(paragraphs, words.paragraphs) { l.text = p }
        layParagraphs()
    }

    private var laidIn: (safe: Rect, mm: Double)?

    /// Lays the page out in `safe`: the picture beside the text on a wide screen, above it on a
    /// tall one; mirrored right to left.
    func lay(in safe: Rect, mm: Double) {
        laidIn = (safe, mm)
        let margin = 12.0, gap = max(10, 3 * mm), control = max(44, 12 * mm)
        back.frame = Rect(x: safe.minX + margin, y: safe.minY + margin, width: min(220, max(control * 2.5, safe.width * 0.22)), height: control)
        title.frame = Rect(x: back.frame.maxX + gap, y: safe.minY + margin - 4, width: max(0, safe.maxX - margin - back.frame.maxX - gap), height: control + 8)
        let body = Rect(x: safe.minX + margin, y: back.frame.maxY + gap, width: safe.width - 2 * margin, height: max(0, safe.maxY - margin - back.frame.maxY - gap))
        // Too little room to share (large text on a small panel): the picture scrolls with the text.
        pictureScrolls = body.height < 3 * control + 2 * gap
        var textArea = body
        if pictureScrolls {
            text.content.addSubview(picture)
        } else {
            addSubview(picture)
            if body.width > body.height * 1.1 {
                let pw = (body.width - gap) * 0.45
                picture.frame = Rect(x: body.minX, y: body.minY, width: pw, height: body.height)
                textArea = Rect(x: body.minX + pw + gap, y: body.minY, width: body.width - pw - gap, height: body.height)
            } else {
                let ph = (body.height - gap) * 0.4
                picture.frame = Rect(x: body.minX, y: body.minY, width: body.width, height: ph)
                textArea = Rect(x: body.minX, y: body.minY + ph + gap, width: body.width, height: body.height - ph - gap)
            }
        }
        // The page buttons at the text's trailing side: one at its top and one at its foot, or
        // side by side at its top where it is not tall enough for both.
        if textArea.height >= 2 * control + gap {
            up.frame = Rect(x: textArea.maxX - control, y: textArea.minY, width: control, height: control)
            down.frame = Rect(x: textArea.maxX - control, y: textArea.maxY - control, width: control, height: control)
            textArea.size.width -= control + gap
        } else {
            up.frame = Rect(x: textArea.maxX - 2 * control - gap, y: textArea.minY, width: control, height: control)
            down.frame = Rect(x: textArea.maxX - control, y: textArea.minY, width: control, height: control)
            textArea.size.width -= 2 * control + 2 * gap
        }
        text.frame = textArea
        if isRightToLeft { mirrorHorizontally([back, title, picture, text, up, down].filter { $0.superview === self }) }
        layParagraphs()
    }

    /// Whether the picture is at the top of the scrolling text, not beside or above it.
    private var pictureScrolls = false

    /// The paragraphs one under another in the scroll view, each as tall as its lines.
    private func layParagraphs() {
        let w = text.bounds.width
        // Measuring a long text is a page's dearest work: not while the board shows.
        guard w > 0, !isHidden else { return }
        var y = 0.0
        if pictureScrolls {
            picture.frame = Rect(x: 0, y: 0, width: w, height: w * 0.6)
            y = picture.frame.maxY + textSize * 0.8
        }
        for l in paragraphs {
            let h = l.sizeThatFits(width: w).height
            l.frame = Rect(x: 0, y: y, width: w, height: h)
            y += h + textSize * 0.8
        }
        text.contentHeight = max(0, y - textSize * 0.8)
        updateScrollButtons()
    }

    private func updateScrollButtons() {
        up.isHidden = !text.canScroll
        down.isHidden = !text.canScroll
        up.isEnabled = text.offset > 0.5
        down.isEnabled = text.offset < text.maximumOffset - 0.5
    }
}
