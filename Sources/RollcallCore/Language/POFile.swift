import Foundation

/// The entries of a gettext PO file, as translators' tools (Poedit, Weblate, Lokalize) write them.
public struct POFile: Sendable {
    /// One message: its English words, their plural, and the translations (one, or one per plural form).
    public struct Entry: Sendable, Equatable {
        public var context: String?
        public var msgid: String
        public var msgidPlural: String?
        public var translations: [String]
        public var isFuzzy: Bool
        /// Where the message is used (`#:` lines), for translators.
        public var references: [String]
    }

    /// The header's text (the translation of the empty msgid), nil when the file has none.
    public let header: String?
    public let entries: [Entry]

    public init(text: String) throws(CatalogError) {
        var entries: [Entry] = []
        var header: String?
        var current = Draft()
        // The string being continued by a line that starts with a quote.
        var field: Draft.Field?

        func finish(at line: Int) throws(CatalogError) {
            defer { current = Draft() }
            guard let entry = try current.entry(at: line) else { return }
            if entry.msgid.isEmpty && entry.context == nil {
                header = entry.translations.first ?? ""
            } else {
                entries.append(entry)
            }
        }

        let lines = text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline)
        for (offset, raw) in lines.enumerated() {
            let number = offset + 1
            let line = raw.trimmingCharacters(in: .whitespaces)
            if line.isEmpty {
                field = nil
                continue
            }
            if line.hasPrefix("#") {
                if current.msgid != nil && !current.translations.isEmpty { try finish(at: number) }
                current.note(line)
                field = nil
                continue
            }
            if line.hasPrefix("\"") {
                guard let field else {
                    throw CatalogError(line: number, problem: "has a string that continues nothing")
                }
                current.append(try Self.string(line, at: number), to: field)
                continue
            }
            let (next, value) = try Self.keyword(line, at: number)
            // A new msgctxt or msgid after a translation begins the next entry.
            if (next == .context || next == .msgid) && !current.translations.isEmpty { try finish(at: number) }
            if next == .msgid && current.msgid != nil {
                throw CatalogError(line: number, problem: "has a msgid without msgstr before it")
            }
            current.started = true
            current.set(value, to: next)
            field = next
        }
        try finish(at: lines.count)
        self.header = header
        self.entries = entries
    }

    /// A `keyword "string"` line: which field it sets, and to what.
    private static func keyword(_ line: String, at number: Int) throws(CatalogError) -> (Draft.Field, String) {
        guard let space = line.firstIndex(of: " ") else {
            throw CatalogError(line: number, problem: "has a line that is not a keyword and a string")
        }
        let keyword = String(line[..<space])
        let value = try Self.string(line[line.index(after: space)...].trimmingCharacters(in: .whitespaces), at: number)
        switch keyword {
        case "msgctxt": return (.context, value)
        case "msgid": return (.msgid, value)
        case "msgid_plural": return (.msgidPlural, value)
        case "msgstr": return (.translation(0), value)
        default:
            guard keyword.hasPrefix("msgstr["), keyword.hasSuffix("]"),
                let index = Int(keyword.dropFirst(7).dropLast()), index >= 0, index < 10
            else { throw CatalogError(line: number, problem: "has an unknown keyword \(keyword)") }
            return (.translation(index), value)
        }
    }

    /// The header's `Name: value` lines.
    public static func headerFields(_ header: String) -> [String: String] {
        var fields: [String: String] = [:]
        for line in header.split(whereSeparator: \.isNewline) {
            guard let colon = line.firstIndex(of: ":") else { continue }
            fields[String(line[..<colon]).trimmingCharacters(in: .whitespaces)] =
                String(line[line.index(after: colon)...]).trimmingCharacters(in: .whitespaces)
        }
        return fields
    }

    /// A C string as PO files quote it: `"…"` with `\n`, `\t`, `\"` and `\\`.
    private static func string(_ text: some StringProtocol, at line: Int) throws(CatalogError) -> String {
        guard text.count >= 2, text.hasPrefix("\""), text.hasSuffix("\"") else {
            throw CatalogError(line: line, problem: "has a string without its quotes")
        }
        var result = ""
        var escaped = false
        for character in text.dropFirst().dropLast() {
            if escaped {
                switch character {
                case "n": result.append("\n")
                case "t": result.append("\t")
                case "\"", "\\": result.append(character)
                default: throw CatalogError(line: line, problem: "has an unknown escape \\\(character)")
                }
                escaped = false
            } else if character == "\\" {
                escaped = true
            } else if character == "\"" {
                throw CatalogError(line: line, problem: "has a quote inside a string that is not escaped")
            } else {
                result.append(character)
            }
        }
        if escaped { throw CatalogError(line: line, problem: "has a string that ends in a backslash") }
        return result
    }

    private struct Draft {
        /// The entry drafted so far, once one was started.
        func entry(at line: Int) throws(CatalogError) -> Entry? {
            guard started else { return nil }
            guard let msgid else { throw CatalogError(line: line, problem: "has an entry without msgid") }
            let translations = translations.sorted { $0.key < $1.key }.map(\.value)
            if !(msgid.isEmpty && context == nil) && msgidPlural == nil && translations.count != 1 {
                throw CatalogError(line: line, problem: "has a message without one msgstr")
            }
            return Entry(
                context: context, msgid: msgid, msgidPlural: msgidPlural, translations: translations,
                isFuzzy: isFuzzy, references: references)
        }

        /// A comment line: `#,` flags and `#:` references belong to the entry they precede.
        mutating func note(_ line: String) {
            if line.hasPrefix("#,") && line.contains("fuzzy") { isFuzzy = true }
            if line.hasPrefix("#:") { references += line.dropFirst(2).split(separator: " ").map(String.init) }
            started = started || line.hasPrefix("#,") || line.hasPrefix("#:")
        }

        enum Field: Equatable {
            case context, msgid, msgidPlural
            case translation(Int)
        }
        var started = false
        var context: String?
        var msgid: String?
        var msgidPlural: String?
        var translations: [Int: String] = [:]
        var isFuzzy = false
        var references: [String] = []

        mutating func set(_ value: String, to field: Field) {
            switch field {
            case .context: context = value
            case .msgid: msgid = value
            case .msgidPlural: msgidPlural = value
            case .translation(let index): translations[index] = value
            }
        }

        mutating func append(_ value: String, to field: Field) {
            switch field {
            case .context: context = (context ?? "") + value
            case .msgid: msgid = (msgid ?? "") + value
            case .msgidPlural: msgidPlural = (msgidPlural ?? "") + value
            case .translation(let index): translations[index] = (translations[index] ?? "") + value
            }
        }
    }
}
