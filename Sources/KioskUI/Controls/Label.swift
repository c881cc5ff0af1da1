#if canImport(Glibc)
import Glibc
#endif
import KioskCore
import KioskRender

/// Text in a box: font size, colour, alignment, wrapping onto several lines, and shrinking to
/// fit the width down to `minimumScaleFactor`.
///
/// While a label is only moved, its glyphs are composited straight from fcft's glyph cache (the
/// toolkit benchmark measured that cheaper than a cached layer, since a label's box is mostly
/// empty); rotated or scaled labels draw from a layer. `Label.rendering` forces either, for
/// benchmarks.
open class Label: View {
    /// `.left` and `.right` are the leading and trailing sides: swapped in a right-to-left
    /// layout (`View.isRightToLeft`), as UIKit's natural alignment; `.center` stays.
    public enum Alignment: Sendable { case left, center, right }
    public enum Rendering: Sendable { case glyphs, layer }
    nonisolated(unsafe) public static var rendering = Rendering.glyphs

    public var text = "" { didSet { if text != oldValue { textChanged() } } }
    public var fontSize: Double = 17 { didSet { if fontSize != oldValue { textChanged() } } }
    public var fontFamily = "DejaVu Sans" { didSet { if fontFamily != oldValue { textChanged() } } }
    public var textColor: Color = .white { didSet { if textColor != oldValue { setNeedsDisplay() } } }
    public var alignment: Alignment = .left { didSet { if alignment != oldValue { textChanged() } } }
    /// 1 for a single line; 0 for as many as fit.
    public var numberOfLines = 1 { didSet { if numberOfLines != oldValue { textChanged() } } }
    public var adjustsFontSizeToFitWidth = false { didSet { textChanged() } }
    public var minimumScaleFactor = 0.5 { didSet { textChanged() } }

    open override var drawsContent: Bool { true }
    open override var drawsDirectly: Bool { Label.rendering == .glyphs && cornerRadius == 0 && borderWidth == 0 }

    private struct Line { let run: TextRun; let origin: Point }
    private var lines: [Line] = []
    private var linesValid = false
    private var laidOutScale = 0
    private var laidOutSize = Size.zero

    public override init(frame: Rect = .zero) {
        super.init(frame: frame)
        isAccessibilityElement = true
        accessibilityTraits = .staticText
    }

    open override var spokenLabel: String? { accessibilityLabel ?? (text.isEmpty ? nil : text) }

    private func textChanged() {
        linesValid = false
        setNeedsDisplay()
    }

    open override func layoutDirectionDidChange() {
        super.layoutDirectionDidChange()
        if alignment != .center { textChanged() }
    }

    /// The side the text keeps to on screen.
    private var effectiveAlignment: Alignment {
        guard isRightToLeft else { return alignment }
        switch alignment {
        case .left: return .right
        case .right: return .left
        case .center: return .center
        }
    }

    /// The font size actually used after shrinking to fit.
    public private(set) var effectiveFontSize: Double = 17

    private func layoutText(scale: Int) {
        if linesValid && laidOutScale == scale && laidOutSize == bounds.size { return }
        laidOutScale = scale; laidOutSize = bounds.size; linesValid = true
        lines.removeAll()
        guard let fonts = root?.fonts, !text.isEmpty,
              let (size, wrapped) = Label.fit(fonts: fonts, family: fontFamily, points: fontSize, scale: scale, width: bounds.width,
                                              minimumScaleFactor: adjustsFontSizeToFitWidth ? minimumScaleFactor : 1, lines: wrap)
        else { return }
        effectiveFontSize = size
        guard let first = wrapped.first else { return }
        let lineHeight = first.font.lineHeight
        let total = lineHeight * Double(wrapped.count)
        var y = (bounds.height - total) / 2 + first.font.ascent
        for run in wrapped {
            let x: Double
            switch effectiveAlignment {
            case .left: x = 0
            case .center: x = (bounds.width - run.width) / 2
            case .right: x = bounds.width - run.width
            }
            lines.append(Line(run: run, origin: Point(x: x, y: y)))
            y += lineHeight
        }
    }

