import KioskCore

extension TileBoardScene {
    /// The tile board's words, in English by key, with notes for translators:
    /// gathered into the kiosk's texts (`SceneCatalog.texts`) and its translation template.
    public static let textTable = TextCatalog([
        "scene.tiles": "Tiles",
        "tiles.remove": "Remove",
        "tiles.refill": "Refill",
        "tiles.hint": "Tap or drag across tiles to select them",
        "tiles.empty": "The board is empty — tap Refill",
        "tiles.previous": "Previous tiles",
        "tiles.next": "Next tiles",
        "tiles.page": "Tiles {first} to {last} of {count}",
        "tiles.selected.one": "{n} selected",
        "tiles.selected.other": "{n} selected",
        "access.tile": "Tile {n} of {count}",
    ], notes: [
        "scene.tiles": "A pill in the scene bar: a board of coloured squares to select and remove.",
        "tiles.remove": "A button: remove the selected tiles from the board.",
        "tiles.refill": "A button: fill the board with tiles again.",
        "tiles.previous": "Spoken name of the arrow button that shows the previous page of tiles (when not all fit on the screen, in the large mode).",
        "tiles.next": "Spoken name of the arrow button that shows the next page of tiles.",
        "tiles.page": "Spoken when another page of tiles shows: which of them are on screen.",
        "access.tile": "Spoken for one tile of the tile board: its place among all tiles.",
    ])
}
