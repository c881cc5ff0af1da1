import Testing
@testable import KioskCore

/// A 22″ 1920×1080 panel: 3.94 points a millimetre.
private let size = Size(width: 1920, height: 1080)
private let diagonalPoints: Double = (1920.0 * 1920.0 + 1080.0 * 1080.0).squareRoot()
private let mm: Double = diagonalPoints / (22.0 * 25.4)

private let targets = TouchCalibration.targets(in: size)

/// Where a controller whose reports `controller` maps screen points to sends a finger on
/// `target`, give or take `noise` points (a finger is not a pin).
private func taps(_ controller: (Point) -> Point, noise: Double = 1.5, seed: UInt64 = 3, count: Int = 5) -> [TouchCalibration.Sample] {
    var rng = SplitMix64(seed: seed)
    return targets.prefix(count).map { t in
        let p = controller(t)
        return .init(touched: Point(x: p.x + rng.next(below: 2 * noise) - noise, y: p.y + rng.next(below: 2 * noise) - noise), target: t)
    }
}

@Suite struct TouchCalibrationTests {
    static let controllers: [(String, @Sendable (Point) -> Point)] = [
        ("turned 90°", { p in Point(x: p.y / size.height * size.width, y: (1 - p.x / size.width) * size.height) }),
        ("turned 180°", { p in Point(x: size.width - p.x, y: size.height - p.y) }),
        ("turned 270°", { p in Point(x: (1 - p.y / size.height) * size.width, y: p.x / size.width * size.height) }),
        ("mirrored x", { p in Point(x: size.width - p.x, y: p.y) }),
        ("swapped axes", { p in Point(x: p.y / size.height * size.width, y: p.x / size.width * size.height) }),
        ("5 % large", { p in Point(x: 960 + (p.x - 960) * 1.05, y: 540 + (p.y - 540) * 1.05) }),
        ("3 % off", { p in Point(x: p.x + 0.03 * size.width, y: p.y - 0.03 * size.height) }),
        ("mirrored, scaled and off", { p in Point(x: (size.width - p.x) * 0.97 + 25, y: p.y * 1.04 - 18) }),
    ]

    @Test(arguments: 0..<controllers.count) func aKnownControllerIsRecoveredWithinAMillimetre(index: Int) throws {
        let (name, controller) = Self.controllers[index]
        for count in [4, 5] {
            let fit = try TouchCalibration.fit(taps(controller, count: count), tolerance: 5 * mm)
            #expect(fit.rejected == nil)
            // Anywhere on the screen, not only at the targets.
            for x in stride(from: 0.0, through: 1920, by: 240) {
                for y in stride(from: 0.0, through: 1080, by: 180) {
                    let truth = Point(x: x, y: y)
                    let err = fit.transform.apply(controller(truth)).distance(to: truth)
                    #expect(err < 1 * mm, "\(name), \(count) taps: \(err / mm) mm off at \(x),\(y)")
                }
            }
        }
    }

    @Test(arguments: 0..<5) func aMistapIsLeftOutAndNamed(wrong: Int) throws {
        var samples = taps(TouchCalibrationTests.controllers[7].1)
        samples[wrong].touched.x += 40 * mm // the finger landed far from this target
        let fit = try TouchCalibration.fit(samples, tolerance: 5 * mm)
        #expect(fit.rejected == wrong)
        #expect(fit.errorsAfter.enumerated().allSatisfy { $0.offset == wrong || $0.element < 1 * mm }, "\(fit.errorsAfter)")
    }

    @Test func tapsOnALineOrTooFewAreRefusedWithAReason() {
        let line = (0..<5).map { i in TouchCalibration.Sample(touched: Point(x: 100 + 300 * Double(i), y: 540), target: Point(x: 100 + 300 * Double(i), y: 540)) }
        #expect(throws: TouchCalibration.Failure.onALine) { try TouchCalibration.fit(line, tolerance: 20) }
        #expect(throws: TouchCalibration.Failure.tooFew(2)) { try TouchCalibration.fit(Array(line.prefix(2)), tolerance: 20) }
        #expect(TouchCalibration.Failure.onALine.description.contains("line"))
    }

    @Test func theLibinputMatrixIsTheSameMap() throws {
        let fit = try TouchCalibration.fit(taps(TouchCalibrationTests.controllers[3].1, noise: 0), tolerance: 20)
        let m = TouchCalibration.libinputMatrix(fit.transform, size: size)
        // libinput's own example: [-1, 0, 1, 0, 1, 0] undoes a mirrored x.
        for (got, want) in zip(m, [-1.0, 0, 1, 0, 1, 0]) { #expect(abs(got - want) < 1e-9, "\(m)") }
        let back = try #require(TouchCalibration.transform(libinputMatrix: m, size: size))
        #expect(back.apply(Point(x: 100, y: 200)).distance(to: fit.transform.apply(Point(x: 100, y: 200))) < 1e-6)
        #expect(TouchCalibration.transform(libinputMatrix: [0, 0, 0, 0, 0, 0], size: size) == nil)
    }
}
