import Foundation

/// Which language a person reads: their own setting, else what their browser asks for (`Accept-Language`), else the
/// school's default, always one that Rollcall has.
public enum LanguageChoice {
    /// The most of an `Accept-Language` header read: a browser sends a handful of tags in well under this, and a
    /// header of thousands must cost no more than one of a few.
    public static let headerBytesRead = 256
    public static let tagsRead = 12

    /// The tags an `Accept-Language` header asks for, most wanted first; those with `q=0` are refused, not wanted.
    /// Only the whole tags of its first `headerBytesRead` bytes count, at most `tagsRead` of them.
    public static func preferences(acceptLanguage: String) -> [String] {
        var head = Substring(acceptLanguage)
        if acceptLanguage.utf8.count > headerBytesRead {
            let cut = acceptLanguage.utf8.index(acceptLanguage.utf8.startIndex, offsetBy: headerBytesRead)
            // The item cut in two is dropped whole: half a tag may name another language.
            head = acceptLanguage[..<cut]
            head = head[..<(head.lastIndex(of: ",") ?? head.startIndex)]
        }
        var ranked: [(tag: String, weight: Double, order: Int)] = []
        for (order, item) in head.split(separator: ",").prefix(tagsRead).enumerated() {
            let parts = item.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }
            guard let tag = parts.first, !tag.isEmpty, tag.count <= 35,
                tag.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "*" || $0 == "_") })
            else { continue }
            var weight = 1.0
            for parameter in parts.dropFirst() where parameter.lowercased().hasPrefix("q=") {
                weight = Double(parameter.dropFirst(2)) ?? 0
            }
            if weight > 0 { ranked.append((tag.replacingOccurrences(of: "_", with: "-"), min(weight, 1), order)) }
        }
        return ranked.sorted { $0.weight != $1.weight ? $0.weight > $1.weight : $0.order < $1.order }.map(\.tag)
    }

    /// The one of `available` that best answers `wanted`: the same tag, else the same language whatever the region
    /// (`fr-CA` reads `fr`), else nil. Only a plain language (`fr`) answers a regional ask, so a pseudo-locale such as
    /// `en-XA` is never chosen unless asked for by name.
    public static func match(_ wanted: String, in available: [String]) -> String? {
        let wanted = wanted.lowercased()
        if let exact = available.first(where: { $0.lowercased() == wanted }) { return exact }
        let language = wanted.split(separator: "-").first.map(String.init) ?? wanted
        return available.first { $0.lowercased() == language }
    }

    /// The language a page, an answer or a letter is in.
    public static func choose(
        setting: String?, acceptLanguage: String?, fallback: String, available: [String]
    ) -> String {
        if let setting, let found = match(setting, in: available) { return found }
        for wanted in preferences(acceptLanguage: acceptLanguage ?? "") {
            if let found = match(wanted, in: available) { return found }
        }
        return match(fallback, in: available) ?? "en"
    }

    /// The language a POSIX locale names (`LC_ALL`, `LC_MESSAGES`, `LANG`: `fr_FR.UTF-8@euro`) as a tag, `fr-FR`;
    /// nil for `C` and `POSIX`, which name no language.
    public static func tag(posixLocale value: String) -> String? {
        let name = value.split(separator: ".").first.map(String.init) ?? value
        let bare = name.split(separator: "@").first.map(String.init) ?? name
        guard !bare.isEmpty, bare != "C", bare != "POSIX",
            bare.allSatisfy({ $0.isASCII && ($0.isLetter || $0 == "_" || $0 == "-") })
        else { return nil }
        return bare.replacingOccurrences(of: "_", with: "-")
    }

    /// The language the command line's environment asks for, in the order POSIX reads it.
    public static func tag(environment: [String: String]) -> String? {
        for name in ["LC_ALL", "LC_MESSAGES", "LANG"] {
            if let value = environment[name], !value.isEmpty { return tag(posixLocale: value) }
        }
        return nil
    }
}
