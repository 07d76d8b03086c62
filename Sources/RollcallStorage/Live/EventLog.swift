import Foundation
import SQLKit

/// One entry of a feed's event log.
package struct LoggedEvent: Sendable, Equatable {
    /// Increases with every event; within a key, in the order the changes committed.
    package var id: Int64
    /// The session or quiz run it belongs to.
    package var key: Int64
    package var kind: String
    /// The change's details as JSON text.
    package var payload: String
    /// When the event was written, inside the transaction of its change, just before that committed.
    package var createdAt: Date

    /// Read column by column, as every live view reads each event: Codable's row decoding converted every column's
    /// name to snake case on every row.
    init(_ row: any SQLRow) throws {
        id = try row.decode(column: "id", as: Int64.self)
        key = try row.decode(column: "key", as: Int64.self)
        kind = try row.decode(column: "kind", as: String.self)
        payload = try row.decode(column: "payload", as: String.self)
        createdAt = try row.decode(column: "created_at", as: Date.self)
    }

    /// The event as the live sockets send it; the stored payload is already JSON and goes out as it is.
    package var message: String {
        #"{"createdAt":"\#(createdAt.millisecondText)","data":\#(payload),"id":\#(id),"kind":"\#(kind)","type":"event"}"#
    }
}

/// The event log of every live feed: what a live view replays to catch up, without losing or repeating anything.
///
/// An event is written in the same transaction as the change it describes, so it exists exactly when the change
/// committed. Within one key, events become visible in the order of their ids (SQLite has one writer; on
/// PostgreSQL, `append` takes a per-key lock held to the commit), so a reader that saw event `n` will never later
/// find an event below `n`: "everything after my last id" is always complete.
package enum EventLog {
    /// Takes the rows of `keys` in `table` shared, then their logs in `feed`, in increasing order, and queues each
    /// log's notification for the commit: one statement on PostgreSQL, where the rows, the logs and each append's own
    /// lock and notification were three. A key announced so whose transaction then appends nothing wakes its views in
    /// other processes to read nothing new. Answers the keys whose rows exist; SQLite's one writer needs no lock and
    /// is answered `keys`.
    @discardableResult
    package static func share(
        _ keys: Set<Int64>, rowsOf table: String, announcing feed: LiveFeed, sql: Transaction
    ) async throws -> Set<Int64> {
        guard sql.dialect.name == "postgresql" else { return keys }
        // The rows are locked in the subquery, which is never merged into the outer one: each log's lock is taken
        // after its row's, in the rows' order, as `SessionStore.lock` and then an append take them.
        let held = try await sql.raw(
            """
            SELECT held.id, pg_advisory_xact_lock(
                CAST(\(bind: feed.lockClass) AS INTEGER), CAST(held.id % 2147483647 AS INTEGER)),
              pg_notify(\(bind: LiveNotifications.channel), \(bind: feed.notificationPrefix) || held.id)
            FROM (SELECT id FROM \(ident: table) WHERE id IN (\(binds: keys.sorted())) ORDER BY id FOR SHARE) AS held
            """
        ).all(decodingColumn: "id", as: Int64.self)
        for key in held { sql.announced(feed, key: key) }
        return Set(held)
    }

    /// The advisory lock of one key's log, held to the end of the transaction.
    private static func lock(_ key: Int64, of feed: LiveFeed) -> SQLQueryString {
        """
        pg_advisory_xact_lock(CAST(\(bind: feed.lockClass) AS INTEGER), CAST(\(bind: key % 2_147_483_647) AS INTEGER))
        """
    }

    /// Appends events in the given order, inside the caller's transaction; answers their ids in that order. Once
    /// the transaction has committed, `Database.transaction` wakes the views of every key touched.
    ///
    /// One transaction should append once per feed (or in increasing key order, or `share` its keys first): on
    /// PostgreSQL each key's log is locked until the commit.
    @discardableResult
    package static func append(
        _ events: [(key: Int64, kind: String, payload: String)], to feed: LiveFeed, at now: Date = Date(),
        in sql: Transaction
    ) async throws -> [Int64] {
        guard !events.isEmpty else { return [] }
        let keys = Set(events.map(\.key))
        for key in keys { sql.touched(feed, key: key) }
        if sql.dialect.name == "postgresql" {
            // Holding the key's lock until the commit keeps a later id from becoming visible before an earlier one:
            // PostgreSQL hands out identity values before commit, in no particular commit order. The notification
            // goes out at the commit, and only then, to every process (`LiveNotifications`).
            for key in keys.sorted() where !sql.isAnnounced(feed, key: key) {
                let notify: SQLQueryString =
                    ", pg_notify(\(bind: LiveNotifications.channel), \(bind: feed.notification(key: key)))"
                try await sql.raw("SELECT " + lock(key, of: feed) + notify).run()
            }
        }
        var ids: [Int64] = []
        // Rows per statement stay well under SQLite's limit of bound parameters.
        for part in stride(from: 0, to: events.count, by: 500) {
            var insert = sql.insert(into: feed.table).columns(feed.keyColumn, "kind", "payload", "created_at")
            for event in events[part..<min(part + 500, events.count)] {
                insert = insert.values(SQLBind(event.key), SQLBind(event.kind), SQLBind(event.payload), SQLBind(now))
            }
            ids += try await insert.returning("id").all(decodingColumn: "id", as: Int64.self)
        }
        return ids.sorted()
    }

    /// The key's events after `id`, oldest first, at most `limit`.
    package static func after(
        _ id: Int64, key: Int64, in feed: LiveFeed, limit: Int = 500, sql: any SQLDatabase
    ) async throws -> [LoggedEvent] {
        try await sql.select().column("id").column(SQLColumn(feed.keyColumn), as: "key").columns("kind", "payload")
            .column("created_at").from(feed.table).where(SQLColumn(feed.keyColumn), .equal, SQLBind(key))
            .where("id", .greaterThan, id).orderBy("id").limit(limit)
            .all().map(LoggedEvent.init)
    }

    /// The id of the key's latest event, or 0 when it has none.
    package static func lastID(key: Int64, in feed: LiveFeed, sql: any SQLDatabase) async throws -> Int64 {
        let row = try await sql.select().column(SQLFunction("MAX", args: SQLColumn("id")), as: "last")
            .from(feed.table).where(SQLColumn(feed.keyColumn), .equal, SQLBind(key)).first()
        guard let row, try !row.decodeNil(column: "last") else { return 0 }
        return try row.decode(column: "last", as: Int64.self)
    }

    /// Whether `id` is one of the key's events: the only ids a client may resume after.
    package static func contains(_ id: Int64, key: Int64, in feed: LiveFeed, sql: any SQLDatabase) async throws -> Bool
    {
        try await sql.select().column("id").from(feed.table).where("id", .equal, id)
            .where(SQLColumn(feed.keyColumn), .equal, SQLBind(key)).first() != nil
    }
}
