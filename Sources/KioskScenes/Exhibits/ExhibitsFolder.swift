#if canImport(Glibc)
import Glibc
#endif
import KioskCore
import KioskRender

/// One exhibit an operator wrote: a title, a picture and paragraphs of text, in the folder's
/// own language and in any others it gives (`[exhibit.fr]`).
public struct Exhibit: Equatable, Sendable {
    public struct Words: Equatable, Sendable {
        public var title: String
        /// Paragraphs, in order.
        public var paragraphs: [String]
    }
    /// In the folder's own language (the kiosk's, as the operator wrote it).
    public var words: Words
    /// The picture's path (absolute: the folder's path joined), if it names one.
    public var picture: String?
    /// Another language's words: a title, text, or both.
    public struct Translation: Equatable, Sendable {
        public var title: String?
        public var paragraphs: [String]?
    }
    /// Other languages' words by ISO 639-1 code.
    public var translations: [String: Translation] = [:]

    /// The words in `language` where the folder has them, else the folder's own.
    public func words(in language: String) -> Words {
        guard let t = translations[language] else { return words }
        return Words(title: t.title ?? words.title, paragraphs: t.paragraphs ?? words.paragraphs)
    }

    /// `text` as paragraphs: a blank line between two; the lines of one joined by a space (an
    /// editor's wrapping is not the operator's line break).
    public static func paragraphs(_ text: String) -> [String] {
        var out: [String] = [], current: [String] = []
        for raw in text.split(separator: "\n", omittingEmptySubsequences: false) {
            let line = String(raw).trimmingCharacters(in: " \t\r")
            if line.isEmpty {
                if !current.isEmpty { out.append(current.joined(separator: " ")); current = [] }
            } else {
                current.append(line)
            }
        }
        if !current.isEmpty { out.append(current.joined(separator: " ")) }
        return out
    }
}

/// An operator's folder of exhibits: `exhibits.toml` and the pictures it names.
///
/// ```toml
/// [[exhibit]]
/// title = "The Moon"
/// picture = "moon.jpg"
/// text = """
/// The Moon is Earth's only natural satellite.
///
/// It is about a quarter of Earth's width."""
/// [exhibit.fr]
/// title = "La Lune"
/// text = "La Lune est le seul satellite naturel de la Terre."
/// ```
///
/// What is wrong in it is said once per problem, naming the file, line and column; an exhibit
/// without a title is left out, everything else that can be used is.
public struct ExhibitsFolder: Equatable, Sendable {
    public static let fileName = "exhibits.toml"
    /// The most exhibits read (a board of more would be pages nobody turns).
    public static let maxExhibits = 500

    public struct Problem: Equatable, Sendable, CustomStringConvertible {
        public var file: String
        public var line: Int
        public var column: Int
        public var message: String
        public var description: String { line > 0 ? "\(file):\(line):\(column): \(message)" : "\(file): \(message)" }
    }

    public var path: String
    public var exhibits: [Exhibit] = []
    public var problems: [Problem] = []

    public init(path: String, exhibits: [Exhibit] = [], problems: [Problem] = []) {
        (self.path, self.exhibits, self.problems) = (path, exhibits, problems)
    }

    public var file: String { path + "/" + Self.fileName }

    /// Reads the folder at `path`. A missing folder or file is one problem; nothing is shown.
    public static func read(_ path: String) -> ExhibitsFolder {
        var folder = ExhibitsFolder(path: path)
        switch readRegularFile(folder.file, limit: 4 << 20) {
        case .success(let bytes):
            folder.parse(bytes)
        case .failure(let why):
            var st = stat()
            let exists = stat(path, &st) == 0, isFolder = exists && (st.st_mode & S_IFMT) == S_IFDIR
            let message = isFolder ? why.description : exists ? "not a folder" : "the folder does not exist"
            folder.problems.append(Problem(file: isFolder ? folder.file : path, line: 0, column: 0, message: message + ": no exhibits to show"))
        }
        return folder
    }

    mutating func parse(_ bytes: [UInt8]) {
        let table: TOML.Table
        do {
            table = try TOML.parse(bytes, limits: TOML.Limits(maxBytes: 4 << 20, maxStringBytes: 256 * 1024))
        } catch {
            problem(error.position, "\(error.message): no exhibits to show")
            return
        }
        for key in table.keys where key != "exhibit" {
            problem(table[key]!.keyPosition, "unknown key '\(key)': exhibits are [[exhibit]] tables")
        }
        guard let list = table["exhibit"] else {
            problems.append(Problem(file: file, line: 0, column: 0, message: "no [[exhibit]] in it: no exhibits to show"))
            return
        }
        guard let items = list.array, items.allSatisfy({ $0.table != nil }) else {
            problem(list.position, "'exhibit' must be [[exhibit]] tables")
            return
        }
        for (n, item) in items.enumerated() {
            guard exhibits.count < Self.maxExhibits else {
                problem(item.position, "more than \(Self.maxExhibits) exhibits: the rest are left out")
                break
            }
            if let e = exhibit(item.table!, number: n + 1, at: item.position) { exhibits.append(e) }
        }
    }

