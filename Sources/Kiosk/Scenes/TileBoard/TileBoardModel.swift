/// The tile board's state: which tiles exist, in grid order, and which are selected.
/// Pure logic (Codable: it is what the kiosk keeps across restarts).
public struct TileBoardModel: Codable, Equatable, Sendable {
    public struct Tile: Codable, Equatable, Sendable {
        public let id: Int
        public var selected: Bool
    }
    public static let fullCount = 24
    /// Tile side and gap on the real panel, and the board's margin in points.
    public static let tileMillimetres = 18.0
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

    /// Columns that fit `width` points of tiles `tile` points wide with `gap` between them.
    public static func columns(width: Double, tile: Double, gap: Double) -> Int {
        max(1, Int(((width - 2 * margin + gap) / (tile + gap)).rounded(.down)))
    }

    /// The frame of the tile at grid `index`, the grid centred horizontally in `width`.
    public static func frame(index: Int, columns: Int, tile: Double, gap: Double, width: Double, top: Double) -> Rect {
        let gridWidth = Double(columns) * tile + Double(columns - 1) * gap
        let x0 = (width - gridWidth) / 2
        let row = index / columns, col = index % columns
        return Rect(x: x0 + Double(col) * (tile + gap), y: top + Double(row) * (tile + gap), width: tile, height: tile)
    }
}
