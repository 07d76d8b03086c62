import Foundation

/// Names in the order people of a language expect them: in English "Björn Ångström" before "Björn Schröder", letters
/// before case; in Swedish Å after Z. Rosters, rooms, grids, quiz results and exports all sort with it, so that a
/// name is found where the reader looks for it.
public struct Collation: Sendable {
    public let locale: Locale

    /// Rollcall's pages are in English.
    public static let english = Collation(locale: Locale(identifier: "en"))

    public init(locale: Locale) {
        self.locale = locale
    }

    /// Whether `a` comes before `b`: by the language's collation, case aside first, then as written.
    public func precedes(_ a: String, _ b: String) -> Bool {
        switch a.compare(b, options: [.caseInsensitive], range: nil, locale: locale) {
        case .orderedAscending: true
        case .orderedDescending: false
        case .orderedSame: a.compare(b, options: [], range: nil, locale: locale) == .orderedAscending
        }
    }

    /// `items` by name, and by id where two names are the same, so that the order never depends on the database.
    public func sorted<Item>(_ items: [Item], name: (Item) -> String, id: (Item) -> Int64) -> [Item] {
        guard items.count > 1 else { return items }
        return items.map { (name: name($0), id: id($0), item: $0) }
            .sorted { a, b in
                if a.name != b.name { return precedes(a.name, b.name) }
                return a.id < b.id
            }
            .map(\.item)
    }
}
