#if canImport(Glibc)
import Glibc
#endif
import KioskCore
import KioskRender
import KioskUI
import KioskScenes

/// `kiosk bench --scene exhibits`: an operator's folder of `--items` exhibits (50 by default),
/// each a 4000×3000 photograph as a camera makes it, measured as a visitor meets them: the
/// board's first frame (its pictures still coming), the pictures decoded for their tiles (on the
/// helper thread in the live kiosk), a page opened, and a finger scrolling its text. Each part is
/// a function of its own, so that callgrind (Tests/E2E/tools/frame_cost.py) counts it alone.
enum ExhibitsBench {
    /// The folder, made once per count and kept in /tmp: one photograph named by every exhibit.
    static func folder(count: Int) throws -> String {
        let path = "/tmp/kiosk-bench-exhibits-\(count)-40"
        if access(path + "/exhibits.toml", R_OK) == 0 { return path }
        mkdir(path, 0o755)
        let paragraph = "A photograph as a camera takes it: 4000 by 3000 pixels, a few megabytes, decoded for the size it is shown at."
        let toml = (1...count).map { n in
            "[[exhibit]]\ntitle = \"Exhibit \(n)\"\npicture = \"photo.jpg\"\ntext = \"\"\"\n"
                + Array(repeating: paragraph, count: 40).joined(separator: "\n\n") + "\"\"\"\n"
        }.joined(separator: "\n")
        try write(try Picture.encodeJPEG(photograph(), quality: 90), to: path + "/photo.jpg")
        try write(Array(toml.utf8), to: path + "/exhibits.toml")
        return path
    }

    /// Sky, sea and detail everywhere: what a JPEG decoder has to work through in a photograph.
    static func photograph() -> Image {
        let w = 4000.0, h = 3000.0
        let img = Image(pixelSize: PixelSize(width: 4000, height: 3000), hasAlpha: false)!
        let c = Canvas(image: img)
        for band in 0..<30 {
            let t = Double(band) / 30
            c.fill(Rect(x: 0, y: h * t, width: w, height: h / 30 + 1), color: Color(red: 0.2 + 0.5 * t, green: 0.4 + 0.3 * t, blue: 0.8 - 0.4 * t))
        }
        var rng = SplitMix64(seed: 4000)
        for _ in 0..<6000 {
            let p = Point(x: rng.next(below: w), y: rng.next(below: h))
            c.fillCircle(center: p, radius: 2 + rng.next(below: 40),
                         color: Color(red: rng.next(below: 1), green: rng.next(below: 1), blue: rng.next(below: 1), alpha: 0.6))
        }
        return img
    }

