import Foundation

/// The sentences a page template marks for translation, `{{#t}}Sign in{{/t}}`, and the template with each said in a
/// language: done once per language when the templates are loaded, so a page costs nothing more to draw. Words
/// with two meanings name theirs, as gettext's `msgctxt`: `{{#t:heading}}Open now{{/t}}`.
public enum TemplateText {
    static let open = "{{#t"
    static let close = "{{/t}}"

    /// The marked sentences, in order, each with its whitespace collapsed as the catalogs hold it.
    public static func messages(in template: String) -> [String] {
        var found: [String] = []
        _ = translated(template) { sentence, _ in
            found.append(sentence); return sentence
        }
        return found
    }

    /// The template with every marked sentence in the catalog's language.
    public static func translated(_ template: String, into catalog: Catalog) -> String {
        translated(template) { catalog.text($0, context: $1) }
    }

    /// The template with every marked sentence replaced by `words(sentence, context)`; an unclosed marker is left
    /// as written.
    static func translated(_ template: String, by words: (String, String?) -> String) -> String {
        var result = ""
        var rest = template[...]
        while let start = rest.range(of: open), let end = rest.range(of: close, range: start.upperBound..<rest.endIndex)
        {
            // `{{#t}}` or `{{#t:context}}`; any other tag that starts alike (`{{#title}}`) is the template's own.
            let tag = rest[start.upperBound...].prefix { $0 != "}" }
            let context: String? = tag.isEmpty ? nil : tag.hasPrefix(":") ? String(tag.dropFirst()) : nil
            guard tag.isEmpty || context != nil,
                let body = rest.range(of: "}}", range: start.upperBound..<end.lowerBound)
            else {
                result += rest[..<start.upperBound]
                rest = rest[start.upperBound...]
                continue
            }
            result += rest[..<start.lowerBound]
            result += words(collapsed(rest[body.upperBound..<end.lowerBound]), context)
            rest = rest[end.upperBound...]
        }
        return result + rest
    }

    /// Runs of whitespace as one space, none at the ends: line breaks inside a marker are the template's layout, not
    /// the sentence's.
    public static func collapsed(_ text: some StringProtocol) -> String {
        text.split(whereSeparator: \.isWhitespace).joined(separator: " ")
    }
}
