extension TileBoardScene {
    /// The tile board, as the kiosk's catalog lists it.
    package static let description = SceneDescription(
        name: "tiles", aliases: ["tile-board", "board"], audience: .visitors, texts: textTable, madeFrom: ["shell.theme"]
    ) { c in
        TileBoardScene(fonts: c.fonts, scheduler: c.scheduler, store: c.store, themeDirectory: c.themeDirectory, report: c.report)
    }
}
