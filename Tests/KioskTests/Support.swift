import Testing
@testable import KioskRender
@testable import KioskCore
@testable import Kiosk

/// The repository root, found from this file's path (tests read sources and scripts there).
let repositoryRoot: String = {
    var parts = #filePath.split(separator: "/", omittingEmptySubsequences: false)
    parts.removeLast(3) // Tests/KioskTests/Support.swift
    return parts.joined(separator: "/")
}()

func solidImage(_ w: Int32, _ h: Int32, _ color: Color, scale: Int = 1) -> Image {
    let img = Image(pixelSize: PixelSize(width: w, height: h), hasAlpha: true, scale: scale)!
    Canvas(image: img).clear(color)
    return img
}

/// Channel values of a premultiplied 0xAARRGGBB pixel.
func channels(_ p: UInt32) -> (a: Int, r: Int, g: Int, b: Int) {
    (Int(p >> 24), Int((p >> 16) & 0xff), Int((p >> 8) & 0xff), Int(p & 0xff))
}

func touch(_ id: Int32, _ phase: TouchPhase, _ x: Double, _ y: Double) -> TouchPoint {
    TouchPoint(id: id, phase: phase, location: Point(x: x, y: y))
}

/// A font cache per use: tests run in parallel and a FontCache is not thread-safe.
var testFonts: FontCache { FontCache() }

/// The standard kiosk's words in `language`.
func kioskTexts(_ language: Language = .english) -> Texts { Texts(language, table: SceneCatalog.standard.texts) }
