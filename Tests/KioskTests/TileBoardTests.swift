import Testing
@testable import Kiosk
@testable import KioskScenes
@testable import KioskUI
@testable import KioskCore
#if canImport(Glibc)
import Glibc
#endif

@Suite struct TileBoardModelTests {
    @Test func theGridTakesTheAreaShapeWithTheLargestTiles() {
        let mm = 96 / 25.4, gap = TileBoardModel.gapMillimetres * mm, minimum = TileBoardModel.minimumTileMillimetres * mm
        func grid(_ n: Int, _ w: Double, _ h: Double) -> (columns: Int, tile: Double) {
            TileBoardModel.grid(count: n, area: Size(width: w, height: h), gap: gap, minimumTile: minimum)
        }
        #expect(grid(24, 1200, 600).columns == 6)   // wide: 6 × 4
        #expect(grid(24, 600, 1200).columns == 4)   // tall: 4 × 6
        #expect(grid(24, 800, 800).columns == 5)    // square: 5 × 5 (one short)
        // Fewer tiles, bigger tiles; every tile fits the area.
        #expect(grid(6, 1200, 600).tile > grid(24, 1200, 600).tile)
        for (n, w, h) in [(24, 1200.0, 600.0), (24, 600, 1200), (7, 900, 500), (1, 300, 900)] {
            let g = grid(n, w, h), rows = (n + g.columns - 1) / g.columns
            #expect(Double(g.columns) * g.tile + Double(g.columns - 1) * gap <= w + 1e-9)
            #expect(Double(rows) * g.tile + Double(rows - 1) * gap <= h + 1e-9)
        }
        // Never below 12 mm, even where that overflows.
        #expect(grid(24, 100, 100).tile == minimum)
        #expect(grid(0, 100, 100).columns == 1)
    }

    @Test func removeAndRefill() {
        var m = TileBoardModel()
        m.toggle(3); m.toggle(5)
        #expect(m.removeSelected() == [3, 5])
        #expect(m.tiles.count == 22 && m.selectedIDs.isEmpty)
        let added = m.refill()
        #expect(added.count == 2 && m.tiles.count == 24 && Set(m.tiles.map(\.id)).count == 24)
        #expect(m.isPlausible)
    }
}

@Suite struct TileBoardSceneTests {
    typealias Rig = SceneRig<TileBoardScene>
    func rig(store: StateStore? = nil, size: Size = Size(width: 800, height: 1000)) -> Rig {
        Rig(size: size) { TileBoardScene(fonts: $0, scheduler: $1, store: store) }
    }
    func centre(_ r: Rig, index: Int) -> Point {
        let f = r.scene.tileFrame(index: index)
        return r.scene.board.convert(f.center, to: nil)
    }

    @Test func aTapTogglesATile() {
        let r = rig()
        let p = centre(r, index: 2)
        r.send([touch(1, .began, p.x, p.y)]); r.send([touch(1, .ended, p.x, p.y)])
        #expect(r.scene.model.selectedIDs == [2])
        r.send([touch(1, .began, p.x, p.y)], after: 1); r.send([touch(1, .ended, p.x, p.y)])
        #expect(r.scene.model.selectedIDs.isEmpty)
    }

    @Test func draggingAcrossARowTogglesEachTileOncePerEntry() {
        let r = rig()
        let a = centre(r, index: 0), d = centre(r, index: 3)
        r.send([touch(1, .began, a.x, a.y)])
        // Many small moves: staying inside a tile toggles it only once.
        for i in 1...30 { r.send([touch(1, .moved, a.x + (d.x - a.x) * Double(i) / 30, a.y)]) }
        r.send([touch(1, .ended, d.x, d.y)])
        #expect(r.scene.model.selectedIDs == [0, 1, 2, 3])
        // Back over tile 3 and out and in again: each entry toggles.
        let c = centre(r, index: 2)
        r.send([touch(2, .began, d.x, d.y)], after: 1)   // 3 off
        r.send([touch(2, .moved, c.x, c.y)])             // 2 off
        r.send([touch(2, .moved, d.x, d.y)])             // 3 on again
        r.send([touch(2, .ended, d.x, d.y)])
        #expect(r.scene.model.selectedIDs == [0, 1, 3])
    }

    @Test func twoFingersWorkOnTheirOwnAndACancelPutsBackItsTiles() {
        let r = rig()
        let a0 = centre(r, index: 0), a1 = centre(r, index: 1)
        let cols = r.scene.columns
        let b0 = centre(r, index: cols), b1 = centre(r, index: cols + 1)
        r.send([touch(1, .began, a0.x, a0.y), touch(2, .began, b0.x, b0.y)])
        r.send([touch(1, .moved, a1.x, a1.y), touch(2, .moved, b1.x, b1.y)])
        #expect(Set(r.scene.model.selectedIDs) == [0, 1, cols, cols + 1])
        r.send([touch(1, .ended, a1.x, a1.y)])
        r.send([touch(2, .cancelled, b1.x, b1.y)])
        #expect(Set(r.scene.model.selectedIDs) == [0, 1]) // the cancelled finger left nothing
    }

