/// Rules every text a person sends shares, whatever its field.
public enum TextRules {
    /// How long a search may be: longer ones find nothing a shorter one would not, and cost the database.
    public static let searchLength = 0...100

    /// Refuses control characters (a NUL would cut the text short in storage, an escape would reach someone's
    /// screen); line breaks and tabs only where `multiline`.
    public static func plain(_ text: String, field: String, multiline: Bool = false) throws(RuleViolation) -> String {
        let allowed: Set<Unicode.Scalar> = multiline ? ["\n", "\r", "\t"] : []
        guard
            !text.unicodeScalars.contains(where: {
                ($0.properties.generalCategory == .control || $0 == "\u{2028}" || $0 == "\u{2029}")
                    && !allowed.contains($0)
            })
        else {
            throw RuleViolation(
                field: field,
                message: "This text has an invisible control character (such as a NUL). Type it again without it.")
        }
        return text
    }

    /// A search as typed: trimmed, at most `searchLength` characters, `nil` when empty.
    public static func search(_ raw: String?) throws(RuleViolation) -> String? {
        guard let raw else { return nil }
        let text = try plain(raw.trimmingWhitespace(), field: "q")
        guard searchLength.contains(text.count) else {
            throw RuleViolation(field: "q", message: "Search for at most \(searchLength.upperBound) characters.")
        }
        return text.isEmpty ? nil : text
    }
}
