import Foundation
import Testing
@testable import Kiosk
@testable import KioskPlatform
@testable import KioskScenes
@testable import KioskUI
@testable import KioskRender
@testable import KioskCore

/// Seeded mutation fuzzers for every reader of outside input besides settings (TOMLTests has
/// that one): saved state, theme PNGs, and the touch path from wl_touch events to scenes. Each
/// runs 20,000 inputs in `make test`; `make fuzz` runs them long (`LongFuzzRuns`). A trap ends
/// the test process, which is the failure these look for; each also checks an invariant.
enum Fuzz {
    /// One to six byte-level edits drawn from `tokens` (insert, delete, overwrite, cut,
    /// duplicate a span, replace).
    static func mutate(_ seed: [UInt8], tokens: [[UInt8]], _ rng: inout SplitMix64) -> [UInt8] {
        var doc = seed
        for _ in 0..<(1 + Int(rng.next() % 6)) {
            let at = doc.isEmpty ? 0 : Int(rng.next() % UInt64(doc.count))
            let token = tokens[Int(rng.next() % UInt64(tokens.count))]
            switch rng.next() % 6 {
            case 0: doc.insert(contentsOf: token, at: at)
            case 1: if !doc.isEmpty { doc.remove(at: at) }
            case 2: if !doc.isEmpty { doc[at] = UInt8(truncatingIfNeeded: rng.next()) }
            case 3: doc.removeSubrange(at..<min(doc.count, at + Int(rng.next() % 40)))
            case 4:
                let end = min(doc.count, at + Int(rng.next() % 60))
                doc.insert(contentsOf: Array(doc[at..<end]), at: at)
            default: doc.replaceSubrange(at..<min(doc.count, at + 1), with: token)
            }
        }
        return doc
    }

    // MARK: Saved state

    static let stateSeeds: [[UInt8]] = [
        #"{"nextID":26,"tiles":[{"id":0,"selected":false},{"id":3,"selected":true},{"id":25,"selected":false}]}"#,
        #"{"version":1,"flight":{"x":0.4,"y":0.8,"vx":-3.5,"vy":12.25,"heading":0.3,"fuel":61.5,"outcome":"flying"},"padX":0.7,"padY":0.9}"#,
        #"{"scene":"lander"}"#,
        #"{"speed":300,"padLeft":true,"idleTimeout":30,"rotate":1}"#,
        #"{"words.speed":"300","lander.pad":"\"left\"","shell.idle_timeout":"30","shell.rotate":"90"}"#,
    ].map { Array($0.utf8) }
    static let jsonTokens: [[UInt8]] = ["{", "}", "[", "]", ",", ":", "\"", "\\", "\\u0000", "null", "true", "-", "0", "1e309",
                                        "-1", "9223372036854775807", "-9223372036854775808", "1e-400", "NaN", "\"Infinity\"",
                                        ".5", "é", "\u{FEFF}", "\"nextID\"", "\"tiles\"", "\"flight\"", "\"id\"", "\"selected\"",
                                        "\"x\"", "\"fuel\"", "\"scene\"", "\"speed\"", "\"rotate\"", "\"outcome\""]
        .map { Array($0.utf8) } + [[0], [0xFF]]

    struct StateResult: CustomStringConvertible {
        var decoded = 0, refused = 0, used = 0
        var description: String { "\(decoded) decoded (\(used) plausible and used), \(refused) refused" }
    }

    /// Decodes each mutated file as every saved type; whatever decodes and passes the checks the
    /// kiosk applies is then used the way the kiosk uses it.
    static func savedState(seed: UInt64, count: Int) -> StateResult {
        var rng = SplitMix64(seed: seed)
        var r = StateResult()
        for n in 0..<count {
            let data = Data(mutate(stateSeeds[n % stateSeeds.count], tokens: jsonTokens, &rng))
            var any = false
            if case .success(var board) = StateStore.decode(TileBoardModel.self, from: data) {
                any = true
                if board.isPlausible {
                    r.used += 1
                    for id in board.tiles.map(\.id).prefix(3) { board.toggle(id) }
                    board.removeSelected()
                    for _ in 0..<3 { board.refill(); board.removeSelected() }
                }
            }
            if case .success(let saved) = StateStore.decode(LanderSaved.self, from: data) {
                any = true
                if saved.version == 1 && saved.flight.isPlausible {
                    r.used += 1
                    var m = LanderModel()
                    m.state = saved.flight
                    m.engineOn = true
                    for _ in 0..<120 { m.advance(by: 1.0 / 60) }
                }
            }
            if case .success(let shell) = StateStore.decode(ShellSaved.self, from: data) {
                any = true
                if SceneCatalog.standard.canonicalName(shell.scene) != nil { r.used += 1 }
            }
            if case .success(let panel) = StateStore.decode(PanelSettings.self, from: data) {
                any = true
                var s = Settings()
                panel.apply(to: &s)
                r.used += 1
            }
            if any { r.decoded += 1 } else { r.refused += 1 }
        }
        return r
    }

