import Foundation

/// A made-up language for testing: every sentence with its letters accented and about a third longer, between
/// brackets, so that a page shows at once any English left untranslated and any text that is cut off.
public enum PseudoLocale {
    /// The tag of the pseudo-locale, as Android and ICU name theirs.
    public static let language = "en-XA"

    private static let accents: [Character: Character] = [
        "a": "á", "b": "ƀ", "c": "ç", "d": "ð", "e": "é", "f": "ƒ", "g": "ĝ", "h": "ĥ", "i": "í", "j": "ĵ", "k": "ķ",
        "l": "ļ", "m": "ɱ", "n": "ñ", "o": "ö", "p": "þ", "q": "ǫ", "r": "ŕ", "s": "š", "t": "ţ", "u": "ü", "v": "ṽ",
        "w": "ŵ", "x": "ẋ", "y": "ý", "z": "ž", "A": "Å", "B": "Ɓ", "C": "Ç", "D": "Ð", "E": "É", "F": "Ƒ", "G": "Ĝ",
        "H": "Ĥ", "I": "Í", "J": "Ĵ", "K": "Ķ", "L": "Ļ", "M": "Ṁ", "N": "Ñ", "O": "Ö", "P": "Þ", "Q": "Ǫ", "R": "Ŕ",
        "S": "Š", "T": "Ţ", "U": "Ü", "V": "Ṽ", "W": "Ŵ", "X": "Ẋ", "Y": "Ý", "Z": "Ž",
    ]

    /// The pseudo-locale's words for an English sentence. What a machine reads stays as it is: `{0}` placeholders,
    /// `{{name}}` template tags, HTML tags and entities.
    public static func text(_ english: String) -> String {
        var result = ""
        var letters = 0
        var rest = english[...]
        while let first = rest.first {
            if let end = protectedEnd(rest) {
                result += rest[..<end]
                rest = rest[end...]
                continue
            }
            if first.isLetter { letters += 1 }
            result.append(accents[first] ?? first)
            rest = rest.dropFirst()
        }
        guard letters > 0 else { return english }
        // A third more, in short words as a real language's would be, so that lines still wrap where they can.
        let extra = max(1, (letters * 3 + 9) / 10)
        let padding = stride(from: 0, to: extra, by: 4).map { String(repeating: "~", count: min(4, extra - $0)) }
        return "[\(result) \(padding.joined(separator: " "))]"
    }

    /// Where a run that must not change ends, when `text` begins with one.
    private static func protectedEnd(_ text: Substring) -> Substring.Index? {
        let closers: [(open: String, close: String)] = [("{{", "}}"), ("<", ">"), ("&", ";")]
        for (open, close) in closers where text.hasPrefix(open) {
            if let range = text.range(
                of: close, range: text.index(text.startIndex, offsetBy: open.count)..<text.endIndex)
            {
                if open == "&", text.distance(from: text.startIndex, to: range.lowerBound) > 10 { return nil }
                return range.upperBound
            }
        }
        if text.hasPrefix("{"), let close = text.firstIndex(of: "}"),
            text[text.index(after: text.startIndex)..<close].allSatisfy({ $0.isASCII && $0.isNumber }),
            close > text.index(after: text.startIndex)
        {
            return text.index(after: close)
        }
        return nil
    }

    /// The pseudo-locale's catalog for these English keys (with their plurals).
    public static func catalog(keys: [(msgid: String, plural: String?, context: String?)]) -> Catalog {
        var entries: [String: [String]] = [:]
        for key in keys {
            entries[Catalog.key(key.msgid, context: key.context)] =
                [text(key.msgid)] + (key.plural.map { [text($0)] } ?? [])
        }
        return Catalog(
            language: language, name: "Pseudo (\(text("English")))", locale: TimeText.english, plurals: .english,
            entries: entries)
    }
}
