import Foundation

/// A phrase kept in the database as its key and values, so that each reader reads it in their own language rather
/// than in the language of whoever caused it: a check-in flag's details, a line of an audit.
///
/// A column holds either a stored phrase, which starts with `storedMark`, or text as it was written: a reason a
/// teacher typed, or words Rollcall stored in English before it stored phrases. Typed text never starts with the
/// mark, a control character that `TextRules.plain` refuses.
extension Phrase {
    /// The first character of a stored phrase.
    public static let storedMark: Character = "\u{1}"

    /// The phrase as a column keeps it: the mark, then the phrase as JSON.
    public func storedText() throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .millisecondsSince1970
        return String(Self.storedMark) + String(decoding: try encoder.encode(self), as: UTF8.self)
    }

    /// What a column holds, as a phrase: a stored phrase, else the text as it is (`older` may read known English
    /// forms of text stored before, to say them in the reader's language too).
    public static func stored(_ text: String, older: (String) -> Phrase? = { _ in nil }) -> Phrase {
        guard text.first == storedMark else { return older(text) ?? .verbatim(text) }
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .millisecondsSince1970
        do {
            return try decoder.decode(Phrase.self, from: Data(text.dropFirst().utf8))
        } catch {
            return .verbatim(String(text.dropFirst()))
        }
    }

    /// Whether a column's text is a stored phrase.
    public static func isStored(_ text: String) -> Bool { text.first == storedMark }
}

extension Phrase: Codable {
    private enum Keys: String, CodingKey {
        case key, values, plural, count, context, verbatim
    }

    public init(from decoder: any Decoder) throws {
        let fields = try decoder.container(keyedBy: Keys.self)
        if let text = try fields.decodeIfPresent(String.self, forKey: .verbatim) {
            self = .verbatim(text)
            return
        }
        self.init(
            key: try fields.decode(String.self, forKey: .key),
            values: try fields.decodeIfPresent([Value].self, forKey: .values) ?? [],
            pluralKey: try fields.decodeIfPresent(String.self, forKey: .plural),
            count: try fields.decodeIfPresent(Int.self, forKey: .count),
            context: try fields.decodeIfPresent(String.self, forKey: .context))
    }

    public func encode(to encoder: any Encoder) throws {
        var fields = encoder.container(keyedBy: Keys.self)
        if isVerbatim {
            try fields.encode(key, forKey: .verbatim)
            return
        }
        try fields.encode(key, forKey: .key)
        if !values.isEmpty { try fields.encode(values, forKey: .values) }
        try fields.encodeIfPresent(pluralKey, forKey: .plural)
        try fields.encodeIfPresent(count, forKey: .count)
        try fields.encodeIfPresent(context, forKey: .context)
    }
}

extension Phrase.Value: Codable {
    private enum Keys: String, CodingKey {
        case text, number, phrase, moment, zone
    }

    public init(from decoder: any Decoder) throws {
        let fields = try decoder.container(keyedBy: Keys.self)
        if let text = try fields.decodeIfPresent(String.self, forKey: .text) {
            self = .text(text)
        } else if let number = try fields.decodeIfPresent(Int.self, forKey: .number) {
            self = .number(number)
        } else if let phrase = try fields.decodeIfPresent(Phrase.self, forKey: .phrase) {
            self = .phrase(phrase)
        } else {
            self = .moment(
                try fields.decode(Date.self, forKey: .moment), zone: try fields.decode(String.self, forKey: .zone))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var fields = encoder.container(keyedBy: Keys.self)
        switch self {
        case .text(let text): try fields.encode(text, forKey: .text)
        case .number(let number): try fields.encode(number, forKey: .number)
        case .phrase(let phrase): try fields.encode(phrase, forKey: .phrase)
        case .moment(let date, let zone):
            try fields.encode(date, forKey: .moment)
            try fields.encode(zone, forKey: .zone)
        }
    }
}
