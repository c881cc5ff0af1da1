import Testing
@testable import Kiosk
@testable import KioskScenes
@testable import KioskUI
@testable import KioskRender
@testable import KioskCore

/// A tall portrait panel mounted high (`[access] reach_height_mm`): what a visitor touches sits
/// below 1220 mm, the highest a seated visitor reaches; above that line the scene is drawn but
/// holds nothing to touch.
@Suite struct ReachTests {
    /// The 22-inch portrait panel of the panel matrix (268 × 476 mm), its top 1500 mm up.
    static let panel = DisplayInfo(size: Size(width: 1080, height: 1920), physicalSize: Size(width: 268, height: 476))

    func shell(_ start: String, mountingHeight: Double) throws -> (Shell, HeadlessRenderer) {
        let fonts = testFonts, s = ManualScheduler()
        let shell = Shell.make(SceneMaking(fonts: fonts, scheduler: s), names: SceneCatalog.standard.visitorScenes, start: start, home: start)
        shell.mountingHeight = mountingHeight
        let renderer = try HeadlessRenderer(scene: shell, info: Self.panel)
        renderer.run(until: 1)
        return (shell, renderer)
    }

    /// Every visible thing a finger is meant to touch, in screen coordinates.
    func targets(_ shell: Shell) -> [(String, Rect)] {
        var out: [(String, Rect)] = []
        func walk(_ v: View) {
            for s in v.subviews where !s.isHidden && s.alpha > 0.01 {
                if s.isAccessibilityElement && s.isUserInteractionEnabled && !(s is Label) {
                    out.append((s.accessibilityIdentifier ?? "\(type(of: s))", s.convert(s.bounds, to: nil)))
                }
                walk(s)
            }
        }
        walk(shell.window)
        return out
    }

    @Test(arguments: SceneCatalog.standard.visitorScenes) func aHighPanelKeepsEveryControlBelowTheReachLine(scene: String) throws {
        let line = (1500 - 1220) * Self.panel.pointsPerMillimetre
        let (high, renderer) = try shell(scene, mountingHeight: 1500)
        let placed = targets(high)
        #expect(placed.count >= 4)
        for (name, frame) in placed { #expect(frame.minY >= line, "\(scene): \(name) at \(frame.minY) pt, above the reach line at \(line) pt") }
        try? PNG.write(renderer.image, path: "/tmp/kiosk-reach-\(scene).png")
        // Not known, or low enough: as before, the bar at the very top.
        let (unknown, _) = try shell(scene, mountingHeight: 0)
        #expect(unknown.sceneBarFrames.map(\.minY).min()! < 20)
        let (low, _) = try shell(scene, mountingHeight: 1200)
        #expect(low.sceneBarFrames == unknown.sceneBarFrames)
    }

    @Test func aPanelMountedTooHighStillShowsItsControlsOnScreen() {
        let band = Reach.unreachableTop(of: Self.panel, mountingHeight: 3000)
        #expect(band == 1920 * Reach.largestBand)
    }
}