    /// The largest font size from `points` down to `points × minimumScaleFactor` at which the
    /// lines made by `lines` fit `width`, and those lines (nil: the font cannot be loaded).
    public static func fit(fonts: FontCache, family: String, points: Double, scale: Int, width: Double,
                           minimumScaleFactor: Double, lines: (Font) -> [TextRun]) -> (Double, [TextRun])? {
        var size = points
        while true {
            guard let font = fonts.font(family, points: size, scale: scale) else { return nil }
            let wrapped = lines(font)
            let widest = wrapped.map(\.width).max() ?? 0
            if widest > width + 0.5 && size > points * minimumScaleFactor + 0.01 {
                size = max(points * minimumScaleFactor, size * min(0.95, width / max(widest, 1)))
                continue
            }
            return (size, wrapped)
        }
    }

    /// One line of `text` at the largest whole-pixel size from `points` down to `points ×
    /// minimumScaleFactor` that fits `width`, measured once at a shared reference size instead of
    /// by trying sizes: every size tried is a font loaded and kept (~110 KB each), and a
    /// screensaver of labels in random sizes would otherwise load dozens. `pixelStep` rounds the
    /// size down to a multiple of that many pixels, for fewer fonts still; `sizeRatio` (> 1)
    /// instead keeps to a geometric ladder of sizes, each about that much larger than the last
    /// (1.1: 13 sizes from 20 to 72 px, where a 2-pixel step needs 27).
    public static func fitLine(_ text: String, fonts: FontCache, family: String, points: Double, scale: Int,
                               width: Double, minimumScaleFactor: Double, pixelStep: Int = 1,
                               sizeRatio: Double? = nil) -> TextRun? {
        let run = fonts.runs(of: text, family: family, scale: scale)
        let px = fitSize(points: points, scale: scale, width: width, minimumScaleFactor: minimumScaleFactor,
                         pixelStep: pixelStep, sizeRatio: sizeRatio, widthAt: { run($0)?.width })
        return px.flatMap(run)
    }

    /// The pixel size `fitLine` chooses, given the text's width in points at a pixel size
    /// (`widthAt`, nil where no font loads): for a caller that remembers widths instead of
    /// keeping fonts.
    public static func fitSize(points: Double, scale: Int, width: Double, minimumScaleFactor: Double,
                               pixelStep: Int = 1, sizeRatio: Double? = nil, widthAt: (Int) -> Double?) -> Int? {
        let referencePx = max(1, Int((32.0 * Double(scale)).rounded()))
        guard let measured = widthAt(referencePx) else { return nil }
        let maxPx = max(1, Int((points * Double(scale)).rounded()))
        let minPx = min(maxPx, max(1, Int((points * minimumScaleFactor * Double(scale)).rounded(.up))))
        let ladder = sizeRatio.flatMap { $0 > 1.001 ? SizeLadder(ratio: $0) : nil }
        let step = max(1, pixelStep)
        func snap(_ p: Int) -> Int {
            let q = min(maxPx, p)
            return max(minPx, ladder?.atMost(q) ?? (q / step * step))
        }
        func smaller(_ p: Int) -> Int { snap(p - (ladder == nil ? step : 1)) }
        func larger(_ p: Int) -> Int { snap(ladder?.above(p) ?? (p + step)) }
        func fits(_ w: Double) -> Bool { w <= width + 0.5 }
        var px = snap(measured > 0 ? Int((Double(referencePx) * width / measured).rounded(.down)) : maxPx)
        guard var best = widthAt(px) else { return nil }
        // Hinting makes widths only nearly proportional to the size: correct the estimate by a
        // step or two, down while it is too wide, then up while the next size still fits.
        while !fits(best), smaller(px) < px, let w = widthAt(smaller(px)) { px = smaller(px); best = w }
        while fits(best), larger(px) > px, let w = widthAt(larger(px)), fits(w) { px = larger(px); best = w }
        return px
    }

