import Foundation

/// A sentence for a person, kept as its English words with the values apart, so that it can be said in any
/// language the catalogs know: `"Line \(3) is empty."` is the key `"Line {0} is empty."` and the value 3.
public struct Phrase: Sendable, Hashable, ExpressibleByStringInterpolation, CustomStringConvertible {
    /// One value of a phrase: text as it is, a number written the language's way, a phrase said in turn, or a
    /// moment written the language's way in the zone named (an IANA identifier).
    public enum Value: Sendable, Hashable {
        case text(String)
        case number(Int)
        case phrase(Phrase)
        case moment(Date, zone: String)
    }

    /// The English words with `{0}`, `{1}`… where the values go: what a catalog's `msgid` holds.
    public let key: String
    /// The English plural (`msgid_plural`), when the phrase counts something.
    public let pluralKey: String?
    /// The number that picks the plural form.
    public let count: Int?
    public let values: [Value]
    /// Text that is already in the reader's language (a name, a code): said as it is, never looked up.
    public let isVerbatim: Bool
    /// gettext's `msgctxt`: which of two meanings the same English words have ("Mark" attendance or a quiz).
    public let context: String?

    public init(stringLiteral value: String) {
        self.init(key: value, values: [])
    }

    public init(stringInterpolation: Interpolation) {
        self.init(key: stringInterpolation.key, values: stringInterpolation.values)
    }

    public init(
        key: String, values: [Value] = [], pluralKey: String? = nil, count: Int? = nil, context: String? = nil
    ) {
        self.key = key
        self.values = values
        self.pluralKey = pluralKey
        self.count = count
        self.isVerbatim = false
        self.context = context
    }

    /// The same words in one of their meanings, as a catalog's `msgctxt` names it.
    public func meaning(_ context: String) -> Phrase {
        Phrase(key: key, values: values, pluralKey: pluralKey, count: count, context: context)
    }

    private init(verbatim text: String) {
        key = text
        values = []
        pluralKey = nil
        count = nil
        isVerbatim = true
        context = nil
    }

    /// Text that is said as it is in every language: a name, a code, or words that were translated already.
    public static func verbatim(_ text: String) -> Phrase { Phrase(verbatim: text) }

    /// A phrase that counts: `one` and `other` are the English forms, each with `{0}` for the count, which also picks
    /// the form in the reader's language ("1 student", "2 students"; French says "0 étudiant").
    public static func counting(_ count: Int, one: String, other: String, _ values: Value...) -> Phrase {
        counting(count, one: one, other: other, values: values)
    }

    /// `counting` with its further values (`{1}`, `{2}`…) as a list.
    public static func counting(_ count: Int, one: String, other: String, values: [Value]) -> Phrase {
        Phrase(key: one, values: [.number(count)] + values, pluralKey: other, count: count)
    }

    /// The phrase in English, as Rollcall's API said it before it spoke other languages.
    public var description: String { Catalog.english.say(self) }

    /// Two phrases are the same when they say the same in English, however they were built.
    public static func == (a: Phrase, b: Phrase) -> Bool { a.description == b.description }

    public func hash(into hasher: inout Hasher) { hasher.combine(description) }

    /// Builds the key and values from a string literal with interpolations.
    public struct Interpolation: StringInterpolationProtocol, Sendable {
        var key = ""
        var values: [Value] = []

        public init(literalCapacity: Int, interpolationCount: Int) {
            key.reserveCapacity(literalCapacity + 3 * interpolationCount)
        }

        public mutating func appendLiteral(_ literal: String) { key += literal }

        private mutating func append(_ value: Value) {
            key += "{\(values.count)}"
            values.append(value)
        }

        public mutating func appendInterpolation(_ value: Int) { append(.number(value)) }
        public mutating func appendInterpolation(_ value: Phrase) { append(.phrase(value)) }
        public mutating func appendInterpolation(_ value: String) { append(.text(value)) }
        public mutating func appendInterpolation(_ value: some CustomStringConvertible) {
            append(.text(value.description))
        }
    }
}
