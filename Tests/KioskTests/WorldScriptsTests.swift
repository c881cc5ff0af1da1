import Testing
@testable import Kiosk
@testable import KioskScenes
@testable import KioskUI
@testable import KioskRender
@testable import KioskCore

/// The world's scripts drawn from the fonts the tests install (fonts-noto-core, -cjk and
/// -color-emoji, as `make test` installs them): never the box of a missing glyph, emoji in their
/// own colours with the label's alpha, and the screensaver's words in every script as a golden.
@Suite struct WorldScriptsTests {
    static let phrases = [
        "नमस्ते दुनिया",      // Hindi (Devanagari)
        "สวัสดีชาวโลก",       // Thai
        "こんにちは世界",       // Japanese
        "안녕하세요 세계",      // Korean
        "你好，世界",          // Chinese
        "مرحبا بالعالم",      // Arabic
        "שלום עולם",         // Hebrew
        "Привет, мир",       // Russian
        "😀 🎉 🚀 🌍",        // emoji
    ]

    /// Characters a font must draw (not spaces, not marks that only steer shaping).
    private func drawn(_ text: String) -> [Unicode.Scalar] {
        text.unicodeScalars.filter {
            switch $0.properties.generalCategory {
            case .spaceSeparator, .format, .control: return false
            default: return !(0xFE00...0xFE0F).contains($0.value)
            }
        }
    }

    @Test(arguments: phrases) func noCharacterComesOutAsABox(phrase: String) throws {
        let font = try #require(testFonts.font(points: 40, scale: 1))
        let missing = drawn(phrase).filter { font.drawsAsMissing($0) }
        #expect(missing.isEmpty, "\(phrase): \(missing.map { String(format16: $0.value) }) drawn as boxes; install fonts-noto-core, fonts-noto-cjk and fonts-noto-color-emoji")
    }

    @Test func theBoxDetectorSeesABox() throws {
        // Private-use and unassigned code points are in no font: the detector must say so.
        let font = try #require(testFonts.font(points: 40, scale: 1))
        #expect(font.drawsAsMissing(Unicode.Scalar(0x10FFFC)!))
        #expect(font.drawsAsMissing(Unicode.Scalar(0x0378)!))
        #expect(!font.drawsAsMissing("A"))
    }

    @Test func emojiKeepTheirColoursAndTakeTheLabelsAlpha() throws {
        let font = try #require(testFonts.font(points: 60, scale: 1))
        let run = font.layout("😀")
        #expect(run.glyphs.contains { $0.isColor }, "the emoji font gives a colour glyph")
        func render(alpha: Double) throws -> Image {
            let image = try #require(Image(pixelSize: PixelSize(width: 100, height: 100), hasAlpha: false))
            let canvas = Canvas(image: image)
            canvas.fill(Rect(x: 0, y: 0, width: 100, height: 100), color: .black)
            // Drawn in pure blue: a monochrome glyph would come out blue.
            canvas.draw(run, at: Point(x: 10, y: 75), color: Color(rgb: 0x0000ff).withAlpha(alpha))
            return image
        }
        func rgb(_ p: UInt32) -> (r: Int, g: Int, b: Int) { (Int(p >> 16 & 0xff), Int(p >> 8 & 0xff), Int(p & 0xff)) }
        let full = try render(alpha: 1), half = try render(alpha: 0.5)
        var yellow = 0, mostYellow = (x: 0, y: 0, score: -999)
        for y in 0..<100 {
            for x in 0..<100 {
                let c = rgb(full.pixel(x: x, y: y))
                if c.r > 200 && c.g > 150 && c.b < 100 { yellow += 1 }
                if c.r + c.g - 2 * c.b > mostYellow.score { mostYellow = (x, y, c.r + c.g - 2 * c.b) }
            }
        }
        #expect(yellow > 500, "the face is yellow, not the label's blue: \(yellow) yellow pixels")
        let a = rgb(full.pixel(x: mostYellow.x, y: mostYellow.y)), b = rgb(half.pixel(x: mostYellow.x, y: mostYellow.y))
        #expect(abs(b.r - a.r / 2) <= 12 && abs(b.g - a.g / 2) <= 12, "half the alpha, half as bright: \(b) vs \(a)")
    }

    private func words(_ w: Double, _ h: Double) throws -> Image {
        var config = FallingWordsConfig()
        config.phrases = Self.phrases
        let r = try HeadlessRenderer(scene: FallingWordsScene(fonts: testFonts, config: config), info: DisplayInfo(size: Size(width: w, height: h)))
        r.run(until: 5)
        return r.image
    }
    @Test func theWorldsWordsFallLandscape() throws { try GoldenImageTests().assertMatches(try words(1280, 720), "words-world-landscape") }
    @Test func theWorldsWordsFallPortrait() throws { try GoldenImageTests().assertMatches(try words(720, 1280), "words-world-portrait") }
}

extension String {
    init(format16 v: UInt32) { self = "U+" + String(v, radix: 16, uppercase: true) }
}