    private static let itemKeys = ["title", "picture", "text"]

    private mutating func exhibit(_ t: TOML.Table, number: Int, at position: TOML.Position) -> Exhibit? {
        var title: String?, picture: String?, text: String?
        var translations: [String: Exhibit.Translation] = [:]
        for key in t.keys {
            let node = t[key]!
            switch key {
            case "title": title = string(node, "title")
            case "picture": picture = string(node, "picture")
            case "text": text = string(node, "text")
            default:
                guard Self.isLanguageCode(key), let sub = node.table else {
                    let near = Self.itemKeys.first { TextCatalog.editDistance(Array($0), Array(key)) <= 2 }.map { " (did you mean '\($0)'?)" } ?? ""
                    problem(node.keyPosition, "unknown key '\(key)'\(near): an exhibit has title, picture, text and a table for each language ([exhibit.fr])")
                    continue
                }
                translations[key] = words(sub, language: key)
            }
        }
        guard let title, !title.trimmingCharacters(in: " \t").isEmpty else {
            problem(position, "exhibit \(number) has no title: left out")
            return nil
        }
        let path = picture.map { $0.hasPrefix("/") ? $0 : self.path + "/" + $0 }
        return Exhibit(words: .init(title: title, paragraphs: Exhibit.paragraphs(text ?? "")), picture: path, translations: translations)
    }

    private mutating func words(_ t: TOML.Table, language: String) -> Exhibit.Translation {
        var title: String?, text: String?
        for key in t.keys {
            let node = t[key]!
            switch key {
            case "title": title = string(node, "title")
            case "text": text = string(node, "text")
            default: problem(node.keyPosition, "unknown key '\(key)' in [exhibit.\(language)]: a language's table has title and text")
            }
        }
        return Exhibit.Translation(title: title, paragraphs: text.map(Exhibit.paragraphs))
    }

    private mutating func string(_ node: TOML.Node, _ name: String) -> String? {
        guard let s = node.string else {
            problem(node.position, "\(name) must be a string in quotes")
            return nil
        }
        return s
    }

    private mutating func problem(_ at: TOML.Position, _ message: String) {
        problems.append(Problem(file: file, line: at.line, column: at.column, message: message))
    }

    /// Everything `kiosk check-config` says of the folder: its file's problems, then each picture
    /// that cannot be shown, and words the installed fonts would draw as boxes (`coverage`).
    public func checked(coverage: () -> FontCoverage?) -> [Problem] {
        var out = problems
        for e in exhibits {
            guard let path = e.picture else { continue }
            do throws(Picture.Failure) {
                _ = try Picture.read(path: path, box: PixelSize(width: 64, height: 48), fit: .inside)
            } catch {
                out.append(Problem(file: path, line: 0, column: 0, message: "\(error.reason): its tile and page show a placeholder"))
            }
        }
        let words = exhibits.flatMap { e in [e.words] + e.translations.keys.sorted().map { e.words(in: $0) } }
        let beyondLatin = words.flatMap { [$0.title] + $0.paragraphs }.filter { $0.unicodeScalars.contains { $0.value > 0x24F } }
        if !beyondLatin.isEmpty, let fonts = coverage() {
            for text in Set(beyondLatin).sorted() {
                if let why = fonts.report(text) { out.append(Problem(file: file, line: 0, column: 0, message: "\"\(text.prefix(40))\" \(why)")) }
            }
        }
        return out
    }

    /// "fr", "pt": two or three lowercase letters, as ISO 639 codes are.
    static func isLanguageCode(_ s: String) -> Bool { (2...3).contains(s.count) && s.allSatisfy { $0.isASCII && $0.isLowercase } }
}

extension String {
    func trimmingCharacters(in set: String) -> String {
        let chars = Set(set)
        var sub = self[...]
        while let f = sub.first, chars.contains(f) { sub = sub.dropFirst() }
        while let l = sub.last, chars.contains(l) { sub = sub.dropLast() }
        return String(sub)
    }
}