    /// Whole-pixel sizes `round(ratio^k)`: a few font sizes for text fitted to any box.
    struct SizeLadder {
        let ratio: Double
        func rung(_ k: Int) -> Int { max(1, Int(pow(ratio, Double(k)).rounded())) }
        /// The largest size on the ladder not above `p` (1 at least).
        func atMost(_ p: Int) -> Int {
            var k = Int((log(Double(max(1, p))) / log(ratio)).rounded(.down)) + 1
            while k > 0, rung(k) > p { k -= 1 }
            return rung(k)
        }
        /// The smallest size on the ladder above `p`.
        func above(_ p: Int) -> Int {
            var k = max(0, Int((log(Double(max(1, p))) / log(ratio)).rounded(.down)) - 1)
            while rung(k) <= p { k += 1 }
            return rung(k)
        }
    }

    /// Greedy word wrap into at most `numberOfLines` lines (0: as many as fit the height).
    private func wrap(font: Font) -> [TextRun] {
        if numberOfLines == 1 { return [font.layout(text)] }
        return Label.wrap(text, font: font, width: bounds.width, maxLines: maxLines(font: font))
    }

    /// Lines the box holds: `numberOfLines`, or (0) as many as fit its height — with a little
    /// slack, so a box made exactly n lines tall is not cut to n − 1 by rounding.
    private func maxLines(font: Font) -> Int {
        numberOfLines > 0 ? numberOfLines : max(1, Int((bounds.height + 0.5) / max(1, font.lineHeight)))
    }

    /// Whether the text does not fit the box as drawn on this root: a single line too wide, or
    /// more wrapped lines than the box holds (the last one shown would end in an ellipsis). A
    /// label that shrinks its font to fit is judged at its smallest size.
    public var isTextTruncated: Bool {
        guard let root, !text.isEmpty,
              let font = root.fonts.font(fontFamily, points: fontSize * (adjustsFontSizeToFitWidth ? minimumScaleFactor : 1), scale: root.info.scale)
        else { return false }
        if numberOfLines == 1 { return font.layout(text).width > bounds.width + 0.5 }
        let lines = Label.wrap(text, font: font, width: bounds.width, maxLines: .max)
        return lines.count > maxLines(font: font) || lines.contains { $0.width > bounds.width + 0.5 }
    }

    /// `text` broken at spaces (and at newlines) into lines no wider than `width` where a word
    /// allows; past `maxLines` the last line kept ends in an ellipsis.
    package static func wrap(_ text: String, font: Font, width: Double, maxLines: Int) -> [TextRun] {
        var result: [TextRun] = []
        var current = ""
        // A line's width grows word by word (the word's advance after the line's last letter)
        // instead of laying the whole line out again for every word; scripts shaped a whole run
        // at a time are measured as whole lines.
        let measuresByWord = !TextRun.needsContextualShaping(text)
        var currentPixels: Int32 = 0, currentLast: UInt32?
        let paragraphs = text.split(separator: "\n", omittingEmptySubsequences: false)
        for (pi, para) in paragraphs.enumerated() {
            for (word, joiner) in Label.breakPieces(para) {
                let candidate = current.isEmpty ? word : current + joiner + word
                let tooWide: Bool
                if measuresByWord {
                    let added = font.advance(of: current.isEmpty ? word : joiner + word, after: current.isEmpty ? nil : currentLast)
                    let pixels = (current.isEmpty ? 0 : currentPixels) + added.pixels
                    tooWide = !current.isEmpty && Double(pixels) / Double(font.scale) > width
                    if tooWide {
                        let first = font.advance(of: word, after: nil)
                        currentPixels = first.pixels; currentLast = first.last
                    } else {
                        currentPixels = pixels; currentLast = added.last ?? currentLast
                    }
                } else {
                    tooWide = !current.isEmpty && font.layout(candidate).width > width
                }
                if tooWide {
                    result.append(font.layout(current))
                    current = word
                } else {
                    current = candidate
                }
            }
            if !current.isEmpty || pi < paragraphs.count - 1 { result.append(font.layout(current)); current = "" }
        }
        if result.count > maxLines {
            result = Array(result.prefix(maxLines))
            // Mark the cut with an ellipsis on the last line.
            if let last = result.popLast() { result.append(font.layout(last.text + "…")) }
        }
        return result
    }