    @Test func doubleTapRemovesATileWithoutLeavingItToggled() {
        let r = rig()
        let p = centre(r, index: 4)
        for _ in 0..<2 { r.send([touch(1, .began, p.x, p.y)], after: 0.1); r.send([touch(1, .ended, p.x, p.y)], after: 0.05) }
        #expect(r.scene.model.index(of: 4) == nil)
        #expect(r.scene.model.selectedIDs.isEmpty)
        r.wait(0.6)
        #expect(r.scene.tileViews[4] == nil && r.scene.model.tiles.count == 23)
    }

    @Test func removeAndRefillEndWithTilesInTheirGridPlaces() {
        let r = rig()
        #expect(!r.scene.removeButton.isEnabled)
        for i in [1, 2] {
            let p = centre(r, index: i)
            r.send([touch(1, .began, p.x, p.y)], after: 1); r.send([touch(1, .ended, p.x, p.y)])
        }
        #expect(r.scene.removeButton.isEnabled)
        let b = r.scene.removeButton.convert(Point(x: 10, y: 10), to: nil)
        r.send([touch(1, .began, b.x, b.y)], after: 1); r.send([touch(1, .ended, b.x, b.y)])
        #expect(r.scene.model.tiles.count == 22 && !r.scene.removeButton.isEnabled)
        r.wait(0.6)
        for (i, t) in r.scene.model.tiles.enumerated() {
            #expect(r.scene.tileViews[t.id]!.presentation.center == r.scene.tileFrame(index: i).center)
        }
        #expect(r.scene.board.subviews.count == 22) // the removed ones are gone after shrinking
        let f = r.scene.refillButton.convert(Point(x: 10, y: 10), to: nil)
        r.send([touch(1, .began, f.x, f.y)], after: 0.1); r.send([touch(1, .ended, f.x, f.y)])
        r.wait(0.6)
        #expect(r.scene.model.tiles.count == 24 && r.scene.board.subviews.count == 24)
        for (i, t) in r.scene.model.tiles.enumerated() {
            let v = r.scene.tileViews[t.id]!
            #expect(v.presentation.center == r.scene.tileFrame(index: i).center && v.presentation.transform == .identity)
        }
    }

    @Test func anEmptyBoardSaysSo() {
        let r = rig()
        let last = r.scene.model.tiles.count - 1
        let a = centre(r, index: 0), z = centre(r, index: last)
        // Select all by dragging row by row.
        r.send([touch(1, .began, a.x, a.y)])
        for i in 1...last { let p = centre(r, index: i); r.send([touch(1, .moved, p.x, p.y)]) }
        r.send([touch(1, .ended, z.x, z.y)])
        #expect(r.scene.model.selectedIDs.count == 24)
        let b = r.scene.removeButton.convert(Point(x: 10, y: 10), to: nil)
        r.send([touch(1, .began, b.x, b.y)], after: 1); r.send([touch(1, .ended, b.x, b.y)])
        #expect(r.scene.status.text == "The board is empty — tap Refill")
    }

    @Test func rotationChangesColumnsAndSlidesTiles() {
        let r = rig(size: Size(width: 1000, height: 700))
        let before = r.scene.columns
        r.scene.layout(DisplayInfo(size: Size(width: 400, height: 1000)))
        #expect(r.scene.columns < before && r.scene.columns == 3)
        let v = r.scene.tileViews[5]!
        #expect(v.presentation.center != r.scene.tileFrame(index: 5).center) // sliding
        #expect(v.presentation.size != r.scene.tileFrame(index: 5).size)     // and resizing
        r.wait(0.6)
        #expect(v.presentation.center == r.scene.tileFrame(index: 5).center)
        #expect(v.presentation.size == r.scene.tileFrame(index: 5).size)
    }

    @Test func theBoardIsSavedAndRestored() {
        let dir = "/tmp/kiosk-tiles-\(getpid())"
        defer { _ = system("rm -rf \(dir)") }
        let store = StateStore(directory: dir)
        let r = rig(store: store)
        let p = centre(r, index: 7)
        r.send([touch(1, .began, p.x, p.y)]); r.send([touch(1, .ended, p.x, p.y)])
        let q = centre(r, index: 9)
        r.send([touch(1, .began, q.x, q.y)], after: 1); r.send([touch(1, .ended, q.x, q.y)])
        #expect(r.scene.model.selectedIDs == [7, 9])
        r.scene.saveState()
        let again = rig(store: store)
        #expect(again.scene.model == r.scene.model && again.scene.tileViews[7]!.isOn)
    }
}
