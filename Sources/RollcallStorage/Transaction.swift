import Logging
import NIOConcurrencyHelpers
import NIOCore
import SQLKit

/// A transaction in progress: its connection, and the keys of each live feed whose views its commit must wake.
///
/// Whatever writes an event log inside the transaction marks the key here (`EventLog.append` does), and
/// `Database.transaction` wakes their live views once the commit has succeeded: nobody publishes by hand, and
/// nothing is published for a change that rolled back.
package final class Transaction: SQLDatabase {
    private let connection: any SQLDatabase
    private let keys = NIOLockedValueBox<[LiveFeed: Set<Int64>]>([:])
    private let announcedKeys = NIOLockedValueBox<[LiveFeed: Set<Int64>]>([:])

    package init(_ connection: any SQLDatabase) {
        self.connection = connection
    }

    /// Marks a key of a feed (a session, a quiz run) as changed by this transaction.
    package func touched(_ feed: LiveFeed, key: Int64) {
        _ = keys.withLockedValue { $0[feed, default: []].insert(key) }
    }

    /// Marks a key's log as locked by this transaction and its notification queued for the commit (`EventLog.share`).
    package func announced(_ feed: LiveFeed, key: Int64) {
        _ = announcedKeys.withLockedValue { $0[feed, default: []].insert(key) }
    }

    /// Whether the key's log is locked by this transaction and its notification queued already.
    package func isAnnounced(_ feed: LiveFeed, key: Int64) -> Bool {
        announcedKeys.withLockedValue { $0[feed]?.contains(key) ?? false }
    }

    /// Holds row `id` of `table` for update until the transaction ends, so that decisions about it are taken one after
    /// another in every process; answers whether the row exists. SQLite's dialect writes no locking clause: its one
    /// writer already takes them one after another.
    @discardableResult
    package func lockRow(of table: String, id: Int64) async throws -> Bool {
        try await select().column("id").from(table).where("id", .equal, id).for(.update).first() != nil
    }

    /// Holds an email address until the transaction ends (PostgreSQL's advisory lock on its hash; SQLite's one writer
    /// already takes them one after another), so that inviting it and taking its invitations go one after the other in
    /// every process.
    package func holdAddress(_ email: String) async throws {
        guard dialect.name == "postgresql" else { return }
        try await raw(
            "SELECT pg_advisory_xact_lock(CAST(\(bind: Self.addressLockClass) AS INTEGER), hashtext(\(bind: email)))"
        ).run()
    }

    /// The first key of `holdAddress`'s locks: "RC", a class nothing else uses.
    package static let addressLockClass: Int = 0x5243

    /// The keys changed so far, by feed.
    package var touched: [LiveFeed: Set<Int64>] { keys.withLockedValue { $0 } }

    package var logger: Logger { connection.logger }
    package var eventLoop: any EventLoop { connection.eventLoop }
    package var version: (any SQLDatabaseReportedVersion)? { connection.version }
    package var dialect: any SQLDialect { connection.dialect }
    package var queryLogLevel: Logger.Level? { connection.queryLogLevel }

    package func execute(sql query: any SQLExpression, _ onRow: @escaping @Sendable (any SQLRow) -> Void)
        -> EventLoopFuture<Void>
    {
        connection.execute(sql: query, onRow)
    }

    package func execute(sql query: any SQLExpression, _ onRow: @escaping @Sendable (any SQLRow) -> Void) async throws {
        try await connection.execute(sql: query, onRow)
    }
}