    private static func write(_ bytes: [UInt8], to path: String) throws {
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw BenchFailure(text: "\(path): cannot write: \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        _ = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
    }

    struct BenchFailure: Error, CustomStringConvertible { var text: String; var description: String { text } }

    /// Keeps the decoding it is given until told to run it, as the helper thread would.
    final class QueuedHelper: Helper {
        private var queue: [() -> Void] = []
        var pending: Int { queue.count }
        @discardableResult
        func run<T>(_ work: @escaping @Sendable () -> T, then done: @escaping (T) -> Void) -> HelperTask {
            queue.append { done(work()) }
            return HelperTask()
        }
        func runAll() {
            let q = queue
            queue.removeAll()
            for job in q { job() }
        }
    }

    /// The board's first frame, its pictures not there yet (they come from the helper).
    @inline(never)
    static func firstBoardFrame(_ r: HeadlessRenderer) -> Region { r.renderFrame() }

    /// The board's pictures decoded for their tiles, and the frame that shows them.
    @inline(never)
    static func decodeBoardPictures(_ r: HeadlessRenderer, _ helper: QueuedHelper) -> Region {
        helper.runAll()
        return r.renderFrame()
    }

    /// An exhibit's page opened: its first frame, its picture coming from the helper.
    @inline(never)
    static func openPage(_ r: HeadlessRenderer, _ scene: ExhibitsScene) -> Region {
        scene.open(0)
        return r.renderFrame()
    }

    /// Back to the board and another exhibit's page opened: what every page after the first
    /// costs (the first loads the page's fonts).
    @inline(never)
    static func openAnotherPage(_ r: HeadlessRenderer, _ scene: ExhibitsScene) -> Region {
        scene.close()
        r.renderFrame()
        scene.open(1)
        return r.renderFrame()
    }

    /// A finger dragging the text up, a frame at a time; each frame measured.
    @inline(never)
    static func scrollFrames(_ r: HeadlessRenderer, _ scene: ExhibitsScene, frames: Int) -> BenchResult {
        var result = BenchResult()
        result.totalPixels = r.stage.pixelSize.area
        let text = scene.page.text, start = text.convert(text.bounds, to: nil).center
        var y = start.y
        scene.handle(TouchBatch(time: r.clock.now, points: [TouchPoint(id: 1, phase: .began, location: start)]))
        for frame in 0..<frames {
            r.clock.advance(by: 1.0 / 60)
            // Up, then back down, at a reading pace (120 pt/s), within the text.
            y += frame / 90 % 2 == 0 ? -2 : 2
            let t0 = MonotonicClock.now()
            scene.handle(TouchBatch(time: r.clock.now, points: [TouchPoint(id: 1, phase: .moved, location: Point(x: start.x, y: y))]))
            let damage = r.renderFrame()
            result.frameTimes.append(MonotonicClock.now() - t0)
            result.damagedPixels.append(damage.area)
        }
        scene.handle(TouchBatch(time: r.clock.now, points: [TouchPoint(id: 1, phase: .ended, location: Point(x: start.x, y: y))]))
        return result
    }

    /// The whole measurement, as `kiosk bench --scene exhibits` prints it.
    static func run(options: KioskCommand.HeadlessOptions, count: Int, frames: Int, log: Logger) throws -> String {
        let path = try folder(count: count)
        let helper = QueuedHelper()
        let r = try options.makeRenderer(log: log, workload: { fonts in
            let scene = ExhibitsScene(fonts: fonts, folder: ExhibitsFolder.read(path), helper: helper)
            scene.texts = Settings().kioskTexts
            return scene
        })
        guard let scene = r.stage.scene as? ExhibitsScene else { throw BenchFailure(text: "no exhibits scene") }
        let rssBefore = currentRSSKiB()
        func timed(_ body: () -> Region) -> (ms: Double, damage: Int) {
            let t0 = MonotonicClock.now()
            let d = body()
            return ((MonotonicClock.now() - t0) * 1000, d.area)
        }
        let board = timed { firstBoardFrame(r) }
        let pictures = helper.pending
        let decode = timed { decodeBoardPictures(r, helper) }
        let rssBoard = currentRSSKiB()
        let page = timed { openPage(r, scene) }
        let pagePictures = helper.pending
        let pageDecode = timed { decodeBoardPictures(r, helper) }
        let another = timed { openAnotherPage(r, scene) }
        helper.runAll()
        let rssPage = currentRSSKiB()
        r.run(until: r.clock.now + 1)
        let scroll = scrollFrames(r, scene, frames: frames)
        let size = options.size
        func f(_ v: Double) -> String { String(format2: v) }
        return """
        exhibits at \(size) scale \(options.scale): \(count) exhibits, each a 4000×3000 JPEG (\(scene.perPage) tiles on the board's first page)
        board, first frame:       \(f(board.ms)) ms (pictures coming from the helper thread)
        board's \(pictures) pictures:       \(f(decode.ms)) ms on the helper, \(f(decode.ms / Double(max(1, pictures)))) ms each, for \(Int(scene.tiles[0].picture.bounds.width))-point tiles
        page opened, first frame: \(f(page.ms)) ms (the page's fonts loaded: the first page only)
        page's picture (\(pagePictures)):      \(f(pageDecode.ms)) ms on the helper
        another page opened:      \(f(another.ms)) ms
        scrolling its text:
        \(scroll.report)
        resident memory: \(rssBefore / 1024) MiB made, \(rssBoard / 1024) MiB with the board's pictures, \(rssPage / 1024) MiB with a page open
        """
    }
}