    // MARK: PNG

    /// Small PNGs as Kiosk writes them (alpha, odd sizes) — the fuzzer's starting points.
    static let pngSeeds: [[UInt8]] = {
        var out: [[UInt8]] = []
        for (w, h) in [(16, 16), (33, 7), (1, 40)] {
            let img = Image(pixelSize: PixelSize(width: Int32(w), height: Int32(h)), hasAlpha: true)!
            let c = Canvas(image: img)
            c.fill(Rect(x: 0, y: 0, width: Double(w) / 2, height: Double(h)), color: Color(red: 1, green: 0.5, blue: 0, alpha: 0.5))
            let path = "/tmp/kiosk-fuzz-seed-\(getpid())-\(w)x\(h).png"
            try? PNG.write(img, path: path)
            if case .success(let b) = readRegularFile(path, limit: 1 << 20) { out.append(b) }
            unlink(path)
        }
        return out
    }()
    static let pngTokens: [[UInt8]] = [[0], [0xFF], [0x7F, 0xFF, 0xFF, 0xFF], [0, 0, 0x40, 0], Array("IHDR".utf8), Array("IDAT".utf8),
                                       Array("IEND".utf8), Array("PLTE".utf8), Array("tRNS".utf8), [0x78, 0x9C], [8, 6, 0, 0, 0], [16, 3, 0, 0, 1]]

    static func png(seed: UInt64, count: Int) -> (decoded: Int, refused: Int, oversized: Int) {
        var rng = SplitMix64(seed: seed)
        var decoded = 0, refused = 0, oversized = 0
        for n in 0..<count {
            let bytes = mutate(pngSeeds[n % pngSeeds.count], tokens: pngTokens, &rng)
            do {
                let img = try PNG.decode(bytes, path: "fuzz.png", limits: .theme)
                decoded += 1
                if img.pixelSize.area > 4 << 20 { oversized += 1 }
            } catch {
                refused += 1
            }
        }
        return (decoded, refused, oversized)
    }

    // MARK: Touch

    /// Random wl_touch event sequences (downs for held ids, ups for unknown ones, frames missing,
    /// cancels mid-gesture, ten fingers) through the accumulator into a scene; after each
    /// cancel and at the end nothing may stay pressed anywhere.
    static func touch(seed: UInt64, count: Int, scene: ViewScene) -> (batches: Int, stuck: Int) {
        var rng = SplitMix64(seed: seed)
        var acc = TouchAccumulator()
        var batches = 0, stuck = 0
        var now = 0.0
        func deliver(_ b: TouchBatch?) {
            guard let b else { return }
            scene.handle(b)
            batches += 1
        }
        for _ in 0..<count {
            now += 0.004
            let id = Int32(rng.next() % 12) - 1 // -1 is the pointer's id
            let p = Point(x: rng.next(below: 1400) - 50, y: rng.next(below: 900) - 50)
            switch rng.next() % 10 {
            case 0, 1, 2: acc.down(id: id, at: p, time: now)
            case 3, 4, 5: acc.motion(id: id, to: p, time: now)
            case 6, 7: if acc.up(id: id, time: now) { deliver(acc.frame()) }
            case 8: deliver(acc.frame())
            default:
                if rng.next() % 4 == 0 {
                    deliver(acc.cancel(at: now))
                    if scene.host.touchesInProgress > 0 { stuck += 1 }
                }
            }
            if rng.next() % 50 == 0 { scene.advance(to: now) }
        }
        deliver(acc.cancel(at: now))
        scene.advance(to: now + 1)
        if scene.host.touchesInProgress > 0 || !acc.active.isEmpty { stuck += 1 }
        return (batches, stuck)
    }
}

@Suite struct FuzzTests {
    @Test func twentyThousandDamagedStateFilesNeverTrap() {
        let r = Fuzz.savedState(seed: 11, count: 20_000)
        #expect(r.decoded > 1000 && r.refused > 1000 && r.used > 500, "\(r)") // both sides are reached
    }

    @Test func twentyThousandDamagedPNGsNeverTrapOrExceedTheLimits() {
        let r = Fuzz.png(seed: 12, count: 20_000)
        #expect(Fuzz.pngSeeds.count == 3)
        #expect(r.oversized == 0)
        #expect(r.refused > 1000 && r.decoded > 100, "\(r)")
    }

    @Test(arguments: ["touch", "tiles", "lander"]) func twentyThousandTouchEventsLeaveNothingPressed(scene name: String) throws {
        let scene = try #require(SceneCatalog.make(name, fonts: FontCache()))
        scene.layout(DisplayInfo(size: Size(width: 1280, height: 800)))
        let r = Fuzz.touch(seed: 13, count: 20_000, scene: scene)
        #expect(r.stuck == 0 && r.batches > 2000, "\(r)")
        if let t = scene as? TouchTestScene { #expect(t.model.fingers.isEmpty) }
    }
}