    /// `para` cut where a line may break, each piece with what joins it to the one before: at
    /// spaces (" "), and between Chinese or Japanese characters (""), which have no spaces —
    /// but never before closing punctuation or a small kana, nor after an opening bracket.
    package static func breakPieces(_ para: Substring) -> [(String, String)] {
        // Most text has no such characters: words at spaces, without a look at each character.
        guard para.unicodeScalars.contains(where: { $0.value >= 0x2E80 }) else {
            return para.split(separator: " ").map { (String($0), " ") }
        }
        var pieces: [(String, String)] = []
        for word in para.split(separator: " ") {
            var joiner = " ", current = ""
            var previous: Character?
            for c in word {
                if let p = previous, breaksBetween(p, c) {
                    pieces.append((current, joiner)); current = ""; joiner = ""
                }
                current.append(c)
                previous = c
            }
            pieces.append((current, joiner))
        }
        return pieces
    }

    private static func isIdeographic(_ c: Character) -> Bool {
        guard let v = c.unicodeScalars.first?.value else { return false }
        return (0x2E80...0x9FFF).contains(v) || (0xF900...0xFAFF).contains(v) || (0xFF00...0xFFEF).contains(v)
            || (0x20000...0x3FFFF).contains(v)
    }

    private static let noBreakBefore: Set<Character> = Set("、。，．・：；？！ー々ぁぃぅぇぉっゃゅょゎァィゥェォッャュョヮヵヶ」』）］｝〕〉》】〙〗〟’”)]}!?.,:;%")
    private static let noBreakAfter: Set<Character> = Set("「『（［｛〔〈《【〘〖〝‘“([{")

    private static func breaksBetween(_ a: Character, _ b: Character) -> Bool {
        (isIdeographic(a) || isIdeographic(b)) && !noBreakBefore.contains(b) && !noBreakAfter.contains(a)
    }

    /// The size the text needs at its font size (single line: natural width).
    public func sizeThatFits(scale: Int = 1) -> Size {
        guard let font = measuring?.fonts.font(fontFamily, points: fontSize, scale: scale) else { return .zero }
        let run = font.layout(text)
        return Size(width: run.width, height: font.lineHeight)
    }

    /// The size the text needs within `width`: wrapped onto lines unless `numberOfLines` is 1
    /// (in points, measured with the fonts of the display's scale, as drawn: `measuring`).
    public func sizeThatFits(width: Double) -> Size {
        guard let m = measuring, let font = m.fonts.font(fontFamily, points: fontSize, scale: m.info.scale) else { return .zero }
        let lines = numberOfLines == 1 ? [font.layout(text)]
            : Label.wrap(text, font: font, width: width, maxLines: numberOfLines > 0 ? numberOfLines : .max)
        return Size(width: lines.map(\.width).max() ?? 0, height: font.lineHeight * Double(max(1, lines.count)))
    }

    open override func prepareContent(scale: Int) {
        if drawsDirectly { layoutText(scale: scale) } else { super.prepareContent(scale: scale) }
    }

    open override func draw(in canvas: Canvas) {
        layoutText(scale: canvas.scale)
        for l in lines { canvas.draw(l.run, at: l.origin, color: textColor) }
    }

    open override func drawDirectly(in canvas: Canvas, origin: Point, alpha: Double) {
        layoutText(scale: canvas.scale)
        let c = textColor.withAlpha(textColor.alpha * alpha)
        for l in lines { canvas.draw(l.run, at: origin + l.origin, color: c) }
    }
}
