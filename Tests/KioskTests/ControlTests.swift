import Testing
@testable import KioskUI
@testable import KioskRender
@testable import KioskCore

@Suite struct ControlTests {
    @Test func buttonFiresOnReleaseInsideItsTrackingArea() {
        let h = Harness()
        let b = Button(frame: Rect(x: 100, y: 100, width: 100, height: 50))
        var presses = 0
        b.action = { _ in presses += 1 }
        h.root.addSubview(b)
        h.down(1, 95, 95) // in the enlarged touch-down area (10 pt)
        #expect(b.isHighlighted && b.alpha == b.highlightedAlpha)
        h.move(1, 230, 120) // outside the bounds but inside the 40 pt tracking area
        #expect(b.isHighlighted)
        h.up(1, 230, 120)
        #expect(presses == 1 && !b.isHighlighted && b.alpha == 1)
        h.down(1, 150, 125)
        h.move(1, 300, 125) // beyond the tracking area
        #expect(!b.isHighlighted)
        h.up(1, 300, 125)
        #expect(presses == 1)
        h.down(1, 150, 125)
        h.cancel(1, 150, 125)
        #expect(presses == 1 && !b.isHighlighted)
        b.isEnabled = false
        h.down(1, 150, 125); h.up(1, 150, 125)
        #expect(presses == 1 && b.alpha == b.disabledAlpha)
    }

    @Test func labelShrinksToFitItsWidth() {
        let h = Harness()
        let l = Label(frame: Rect(x: 0, y: 0, width: 120, height: 40))
        l.text = "A rather long caption"
        l.fontSize = 30
        l.adjustsFontSizeToFitWidth = true
        l.minimumScaleFactor = 0.3
        h.root.addSubview(l)
        h.frame()
        #expect(l.effectiveFontSize < 30 && l.effectiveFontSize >= 9)
        let natural = l.sizeThatFits()
        #expect(natural.width > 120)
    }

    @Test func wrapMeasuringWordByWordBreaksWhereLayingOutEveryLineWould() throws {
        // The reference: greedy wrapping that lays out the whole candidate line for every word.
        func reference(_ text: String, font: Font, width: Double) -> [String] {
            var lines: [String] = [], current = ""
            for para in text.split(separator: "\n", omittingEmptySubsequences: false) {
                for word in para.split(separator: " ") {
                    let candidate = current.isEmpty ? String(word) : current + " " + word
                    if !current.isEmpty && font.layout(candidate).width > width { lines.append(current); current = String(word) } else { current = candidate }
                }
                lines.append(current); current = ""
            }
            return lines
        }
        let texts = ["AVAVA To To Ty Ty WAV LT LT yA", "Drag: it rides above your finger and lands where you let go",
                     "Ne\u{301}e\u{301} cafe\u{301} fiance\u{301}e re\u{301}sume\u{301} \u{301}lone mark", "Two fingers:\nturn and pinch the dial",
                     "👍🏽 Thumbs 👨‍👩‍👧 family 🇫🇷 flag", "Averylongwordthatcannotbebrokenanywhere short", "  spaced   out  "]
        let fonts = FontCache()
        for (px, scale) in [(20, 1), (31, 1), (24, 2)] {
            let font = try #require(fonts.font(points: Double(px) / Double(scale), scale: scale))
            for text in texts {
                for width in stride(from: 40.0, through: 420, by: 9) {
                    let lines = Label.wrap(text, font: font, width: width, maxLines: .max)
                    #expect(lines.map(\.text) == reference(text, font: font, width: width), "\(text) in \(width) pt at \(px) px")
                }
            }
        }
    }

