import Foundation
import RollcallStorage
import SQLKit

extension Database {
    /// This process's look-ups of tokens the identity cache does not hold (`TokenLookups`).
    package var tokenLookups: TokenLookups { companion(TokenLookups.self) { TokenLookups(database: $0) } }
}

/// Finds whose tokens are, in groups on PostgreSQL (`GroupedReads`). A room scanning the code arrives together, each
/// student with a token this process has not seen yet: one statement each was half the statements of a room's first
/// check-in on PostgreSQL. A token asked for alone is read at once, as before.
package struct TokenLookups: Sendable {
    /// An unexpired token's row: whose it is, and how it was issued.
    package struct Found: Sendable {
        package var user: User
        package var kind: String
        package var csrf: String
        /// When the token stops being accepted: no copy of it is kept longer.
        package var expires: Date
    }

    private let reads: GroupedReads<String, Found>

    init(database: Database) {
        reads = GroupedReads(database: database) { digests in try await Self.read(digests, database: database) }
    }

    /// The unexpired token whose digest is `digest`, with whatever else is being asked for meanwhile.
    package func find(digest: String) async throws -> Found? {
        try await reads.value(of: digest)
    }

    private static func read(_ digests: [String], database: Database) async throws -> [String: Found] {
        let list = GroupedReads<String, Found>.padded(digests)
        // A list of values joined, not `IN (…)`: PostgreSQL's plan for a prepared `IN` of 64 compares every row of
        // a small table with each of the 64 (2.9 ms), where the join hashes them (0.3 ms) or probes the key.
        let asked = SQLList(list.map { SQLQueryString("(\(bind: $0))") })
        let rows = try await database.read { sql in
            try await sql.raw(
                """
                WITH asked(token_hash) AS (VALUES \(asked))
                SELECT access_tokens.token_hash, access_tokens.kind, access_tokens.csrf, access_tokens.expires_at,
                  \(User.columns)
                FROM asked JOIN access_tokens ON access_tokens.token_hash = asked.token_hash
                  JOIN users ON users.id = access_tokens.user_id
                WHERE access_tokens.expires_at > \(bind: Date())
                """
            ).all()
        }
        var found: [String: Found] = [:]
        for row in rows {
            found[try row.decode(column: "token_hash", as: String.self)] = Found(
                user: try User(row: row), kind: try row.decode(column: "kind", as: String.self),
                csrf: try row.decode(column: "csrf", as: String.self),
                expires: try row.decode(column: "expires_at", as: Date.self))
        }
        return found
    }
}
