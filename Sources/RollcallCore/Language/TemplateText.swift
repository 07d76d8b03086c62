import Foundation

/// The sentences a page template marks for translation, `{{#t}}Sign in{{/t}}`, and the template with each said in a
/// language: done once per language when the templates are loaded, so a page costs nothing more to draw.
public enum TemplateText {
    static let open = "{{#t}}"
    static let close = "{{/t}}"

    /// The marked sentences, in order, each with its whitespace collapsed as the catalogs hold it.
    public static func messages(in template: String) -> [String] {
        var found: [String] = []
        _ = translated(template) {
            found.append($0); return $0
        }
        return found
    }

    /// The template with every marked sentence in the catalog's language.
    public static func translated(_ template: String, into catalog: Catalog) -> String {
        translated(template) { catalog.text($0) }
    }

    /// The template with every marked sentence replaced by `words(sentence)`; an unclosed marker is left as written.
    static func translated(_ template: String, by words: (String) -> String) -> String {
        var result = ""
        var rest = template[...]
        while let start = rest.range(of: open), let end = rest.range(of: close, range: start.upperBound..<rest.endIndex)
        {
            result += rest[..<start.lowerBound]
            result += words(collapsed(rest[start.upperBound..<end.lowerBound]))
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
