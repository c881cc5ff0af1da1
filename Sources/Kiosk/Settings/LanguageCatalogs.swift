#if canImport(Glibc)
import Glibc
#endif
import KioskCore

/// The kiosk's languages: English, the package's translations (gettext catalogs installed as
/// `/usr/share/kiosk/locale/xx/LC_MESSAGES/kiosk.mo`, found from the executable as
/// `../share/kiosk/locale`, so a build tree finds its own; not /usr/share/locale, which minimized
/// systems leave out with dpkg's path-exclude: the visitors' languages are not optional), and an operator's, dropped into `/etc/kiosk/locale/`
/// (`$KIOSK_LOCALE_DIR` instead, for tests): `pt.po` as a translator saves it, `pt.mo` as msgfmt
/// compiles it, or `pt/LC_MESSAGES/kiosk.mo` as gettext lays them out (the .mo first). An
/// operator's catalog for a language the package has is laid over the package's.
/// Read at start and on every settings reload; a broken catalog is one line and left out.
enum LanguageCatalogs {
    static var directory: String {
        getenv("KIOSK_LOCALE_DIR").map { String(cString: $0) }.flatMap { $0.isEmpty ? nil : $0 } ?? "/etc/kiosk/locale"
    }
    /// `../share/kiosk/locale` from the executable's own folder: /usr/share/kiosk/locale for /usr/bin/kiosk.
    static var shippedDirectory: String {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let n = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        guard n > 0 else { return "/usr/share/kiosk/locale" }
        let exe = String(decoding: buffer[..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return exe.split(separator: "/", omittingEmptySubsequences: false).dropLast(2).joined(separator: "/") + "/share/kiosk/locale"
    }
    /// A catalog is a few dozen KiB; anything much larger is not one.
    static let maxBytes = 1 << 20

    /// English, the package's languages, then the operator's, and one line for each catalog that
    /// could not be used or is incomplete.
    static func load(directory: String = directory, shipped: String = shippedDirectory) -> (languages: [Language], problems: [String]) {
        var languages = [Language.english], problems: [String] = []
        let own = candidates(in: shipped)
        if own.isEmpty { problems.append("\(shipped): no catalogs of the kiosk's own languages; only English and the operator's") }
        for (code, path) in own {
            guard let catalog = usable(path, code: code, problems: &problems) else { continue }
            problems += missing(catalog, path: path)
            languages.append(Language(code: code, catalog: catalog))
        }
        for (code, path) in candidates(in: directory) {
            guard let own = usable(path, code: code, problems: &problems) else { continue }
            guard let i = languages.firstIndex(where: { $0.code == code }), let base = languages[i].catalog else {
                problems += missing(own, path: path)
                languages.append(Language(code: code, catalog: own))
                continue
            }
            do throws(MessageCatalog.CatalogError) {
                languages[i] = Language(code: code, catalog: try own.over(base))
            } catch {
                problems.append("\(path): \(error.message); language '\(code)' keeps the kiosk's own")
            }
        }
        return (languages, problems)
    }

    /// The catalog at `path` without what cannot be used, its problems added to `problems` but
    /// for missing texts (none are missing where it is laid over the package's); nil when it
    /// cannot be read.
    private static func usable(_ path: String, code: String, problems: inout [String]) -> MessageCatalog? {
        switch read(path) {
        case .failure(let why):
            problems.append("\(why); language '\(code)' left out")
            return nil
        case .success(let catalog):
            let (found, unusable) = check(catalog, path: path)
            problems += fuzzy(catalog, path: path) + found
            return catalog.removing(unusable)
        }
    }

    /// Each language's catalog file, by code: `xx.mo`, else `xx/LC_MESSAGES/kiosk.mo`, else `xx.po`.
    static func candidates(in directory: String) -> [(code: String, path: String)] {
        guard let dir = opendir(directory) else { return [] }
        defer { closedir(dir) }
        var codes = Set<String>()
        while let e = readdir(dir) {
            let name = withUnsafeBytes(of: e.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            let code = name.hasSuffix(".po") || name.hasSuffix(".mo") ? String(name.dropLast(3)) : name
            if (2...3).contains(code.count), code.allSatisfy({ $0.isASCII && $0.isLowercase }) { codes.insert(code) }
        }
        return codes.sorted().compactMap { code -> (code: String, path: String)? in
            let paths: [String] = ["\(code).mo", "\(code)/LC_MESSAGES/kiosk.mo", "\(code).po"].map { "\(directory)/\($0)" }
            guard let path = paths.first(where: { access($0, F_OK) == 0 }) else { return nil }
            return (code, path)
        }
    }

    static func read(_ path: String) -> Result<MessageCatalog, CatalogProblem> {
        switch readRegularFile(path, limit: maxBytes) {
        case .failure(let why): return .failure(CatalogProblem(text: "\(path): \(why)"))
        case .success(let bytes):
            do throws(MessageCatalog.CatalogError) {
                return .success(path.hasSuffix(".po") ? try MessageCatalog.read(po: String(decoding: bytes, as: UTF8.self))
                                                     : try MessageCatalog.read(mo: bytes))
            } catch {
                return .failure(CatalogProblem(text: error.line > 0 ? "\(path):\(error.line): \(error.message)" : "\(path): \(error.message)"))
            }
        }
    }

    /// A catalog's translations msgmerge marked fuzzy (their English changed since): named, as
    /// they show in English until a translator checks them.
    static func fuzzy(_ catalog: MessageCatalog, path: String) -> [String] {
        guard !catalog.fuzzy.isEmpty else { return [] }
        return ["\(path): \(catalog.fuzzy.count) translations marked fuzzy (their English changed; shown in English until checked): "
                + catalog.fuzzy.prefix(5).joined(separator: ", ") + (catalog.fuzzy.count > 5 ? ", …" : "")]
    }

    struct CatalogProblem: Error, CustomStringConvertible {
        var text: String
        var description: String { text }
    }

    /// What a catalog gets wrong against the kiosk's English texts: texts with a placeholder the
    /// kiosk does not fill (`unusable`: shown in English), texts it no longer has.
    static func check(_ catalog: MessageCatalog, path: String) -> (problems: [String], unusable: Set<String>) {
        var problems: [String] = [], known = Set<String>(), unusable = Set<String>()
        for m in TemplateMessage.all {
            known.insert(MessageCatalog.key(m.context, m.msgid))
            guard let forms = catalog.messages[MessageCatalog.key(m.context, m.msgid)] else { continue }
            let wanted = TextCatalog.placeholders(m.msgid).union(m.msgidPlural.map(TextCatalog.placeholders) ?? [])
            if let extra = forms.flatMap({ TextCatalog.placeholders($0).subtracting(wanted) }).sorted().first {
                problems.append("\(path): '\(m.context)' uses {\(extra)}, which the kiosk does not fill; shown in English")
                unusable.insert(MessageCatalog.key(m.context, m.msgid))
            }
        }
        let stale = catalog.messages.keys.filter { !known.contains($0) }.compactMap { $0.split(separator: "\u{4}").first.map(String.init) }.sorted()
        if !stale.isEmpty {
            problems.append("\(path): \(stale.count) texts the kiosk no longer has or whose English changed (msgmerge with kiosk texts --pot): \(stale.prefix(5).joined(separator: ", "))")
        }
        return (problems, unusable)
    }

    /// The texts a catalog does not translate (shown in English), a counted one also when it
    /// lacks one of the forms its `Plural-Forms` rule counts (Arabic has six).
    static func missing(_ catalog: MessageCatalog, path: String) -> [String] {
        let missing = TemplateMessage.all.filter { m in
            guard let forms = catalog.messages[MessageCatalog.key(m.context, m.msgid)] else { return true }
            let wanted = m.msgidPlural == nil ? 1 : catalog.plural.count
            return forms.count < wanted || forms.prefix(wanted).contains(where: \.isEmpty)
        }.map(\.context)
        guard !missing.isEmpty else { return [] }
        let named = missing.prefix(5).joined(separator: ", ") + (missing.count > 5 ? ", …" : "")
        return ["\(path): \(missing.count) of \(TemplateMessage.all.count) texts not translated (shown in English): \(named)"]
    }
}

/// A message of the kiosk's translation template: a text key as its context, its English as
/// msgid; a counted text once, by its key without the form, English's "one" and "other".
struct TemplateMessage: Equatable {
    var context: String
    var msgid: String
    var msgidPlural: String?

    /// The standard kiosk's.
    static let all = all(in: SceneCatalog.standard.texts)

    /// Every text of `texts`, the counted ones once.
    static func all(in texts: TextCatalog) -> [TemplateMessage] {
        let english = texts.english
        let plain = texts.keys.filter { !texts.isCounted($0) }.map { TemplateMessage(context: $0, msgid: english[$0]!) }
        let counted = texts.countedKeys.map { TemplateMessage(context: $0, msgid: english["\($0).one"]!, msgidPlural: english["\($0).other"]) }
        return (plain + counted).sorted { $0.context < $1.context }
    }

    /// The template a translator starts a language from (`msginit -i`), as `kiosk texts --pot`
    /// prints it: every text of `texts` (the kiosk's: each part's, each scene's).
    static func pot(_ texts: TextCatalog = SceneCatalog.standard.texts) -> String {
        var lines = [
            "# Kiosk's own words. A language: msginit -i kiosk.pot -l pt, translate, then put pt.po",
            "# (or pt.mo from msgfmt) into /etc/kiosk/locale/ and set [shell] language = \"pt\".",
            "#, fuzzy",
            "msgid \"\"", "msgstr \"\"",
            "\"Project-Id-Version: kiosk\\n\"",
            "\"PO-Revision-Date: YEAR-MO-DA HO:MI+ZONE\\n\"",
            "\"Last-Translator: FULL NAME <EMAIL@ADDRESS>\\n\"",
            "\"Language-Team: LANGUAGE <LL@li.org>\\n\"",
            "\"Language: \\n\"",
            "\"MIME-Version: 1.0\\n\"",
            "\"Content-Type: text/plain; charset=UTF-8\\n\"",
            "\"Content-Transfer-Encoding: 8bit\\n\"",
            "\"Plural-Forms: nplurals=INTEGER; plural=EXPRESSION;\\n\"",
            "\"X-Kiosk-Language-Name: \\n\"",
            "\"X-Kiosk-Direction: ltr\\n\"",
            "\"X-Kiosk-Decimal-Separator: .\\n\"",
        ]
        for m in all(in: texts) {
            lines.append("")
            let filled = TextCatalog.placeholders(m.msgid).union(m.msgidPlural.map(TextCatalog.placeholders) ?? []).sorted()
            if let note = texts.notes[m.context] { lines.append("#. " + note) }
            if !filled.isEmpty { lines.append("#. The kiosk fills in " + filled.map { "{\($0)}" }.joined(separator: ", ") + (filled.count == 1 ? ": keep it" : ": keep each") + " as it is.") }
            lines.append("msgctxt \(poQuoted(m.context))")
            lines.append("msgid \(poQuoted(m.msgid))")
            if let p = m.msgidPlural {
                lines += ["msgid_plural \(poQuoted(p))", "msgstr[0] \"\"", "msgstr[1] \"\""]
            } else {
                lines.append("msgstr \"\"")
            }
        }
        return lines.joined(separator: "\n") + "\n"
    }

    static func poQuoted(_ s: String) -> String {
        var out = "\""
        for c in s.unicodeScalars {
            switch c {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\t": out += "\\t"
            default: out.unicodeScalars.append(c)
            }
        }
        return out + "\""
    }
}
