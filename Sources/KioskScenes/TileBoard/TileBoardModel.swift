import KioskCore

/// The tile board's state: which tiles exist, in grid order, and which are selected.
/// Pure logic (Codable: it is what the kiosk keeps across restarts).
public struct TileBoardModel: Codable, Equatable, Sendable {
    public struct Tile: Codable, Equatable, Sendable {
        public let id: Int
        public var selected: Bool
    }
    public static let fullCount = 24
    /// The smallest tile side and the gap on the real panel, and the board's margin in points.
    public static let minimumTileMillimetres = 12.0
    /// In the large high-contrast mode (EN 301 549's low-vision targets).
    public static let largeMinimumTileMillimetres = 15.0
    public static let gapMillimetres = 2.5
    public static let margin = 16.0

    public private(set) var tiles: [Tile]
    private var nextID: Int

    public init(count: Int = TileBoardModel.fullCount) {
        tiles = (0..<count).map { Tile(id: $0, selected: false) }
        nextID = count
    }

    public var selectedIDs: [Int] { tiles.filter(\.selected).map(\.id) }
    public func index(of id: Int) -> Int? { tiles.firstIndex { $0.id == id } }
    public func isSelected(_ id: Int) -> Bool { index(of: id).map { tiles[$0].selected } ?? false }

    public mutating func toggle(_ id: Int) { if let i = index(of: id) { tiles[i].selected.toggle() } }
    public mutating func setSelected(_ id: Int, _ on: Bool) { if let i = index(of: id) { tiles[i].selected = on } }

    /// Removes the selected tiles; returns their ids.
    @discardableResult
    public mutating func removeSelected() -> [Int] {
        let gone = selectedIDs
        tiles.removeAll(where: \.selected)
        return gone
    }
    public mutating func remove(_ id: Int) { tiles.removeAll { $0.id == id } }

    /// Brings the board back to full with new, unselected tiles; returns their ids.
    @discardableResult
    public mutating func refill() -> [Int] {
        var added: [Int] = []
        while tiles.count < Self.fullCount {
            tiles.append(Tile(id: nextID, selected: false))
            added.append(nextID)
            nextID += 1
        }
        return added
    }

    /// Ids count up from here; a board refilled a billion times would be decades of use, so a
    /// saved `nextID` past it is damage (it used to overflow on the next Refill).
    public static let maxID = 1 << 30

    /// Whether a decoded board can be used (a damaged file could say anything).
    public var isPlausible: Bool {
        tiles.count <= Self.fullCount && Set(tiles.map(\.id)).count == tiles.count && tiles.allSatisfy { $0.id >= 0 && $0.id < nextID }
            && nextID <= Self.maxID
    }

    /// The grid for `count` tiles in `area` (points) with `gap` between them: the column count
    /// whose square tiles come out largest (so the grid takes the area's shape), never smaller
    /// than `minimumTile` (then the grid is wider or taller than the area).
    public static func grid(count: Int, area: Size, gap: Double, minimumTile: Double) -> (columns: Int, tile: Double) {
        let n = max(1, count)
        var best = (columns: 1, tile: -Double.infinity)
        for c in 1...n {
            let rows = (n + c - 1) / c
            let side = min((area.width - Double(c - 1) * gap) / Double(c), (area.height - Double(rows - 1) * gap) / Double(rows))
            if side > best.tile { best = (c, side) }
        }
        return (best.columns, max(minimumTile, best.tile))
    }

    /// How many tiles of side `minimumTile` fit in `area` with `gap` between them (at least one).
    public static func capacity(area: Size, gap: Double, minimumTile: Double) -> Int {
        let columns = Int(((area.width + gap) / (minimumTile + gap)).rounded(.down))
        let rows = Int(((area.height + gap) / (minimumTile + gap)).rounded(.down))
        return max(1, columns * rows)
    }

    /// The frame of the tile at grid `index` in a grid of `count` tiles centred in `area`.
    public static func frame(index: Int, count: Int, columns: Int, tile: Double, gap: Double, area: Rect) -> Rect {
        let rows = (max(1, count) + columns - 1) / columns
        let gridWidth = Double(columns) * tile + Double(columns - 1) * gap
        let gridHeight = Double(rows) * tile + Double(rows - 1) * gap
        let x0 = area.minX + (area.width - gridWidth) / 2, y0 = area.minY + (area.height - gridHeight) / 2
        let row = index / columns, col = index % columns
        return Rect(x: x0 + Double(col) * (tile + gap), y: y0 + Double(row) * (tile + gap), width: tile, height: tile)
    }
}
