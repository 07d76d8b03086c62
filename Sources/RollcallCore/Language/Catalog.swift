import Foundation

/// The words of one language: a gettext PO file's translations of Rollcall's English sentences, the rule for its
/// plurals, and the locale its numbers, dates and names follow. A sentence the file does not translate is said in
/// English, as gettext does.
public struct Catalog: Sendable {
    /// The language as a BCP 47 tag (`fr`, `de`, `en-XA`), what `lang` on a page says.
    public let language: String
    /// The language's own name for itself, for the choice on the profile ("Français").
    public let name: String
    public let locale: Locale
    public let plurals: PluralRule
    /// The separator the language's spreadsheets expect in a CSV file: `semicolon` where numbers take a decimal
    /// comma (French, German, Spanish Excel), else `comma`. From the header's `X-CSV-Separator`.
    public var csvSeparator = "comma"
    /// Translations by key (`msgctxt` and `msgid`); each holds the plural forms, or one form.
    private let entries: [String: [String]]

    /// English: the keys are English already, so nothing needs looking up.
    public static let english = Catalog(
        language: "en", name: "English", locale: TimeText.english, plurals: .english, entries: [:])

    public init(language: String, name: String, locale: Locale, plurals: PluralRule, entries: [String: [String]]) {
        self.language = language
        self.name = name
        self.locale = locale
        self.plurals = plurals
        self.entries = entries
    }

    /// A catalog from the text of a PO file. Its header names the language (`Language: fr`) and the plural rule;
    /// `X-Language-Name` names the language in itself. Entries marked fuzzy are left out, as `msgfmt` does.
    public init(po text: String) throws(CatalogError) {
        let file = try POFile(text: text)
        guard let header = file.header else { throw CatalogError(line: 1, problem: "has no header entry") }
        let fields = POFile.headerFields(header)
        guard let language = fields["Language"], !language.isEmpty else {
            throw CatalogError(line: 1, problem: "names no language (Language: in the header)")
        }
        guard let rule = fields["Plural-Forms"].flatMap(PluralRule.init(header:)) else {
            throw CatalogError(line: 1, problem: "has no plural rule Rollcall can read (Plural-Forms: in the header)")
        }
        var entries: [String: [String]] = [:]
        for entry in file.entries where !entry.isFuzzy && !entry.translations.allSatisfy(\.isEmpty) {
            entries[Self.key(entry.msgid, context: entry.context)] = entry.translations
        }
        let tag = language.replacingOccurrences(of: "_", with: "-")
        self.init(
            language: tag, name: fields["X-Language-Name"] ?? tag, locale: Locale(identifier: tag), plurals: rule,
            entries: entries)
        if let separator = fields["X-CSV-Separator"], ["comma", "semicolon", "tab"].contains(separator) {
            csvSeparator = separator
        }
    }

    /// gettext's own join of a context and a message, as `msgfmt` writes it.
    static func key(_ msgid: String, context: String?) -> String {
        context.map { "\($0)\u{4}\(msgid)" } ?? msgid
    }

    /// Whether the catalog translates `msgid`.
    public func translates(_ msgid: String, context: String? = nil) -> Bool {
        entries[Self.key(msgid, context: context)] != nil
    }

    /// The words for an English sentence without values, such as a page's heading.
    public func text(_ msgid: String, context: String? = nil) -> String {
        entries[Self.key(msgid, context: context)]?.first.flatMap { $0.isEmpty ? nil : $0 } ?? msgid
    }

    /// Every form of a translation (one, or one per plural form), empty when the catalog has none.
    public func forms(_ msgid: String, context: String? = nil) -> [String] {
        entries[Self.key(msgid, context: context)] ?? []
    }

    /// The phrase in this language, its values written in: numbers the language's way, inner phrases said too.
    public func say(_ phrase: Phrase) -> String {
        if phrase.isVerbatim { return phrase.key }
        let pattern: String
        if let pluralKey = phrase.pluralKey, let count = phrase.count {
            let form = plurals.form(for: count)
            if let forms = entries[Self.key(phrase.key, context: phrase.context)], form < forms.count,
                !forms[form].isEmpty
            {
                pattern = forms[form]
            } else {
                pattern = PluralRule.english.form(for: count) == 0 ? phrase.key : pluralKey
            }
        } else {
            pattern = text(phrase.key, context: phrase.context)
        }
        guard !phrase.values.isEmpty else { return pattern }
        return Self.fill(pattern) { index in
            guard index < phrase.values.count else { return nil }
            switch phrase.values[index] {
            case .text(let text): return text
            case .number(let number): return self.number(number)
            case .phrase(let inner): return self.say(inner)
            case .moment(let date, let zone): return TimeText(zoneIdentifier: zone, locale: self.locale).moment(date)
            }
        }
    }

    /// A whole number the language's way: "1,234" in English, "1 234" in French, "1.234" in German.
    public func number(_ value: Int) -> String {
        value.formatted(.number.locale(locale)).replacingOccurrences(of: "\u{202F}", with: "\u{A0}")
    }

    /// `pattern` with each `{n}` replaced by value n; a placeholder without a value stays as written.
    static func fill(_ pattern: String, value: (Int) -> String?) -> String {
        var result = ""
        var rest = pattern[...]
        while let open = rest.firstIndex(of: "{") {
            result += rest[..<open]
            let after = rest[rest.index(after: open)...]
            let digits = after.prefix { $0.isASCII && $0.isNumber }
            if !digits.isEmpty, digits.endIndex < after.endIndex, after[digits.endIndex] == "}",
                let index = Int(digits), let text = value(index)
            {
                result += text
                rest = after[after.index(after: digits.endIndex)...]
            } else {
                result += "{"
                rest = after
            }
        }
        return result + rest
    }
}

/// A PO file Rollcall cannot read: where and why.
public struct CatalogError: Error, Equatable, Sendable {
    public var line: Int
    public var problem: String
}
