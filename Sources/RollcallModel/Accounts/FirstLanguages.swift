import Foundation
import RollcallStorage
import SQLKit

extension Database {
    /// This process's writer of first languages (`FirstLanguages`).
    package var firstLanguages: FirstLanguages { companion(FirstLanguages.self) { FirstLanguages(database: $0) } }
}

/// Keeps the language each person first acted in, in groups (`StatementGroups`), each one statement. A room of
/// newcomers, whose accounts a roster import made, checks in for the first time at once; kept one by one, their
/// languages took a write each beside their check-ins. On PostgreSQL nobody's answer waits for it
/// (`UserStore.keepFirstLanguageLater`), so each group gathers for a moment first: at once, a room's first requests
/// still took a statement for every one or two newcomers.
package struct FirstLanguages: Sendable {
    private let groups: StatementGroups<Choice, Bool>
    /// Whether a request leaves its newcomer's language for later rather than wait for it: on PostgreSQL, where each
    /// write costs the server a round trip. Its groups then gather a moment before they are written.
    package let leftForLater: Bool
    /// People per statement: three binds each stay well under SQLite's limit.
    static let largestStatement = 1_000
    /// How long each group gathers before it is written, when its languages are left for later.
    static let gathering = Duration.milliseconds(250)

    private struct Choice: Sendable {
        var id: Int64
        var language: String
    }

    init(database: Database) {
        leftForLater = database.engine == .postgres
        groups = StatementGroups(largest: Self.largestStatement, gathering: leftForLater ? Self.gathering : .zero) {
            choices in
            // Of two calls for one person in one group, the first one's language is kept.
            var group: [Int64: String] = [:]
            for choice in choices where group[choice.id] == nil { group[choice.id] = choice.language }
            do {
                let kept = try await Self.write(group, database: database)
                return choices.map { .success(kept[$0.id] == $0.language) }
            } catch {
                return choices.map { _ in .failure(error) }
            }
        }
    }

    /// Keeps `language` for person `id` unless a language is kept already; answers whether it was kept.
    package func keep(_ language: String, of id: Int64) async throws -> Bool {
        try await groups.submit(Choice(id: id, language: language))
    }

    /// A statement for the group, or one per `largestStatement` people; answers the languages it kept.
    private static func write(_ group: [Int64: String], database: Database) async throws -> [Int64: String] {
        var kept: [Int64: String] = [:]
        for ids in group.keys.sorted().chunked(into: largestStatement) {
            let choice = SQLList(
                ids.map { SQLQueryString("WHEN \(bind: $0) THEN \(bind: group[$0]!)") }, separator: SQLRaw(" "))
            let rows = try await database.write { sql in
                try await sql.update("users").set("first_language", to: SQLQueryString("CASE id \(choice) END"))
                    .where("id", .in, ids).where("first_language", .is, SQLLiteral.null)
                    .returning("id").all()
            }
            for row in rows {
                let id = try row.decode(column: "id", as: Int64.self)
                kept[id] = group[id]
            }
        }
        return kept
    }
}