    @Test func fitLineTakesTheLargestFittingSizeAndLoadsFewFonts() throws {
        var loaded: [String] = []
        let fonts = FontCache(report: { loaded.append($0) })
        let text = "Peace Love Groovy Music"
        for width in stride(from: 200.0, through: 400, by: 7) {
            let run = try #require(Label.fitLine(text, fonts: fonts, family: "DejaVu Sans", points: 72, scale: 1,
                                                  width: width, minimumScaleFactor: 0.1, pixelStep: 2))
            #expect(run.width <= width + 0.5)
            #expect(run.font.pixelSize % 2 == 0, "\(run.font.pixelSize) px for \(width)")
            // Two pixels larger would not have fitted (the size is the largest that does).
            let bigger = try #require(fonts.font(points: Double(run.font.pixelSize + 2), scale: 1)).layout(text)
            #expect(bigger.width > width + 0.5)
        }
        // Short text never grows past the requested size; an impossible width stops at the minimum.
        #expect(Label.fitLine("Hi", fonts: fonts, family: "DejaVu Sans", points: 20, scale: 2, width: 500, minimumScaleFactor: 0.5)?.font.pixelSize == 40)
        #expect(Label.fitLine(text, fonts: fonts, family: "DejaVu Sans", points: 20, scale: 1, width: 5, minimumScaleFactor: 0.5)?.font.pixelSize == 10)
        #expect(loaded.isEmpty)
    }

    @Test func fitLineOnASizeLadderUsesAFewFonts() throws {
        let fonts = FontCache()
        let ladder = Label.SizeLadder(ratio: 1.1)
        let rungs = Set((0...60).map(ladder.rung))
        #expect(ladder.atMost(72) == 66 && ladder.atMost(73) == 73 && ladder.above(66) == 73 && ladder.above(70) == 73 && ladder.atMost(1) == 1)
        let phrases = ["Peace Love Groovy Music", "Love", "Touch to begin", "Enjoy your visit"]
        var sizes = Set<Int>()
        // The falling words' boxes: 320–640 px wide, 0.3 × as tall, the text 0.6 × the height.
        for width in stride(from: 320.0, through: 640, by: 3) {
            for text in phrases {
                let run = try #require(Label.fitLine(text, fonts: fonts, family: "DejaVu Sans", points: 0.18 * width, scale: 1,
                                                      width: width, minimumScaleFactor: 0.2, sizeRatio: 1.1))
                #expect(run.width <= width + 0.5)
                #expect(rungs.contains(run.font.pixelSize), "\(run.font.pixelSize) px is not on the ladder")
                // The next rung up would not have fitted, or is above the box's own size.
                let up = ladder.above(run.font.pixelSize)
                if up <= Int((0.18 * width).rounded()) {
                    let bigger = try #require(fonts.font(points: Double(up), scale: 1)).layout(text)
                    #expect(bigger.width > width + 0.5, "\(text) at \(width): \(up) px fits too")
                }
                sizes.insert(run.font.pixelSize)
            }
        }
        // 428 labels, sizes from ~24 to 115 px: a 2-pixel step would load ~40 fonts.
        #expect(sizes.count <= 17, "\(sizes.sorted())")
        #expect(fonts.count <= sizes.count + 6)
    }

    @Test func labelWrapsOntoLinesAndDrawsText() {
        let h = Harness()
        let l = Label(frame: Rect(x: 10, y: 10, width: 200, height: 200))
        l.text = "one two three four five six seven eight nine ten"
        l.numberOfLines = 0
        l.fontSize = 20
        l.textColor = .white
        h.root.addSubview(l)
        h.frame()
        var litRows = Set<Int>()
        for y in 10..<210 { for x in stride(from: 10, to: 210, by: 2) where h.rgb(x, y).0 > 128 { litRows.insert(y / 24) } }
        #expect(litRows.count >= 3) // several lines of text
    }

    @Test func imageViewFallsBackAndReportsAMissingFileOnce() {
        let h = Harness()
        let iv = ImageView(frame: Rect(x: 0, y: 0, width: 50, height: 50))
        var reports: [String] = []
        #expect(!iv.load(path: "/nonexistent/rocket.png", report: { reports.append($0) }))
        #expect(reports.count == 1 && reports[0].contains("/nonexistent/rocket.png"))
        var fallbackDrawn = false
        iv.fallback = { c, box in fallbackDrawn = true; c.fill(box, color: .white) }
        h.root.addSubview(iv)
        h.frame()
        #expect(fallbackDrawn && h.rgb(25, 25) == (255, 255, 255))
    }

    @Test func panelClosesOnATapOutsideItsCard() {
        let h = Harness()
        let p = Panel()
        var closed = false
        p.onClose = { closed = true }
        p.present(in: h.root)
        h.frame(advance: 0.3)
        h.down(1, 400, 300); h.up(1, 400, 300) // on the card
        h.frame(advance: 0.3)
        #expect(!closed && p.superview != nil)
        h.down(1, 5, 5); h.up(1, 5, 5)       // outside
        h.frame(advance: 0.3)
        #expect(closed && p.superview == nil)
    }
}
