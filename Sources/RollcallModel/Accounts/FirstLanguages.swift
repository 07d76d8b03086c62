import Foundation
import RollcallStorage
import SQLKit

extension Database {
    /// This process's writer of first languages (`FirstLanguages`).
    package var firstLanguages: FirstLanguages { companion(FirstLanguages.self) { FirstLanguages(database: $0) } }
}

/// Keeps the language each person first acted in, in groups: whoever arrives while a group is written waits for the
/// next, and each group is one statement. A room of newcomers, whose accounts a roster import made, checks in for the
/// first time at once; kept one by one, their languages took a write each beside their check-ins.
package actor FirstLanguages {
    private let database: Database
    private var pending: [Int64: String] = [:]
    /// Those waiting for the group being gathered: told the languages it kept, by person, or `nil`, to write it.
    private var waiting: [CheckedContinuation<[Int64: String]?, any Error>] = []
    private var writing = false
    /// People per statement: three binds each stay well under SQLite's limit.
    static let largestStatement = 1_000

    init(database: Database) {
        self.database = database
    }

    /// Keeps `language` for person `id` unless a language is kept already; answers whether it was kept. Of two calls
    /// for one person in one group, the first one's language is kept.
    package func keep(_ language: String, of id: Int64) async throws -> Bool {
        if pending[id] == nil { pending[id] = language }
        if writing, let kept = try await withCheckedThrowingContinuation({ waiting.append($0) }) {
            return kept[id] == language
        }
        writing = true
        let (group, waiters) = (pending, waiting)
        (pending, waiting) = ([:], [])
        let written: Result<[Int64: String], any Error>
        do {
            written = .success(try await Self.write(group, database: database))
        } catch {
            written = .failure(error)
        }
        // Each waiter's person is in this group, or in one gathered later whose writer the handoff wakes.
        for waiter in waiters { waiter.resume(with: written.map { Optional($0) }) }
        if waiting.isEmpty {
            writing = false
        } else {
            waiting.removeFirst().resume(returning: nil)
        }
        return try written.get()[id] == language
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
