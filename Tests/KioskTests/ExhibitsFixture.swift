#if canImport(Glibc)
import Glibc
#endif
@testable import KioskRender
@testable import KioskCore

/// A folder of exhibits as an operator writes one, made once per test run: pictures drawn here
/// (a planet each, JPEG and PNG, one stored sideways with an EXIF orientation), texts in the
/// folder's English with French and Arabic tables, an exhibit whose picture is missing.
enum ExhibitsFixture {
    static let folder: String = {
        let path = "/tmp/kiosk-exhibits-\(getpid())"
        mkdir(path, 0o755)
        let planets: [(String, UInt32, UInt32)] = [("moon", 0x9aa0a6, 0x101828), ("mars", 0xc1440e, 0x1a0f0a),
                                                    ("saturn", 0xe3c16f, 0x0b1026), ("earth", 0x2e6fd8, 0x050a18)]
        for (i, p) in planets.enumerated() {
            let img = planet(p.1, sky: p.2, sideways: i == 3)
            let bytes = i == 2 ? try! PNG.encode(img, name: p.0) : try! Picture.encodeJPEG(img, quality: 88, orientation: i == 3 ? 6 : 1)
            write(bytes, to: "\(path)/\(p.0).\(i == 2 ? "png" : "jpg")")
        }
        write(Array(toml.utf8), to: "\(path)/exhibits.toml")
        return path
    }()

    static let toml = """
        [[exhibit]]
        title = "The Moon"
        picture = "moon.jpg"
        text = \"\"\"
        The Moon is Earth's only natural satellite. It is about a quarter of Earth's width, \\
        and the fifth largest moon in the Solar System.

        It always shows Earth the same face: it turns once on its axis in the time it takes \\
        to go round Earth, about 27 days.

        Twelve people have walked on it, between 1969 and 1972. They brought back 382 kg of \\
        rock and dust, and left mirrors that lasers on Earth still bounce light off today.

        Its gravity is a sixth of Earth's: a person who weighs 60 kg here would weigh what \\
        10 kg weighs on Earth there, and could jump six times as high.\"\"\"
        [exhibit.fr]
        title = "La Lune"
        text = "La Lune est le seul satellite naturel de la Terre."
        [exhibit.ar]
        title = "القمر"
        text = "القمر هو التابع الطبيعي الوحيد للأرض."

        [[exhibit]]
        title = "Mars"
        picture = "mars.jpg"
        text = "Mars is the fourth planet from the Sun: a cold desert, red with rust."

        [[exhibit]]
        title = "Saturn"
        picture = "saturn.png"
        text = "Saturn's rings are ice and rock, most of them smaller than a house."

        [[exhibit]]
        title = "Earth"
        picture = "earth.jpg"
        text = "Seen from the Moon, Earth is four times as wide as the Moon seen from Earth."

        [[exhibit]]
        title = "Jupiter"
        picture = "jupiter.jpg"
        text = "Jupiter's picture is missing: its tile shows a placeholder."
        """

    /// A planet on a starry sky, 800×600 (stored 600×800, turned, when `sideways`).
    static func planet(_ colour: UInt32, sky: UInt32, sideways: Bool) -> Image {
        let size = sideways ? PixelSize(width: 600, height: 800) : PixelSize(width: 800, height: 600)
        let img = Image(pixelSize: size, hasAlpha: false)!
        let c = Canvas(image: img)
        let w = Double(size.width), h = Double(size.height)
        c.fill(Rect(x: 0, y: 0, width: w, height: h), color: Color(rgb: sky))
        var rng = SplitMix64(seed: UInt64(colour))
        for _ in 0..<60 { c.fillCircle(center: Point(x: rng.next(below: w), y: rng.next(below: h)), radius: 1.5, color: .white) }
        let centre = sideways ? Point(x: w * 0.55, y: h * 0.5) : Point(x: w * 0.5, y: h * 0.45)
        c.fillCircle(center: centre, radius: min(w, h) * 0.32, color: Color(rgb: colour))
        // A mark to the planet's upper left: which way up the picture is shown.
        c.fillCircle(center: Point(x: centre.x - min(w, h) * 0.12, y: centre.y - min(w, h) * 0.12), radius: min(w, h) * 0.06, color: .white)
        return img
    }

    private static func write(_ bytes: [UInt8], to path: String) {
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        precondition(fd >= 0, "cannot write \(path)")
        _ = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
        close(fd)
    }
}
