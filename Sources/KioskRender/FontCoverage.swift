import CFontconfig

/// Which characters the installed fonts can draw, from fontconfig's coverage (not by
/// rendering): text an operator configured that would show as boxes is named before a visitor
/// sees it, with the scripts it needs and the Debian package that has them.
public final class FontCoverage {
    private let covers: (UInt32) -> Bool

    /// `covers`: whether some installed font has a glyph for the code point (tests give a set).
    public init(covers: @escaping (UInt32) -> Bool) { self.covers = covers }

    /// Every font fontconfig knows, merged into one character set (read once; fontconfig's own
    /// cache makes it cheap). nil when fontconfig cannot be set up: nothing is reported then.
    public static func installed() -> FontCoverage? {
        guard let config = FcInitLoadConfigAndFonts() else { return nil }
        defer { FcConfigDestroy(config) }
        guard let pattern = FcPatternCreate(), let objects = FcObjectSetCreate() else { return nil }
        defer { FcPatternDestroy(pattern); FcObjectSetDestroy(objects) }
        _ = FcObjectSetAdd(objects, "charset")
        guard let list = FcFontList(config, pattern, objects), let union = FcCharSetCreate() else { return nil }
        defer { FcFontSetDestroy(list) }
        for i in 0..<Int(list.pointee.nfont) {
            var set: OpaquePointer?
            if FcPatternGetCharSet(list.pointee.fonts[i], "charset", 0, &set) == FcResultMatch, let set {
                _ = FcCharSetMerge(union, set, nil)
            }
        }
        return FontCoverage(covers: { FcCharSetHasChar(union, $0) != 0 })
    }

    /// The characters of `text` no installed font has; spaces, controls and the invisible marks
    /// that steer shaping (joiners, direction marks, variation selectors) need no glyph.
    public func missing(in text: String) -> [Unicode.Scalar] {
        text.unicodeScalars.filter { s in
            !(s.properties.isWhitespace || s.properties.generalCategory == .control
              || s.properties.generalCategory == .format || s.properties.isVariationSelector) && !covers(s.value)
        }
    }

    /// One line on what `text` lacks, or nil when every character is covered:
    /// `has 7 characters no installed font covers (Hiragana, Han); install fonts-noto-cjk`.
    public func report(_ text: String) -> String? {
        let gone = missing(in: text)
        guard !gone.isEmpty else { return nil }
        var scripts: [Script] = []
        for s in gone { let script = Script(s); if !scripts.contains(script) { scripts.append(script) } }
        var packages: [String] = []
        for p in scripts.map(\.package) where !packages.contains(p) { packages.append(p) }
        let count = gone.count == 1 ? "1 character" : "\(gone.count) characters"
        return "has \(count) no installed font covers (\(scripts.map(\.name).joined(separator: ", "))); install \(packages.joined(separator: " or "))"
    }

    /// The script a code point belongs to, by Unicode block, as far as a kiosk's fonts go.
    struct Script: Equatable {
        let name: String
        let package: String
        init(_ s: Unicode.Scalar) {
            let v = s.value
            let found = Script.blocks.first { $0.range.contains(v) }
            name = found?.name ?? "symbols"
            package = found?.package ?? "fonts-noto-core"
        }
        private static let cjk = "fonts-noto-cjk", core = "fonts-noto-core", emoji = "fonts-noto-color-emoji"
        private static let latin = "fonts-dejavu-core"
        static let blocks: [(range: ClosedRange<UInt32>, name: String, package: String)] = [
            (0x0000...0x036F, "Latin", latin), (0x1E00...0x1EFF, "Latin", latin),
            (0x0370...0x03FF, "Greek", core), (0x0400...0x052F, "Cyrillic", core), (0x0530...0x058F, "Armenian", core),
            (0x0590...0x05FF, "Hebrew", core), (0x0600...0x06FF, "Arabic", core), (0x0750...0x077F, "Arabic", core),
            (0x08A0...0x08FF, "Arabic", core), (0x0900...0x097F, "Devanagari", core), (0x0980...0x09FF, "Bengali", core),
            (0x0A00...0x0A7F, "Gurmukhi", core), (0x0A80...0x0AFF, "Gujarati", core), (0x0B00...0x0B7F, "Oriya", core),
            (0x0B80...0x0BFF, "Tamil", core), (0x0C00...0x0C7F, "Telugu", core), (0x0C80...0x0CFF, "Kannada", core),
            (0x0D00...0x0D7F, "Malayalam", core), (0x0D80...0x0DFF, "Sinhala", core), (0x0E00...0x0E7F, "Thai", core),
            (0x0E80...0x0EFF, "Lao", core), (0x0F00...0x0FFF, "Tibetan", core), (0x1000...0x109F, "Myanmar", core),
            (0x10A0...0x10FF, "Georgian", core), (0x1100...0x11FF, "Hangul", cjk), (0x1200...0x139F, "Ethiopic", core),
            (0x1780...0x17FF, "Khmer", core), (0x2E80...0x2FDF, "Han", cjk), (0x3000...0x303F, "CJK punctuation", cjk),
            (0x3040...0x309F, "Hiragana", cjk), (0x30A0...0x30FF, "Katakana", cjk), (0x3130...0x318F, "Hangul", cjk),
            (0x31F0...0x31FF, "Katakana", cjk), (0x3400...0x4DBF, "Han", cjk), (0x4E00...0x9FFF, "Han", cjk),
            (0xAC00...0xD7AF, "Hangul", cjk), (0xF900...0xFAFF, "Han", cjk), (0xFB1D...0xFB4F, "Hebrew", core),
            (0xFB50...0xFDFF, "Arabic", core), (0xFE70...0xFEFF, "Arabic", core), (0xFF00...0xFFEF, "CJK punctuation", cjk),
            (0x2600...0x27BF, "Emoji", emoji), (0x1F000...0x1FAFF, "Emoji", emoji), (0x20000...0x3134F, "Han", cjk),
        ]
    }
}
