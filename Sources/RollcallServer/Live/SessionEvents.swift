import Foundation
import RollcallCore
import SQLKit

/// One entry of a session's event log, as stored in `session_events`.
struct SessionEvent: Sendable, Equatable, Decodable {
    /// Increases with every event; within a session, in the order the changes committed.
    var id: Int64
    var sessionId: Int64
    var kind: SessionEventKind
    /// The change's details as JSON text.
    var payload: String
    /// When the event was written, inside the transaction of its change, just before that committed.
    var createdAt: Date
}

/// The event log of every session: what a live view replays to catch up, without losing or repeating anything.
///
/// An event is written in the same transaction as the change it describes, so it exists exactly when the change
/// committed. Within one session, events become visible in the order of their ids (SQLite has one writer; on
/// PostgreSQL, `append` takes a per-session lock held to the commit), so a reader that saw event `n` will never
/// later find an event below `n`: "everything after my last id" is always complete.
enum SessionEvents {
    /// Appends one change to a session's event log, inside the caller's transaction, beside the change itself.
    /// Once the transaction has committed, `Database.transaction` wakes the session's live views.
    ///
    /// - Parameters:
    ///   - change: what happened.
    ///   - sessionID: the session it happened in.
    ///   - sql: the transaction.
    /// - Returns: the new event's id.
    @discardableResult
    static func append(_ change: SessionChange, sessionID: Int64, in sql: Transaction) async throws -> Int64 {
        try await append([(sessionID, change)], in: sql).last ?? 0
    }

    /// Appends several changes in one statement, in the given order; answers their ids in that order.
    ///
    /// One transaction should append once (or in increasing session order): on PostgreSQL each session's log is
    /// locked until the commit.
    @discardableResult
    static func append(
        _ changes: [(sessionID: Int64, change: SessionChange)], at now: Date = Date(), in sql: Transaction
    ) async throws -> [Int64] {
        guard !changes.isEmpty else { return [] }
        for sessionID in Set(changes.map(\.sessionID)) { sql.touched(sessionID: sessionID) }
        if sql.dialect.name == "postgresql" {
            // Holding the session's lock until the commit keeps a later id from becoming visible before an earlier
            // one: PostgreSQL hands out identity values before commit, in no particular commit order.
            // The notification goes out at the commit, and only then, to every process (`LiveNotifications`).
            for sessionID in Set(changes.map(\.sessionID)).sorted() {
                try await sql.raw(
                    """
                    SELECT pg_advisory_xact_lock(CAST(\(bind: Self.lockClass) AS INTEGER),
                      CAST(\(bind: sessionID % 2_147_483_647) AS INTEGER)),
                      pg_notify(\(bind: LiveNotifications.channel), \(bind: String(sessionID)))
                    """
                ).run()
            }
        }
        var ids: [Int64] = []
        // Rows per statement stay well under SQLite's limit of bound parameters.
        for part in stride(from: 0, to: changes.count, by: 500) {
            var insert = sql.insert(into: "session_events").columns("session_id", "kind", "payload", "created_at")
            for (sessionID, change) in changes[part..<min(part + 500, changes.count)] {
                insert = insert.values(
                    SQLBind(sessionID), SQLBind(change.kind.rawValue), SQLBind(try change.payload()), SQLBind(now))
            }
            ids += try await insert.returning("id").all(decodingColumn: "id", as: Int64.self)
        }
        return ids.sorted()
    }

    /// The advisory lock class of event logs, apart from any other advisory lock.
    static let lockClass: Int64 = 0x5256_4c45

    /// The session's events after `id`, oldest first, at most `limit`.
    static func after(
        _ id: Int64, sessionID: Int64, limit: Int = 500, in sql: any SQLDatabase
    ) async throws -> [SessionEvent] {
        try await sql.select().column("*").from("session_events").where("session_id", .equal, sessionID)
            .where("id", .greaterThan, id).orderBy("id").limit(limit)
            .all(decoding: SessionEvent.self, with: .rollcall)
    }

    /// The id of the session's latest event, or 0 when it has none.
    static func lastID(sessionID: Int64, in sql: any SQLDatabase) async throws -> Int64 {
        let row = try await sql.select().column(SQLFunction("MAX", args: SQLColumn("id")), as: "last")
            .from("session_events").where("session_id", .equal, sessionID).first()
        guard let row, try !row.decodeNil(column: "last") else { return 0 }
        return try row.decode(column: "last", as: Int64.self)
    }

    /// Whether `id` is one of the session's events: the only ids a client may resume after.
    static func contains(_ id: Int64, sessionID: Int64, in sql: any SQLDatabase) async throws -> Bool {
        try await sql.select().column("id").from("session_events").where("id", .equal, id)
            .where("session_id", .equal, sessionID).first() != nil
    }
}
