import Foundation

/// How a reader's spreadsheet reads a CSV file: its field separator follows the decimal mark of their region, not of
/// their language alone. Mexico writes 1.5 and separates fields with commas; Spain writes 1,5 and uses semicolons.
public enum SpreadsheetStyle {
    /// `semicolon` where the region the browser names for `language` writes decimals with a comma (`es-ES`,
    /// `fr-FR`), `comma` where with a point (`es-MX`, `en-US`); nil when it names no region for that language, and
    /// the language's own choice (its catalog's `X-CSV-Separator`) stands.
    public static func separator(acceptLanguage: String?, language: String) -> String? {
        let wanted = language.lowercased().split(separator: "-").first.map(String.init) ?? language
        for tag in LanguageChoice.preferences(acceptLanguage: acceptLanguage ?? "") {
            let parts = tag.split(separator: "-").map(String.init)
            guard parts.count > 1, parts[0].lowercased() == wanted,
                let region = parts.dropFirst().first(where: isRegion)
            else { continue }
            let locale = Locale(identifier: "\(wanted)_\(region.uppercased())")
            guard let mark = locale.decimalSeparator else { continue }
            return mark == "," ? "semicolon" : "comma"
        }
        return nil
    }

    /// A BCP 47 region: two letters (`MX`) or three digits (`419`, Latin America).
    static func isRegion(_ part: String) -> Bool {
        (part.count == 2 && part.allSatisfy { $0.isASCII && $0.isLetter })
            || (part.count == 3 && part.allSatisfy { $0.isASCII && $0.isNumber })
    }
}
