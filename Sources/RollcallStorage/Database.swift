import Foundation
import Logging
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import PostgresKit
import SQLKit
import SQLiteKit
import ServiceLifecycle

/// Rollcall's store: SQLite in a file by default, PostgreSQL when configured, reached through the same SQLKit queries.
public final class Database: Service, Sendable {
    /// Which database engine is behind the pool; DDL differs slightly between them.
    public enum Engine: String, Sendable {
        case sqlite, postgres
    }

    public let engine: Engine
    /// Wakes the live views of each feed after a change to them commits; see `EventLog`.
    package let hubs = LiveHubs()
    /// Tells this process's caches about changes, including other processes' (see `ChangeNotices`).
    package let notices = ChangeNotices()
    /// Writes that requests left for later, finished before the pool closes.
    package let later = LaterWork()
    /// What the layers above make once per database, such as the model's caches (`companion`).
    private let companions = NIOLockedValueBox<[ObjectIdentifier: any Sendable]>([:])
    private let pool: Pool
    private let logger: Logger

    private enum Pool: Sendable {
        case sqlite(reader: SQLiteConnections, writer: SQLiteConnections)
        case postgres(PostgresPrimary)
    }

    /// Opens (creating if needed) an SQLite file in WAL mode.
    ///
    /// One connection writes: SQLite admits one writer at a time anyway, and a single writer keeps transactions
    /// from waiting on each other's locks. Reads go to a few read-only connections beside it, which WAL lets run
    /// while the writer works. Each connection keeps its prepared statements (`SQLiteFileConnection`).
    public static func sqlite(path: String, logger: Logger) throws -> Database {
        let storage = try StorageWatch(path: path, logger: logger)
        // WAL keeps every committed check-in through a crash of the process; NORMAL sync is enough for that.
        let writer = SQLiteConnections(limit: 1, logger: logger) {
            try SQLiteFileConnection(
                path: path, create: true,
                pragmas: [
                    "PRAGMA journal_mode = WAL", "PRAGMA synchronous = NORMAL", "PRAGMA foreign_keys = ON",
                    "PRAGMA busy_timeout = 5000",
                ])
        }
        // Read-only connections refuse writes, so a write sent to the wrong connection fails loudly instead of racing.
        let reader = SQLiteConnections(limit: 4, logger: logger) {
            try SQLiteFileConnection(
                path: path, create: false,
                pragmas: ["PRAGMA query_only = ON", "PRAGMA foreign_keys = ON", "PRAGMA busy_timeout = 5000"])
        }
        return Database(
            engine: .sqlite, pool: .sqlite(reader: reader, writer: writer), logger: logger, storage: storage)
    }

    /// Connects to PostgreSQL at a `postgres://user:password@host:port/database` URL, or at the first of a list of
    /// hosts that takes writes (`postgres://user@h1:5432,h2:5432/database?target_session_attrs=read-write`).
    public static func postgres(url: String, logger: Logger) throws -> Database {
        let primary = PostgresPrimary(
            hosts: try PostgresHosts(url: url), connections: Self.postgresConnections, logger: logger)
        return Database(engine: .postgres, pool: .postgres(primary), logger: logger)
    }

    /// Connections per process: enough to keep both cores busy while some wait on the network, few enough that
    /// several processes stay far under PostgreSQL's default limit of 100.
    static let postgresConnections = 8

    private init(engine: Engine, pool: Pool, logger: Logger, storage: StorageWatch? = nil) {
        self.storage = storage
        self.engine = engine
        self.pool = pool
        self.logger = logger
    }

    /// The SQLite file's watch: deleted or replaced under the server, or on a full disk, writes are refused.
    private let storage: StorageWatch?

    /// The one `T` of this database, made by `make` on first use: the layers above keep their per-database parts
    /// (the model's caches) here without the database knowing them.
    package func companion<T: Sendable>(_ type: T.Type, make: (Database) -> T) -> T {
        companions.withLockedValue { made in
            if let found = made[ObjectIdentifier(type)] as? T { return found }
            let value = make(self)
            made[ObjectIdentifier(type)] = value
            return value
        }
    }

    /// The services that run beside the pool: on PostgreSQL, the listener for other processes' changes, on the
    /// server in use whichever that is when it connects.
    public var liveServices: [any Service] {
        guard case .postgres(let primary) = pool else { return [] }
        return [
            LiveNotifications(server: { try await primary.server() }, hubs: hubs, notices: notices, logger: logger)
        ]
    }

    /// Runs `body` on one connection that may only read. On PostgreSQL a read the server ended in a deadlock is run
    /// again, as a transaction is: a statement reading several tables takes their locks one by one, and a migration's
    /// locks meet it that way.
    public func read<Result: Sendable>(
        _ body: @Sendable (any SQLDatabase) async throws -> Result
    ) async throws -> Result {
        switch pool {
        case .sqlite(let reader, _): try await reader.with { try await body($0) }
        case .postgres(let primary):
            try await retryingDeadlocks { try await primary.leasing(logger: logger) { try await body($0) } }
        }
    }

    /// Runs `body` on the connection that writes, for single statements that change data.
    public func write<Result: Sendable>(
        _ body: @Sendable (any SQLDatabase) async throws -> Result
    ) async throws -> Result {
        switch pool {
        case .sqlite(_, let writer):
            try await storage!.writing { try await writer.with { try await body($0) } }
        case .postgres(let primary): try await primary.leasing(logger: logger) { try await body($0) }
        }
    }

    /// Runs `body` with each PostgreSQL statement allowed up to `limit`, for work that may rewrite whole tables:
    /// migrations and the operator's commands. Other statements have `PostgresPrimary.statementDeadline`.
    package static func allowing<Result>(
        statementsOf limit: Duration, _ body: () async throws -> Result
    ) async rethrows -> Result {
        try await PostgresPrimary.$statementDeadline.withValue(limit) { try await body() }
    }

    /// How long a migration's or an operator's command's statement may run.
    package static let longStatements = Duration.seconds(3_600)

    /// Runs `body` in a transaction that commits when it returns and rolls back when it throws. Once it has
    /// committed, the live views of every key whose event log it wrote are woken.
    ///
    /// On PostgreSQL a transaction the server chose to end in a deadlock (40P01) is run again, a few times after a
    /// pause: it changed nothing, and a migration's locks (another process upgrading) meet the writes of a lecture that
    /// way.
    package func transaction<Result: Sendable>(
        _ body: @Sendable (Transaction) async throws -> Result
    ) async throws -> Result {
        try await retryingDeadlocks { try await transactionOnce(body) }
    }

    private func retryingDeadlocks<Result: Sendable>(_ body: () async throws -> Result) async throws -> Result {
        var attempt = 1
        while true {
            do {
                return try await body()
            } catch  where attempt < Self.deadlockAttempts && isDeadlock(error) {
                // A moment's pause lets the other side (a migration's next statement) go first.
                try await Task.sleep(for: .milliseconds(50 * attempt))
                attempt += 1
            }
        }
    }

    /// A transaction or a read ended by a deadlock is run again up to this many times in all.
    static let deadlockAttempts = 6

    private func isDeadlock(_ error: any Error) -> Bool {
        sqlState(of: error) == "40P01"
    }

    /// Whether `error` is PostgreSQL giving up a wait for a lock at the transaction's `lock_timeout` (55P03).
    package func isLockTimeout(_ error: any Error) -> Bool {
        sqlState(of: error) == "55P03"
    }

    /// The SQLSTATE of an error PostgreSQL answered; `nil` for any other error, and on SQLite.
    private func sqlState(of error: any Error) -> String? {
        guard engine == .postgres, let error = error as? PSQLError else { return nil }
        return error.serverInfo?[.sqlState]
    }

    private func transactionOnce<Result: Sendable>(
        _ body: @Sendable (Transaction) async throws -> Result
    ) async throws -> Result {
        // IMMEDIATE takes SQLite's write lock at the start, so a transaction never fails half-way upgrading it.
        let begin = engine == .sqlite ? "BEGIN IMMEDIATE" : "BEGIN"
        let (result, touched) = try await write { connection in
            let sql = Transaction(connection)
            try await sql.raw(SQLQueryString(begin)).run()
            do {
                let result = try await body(sql)
                try await sql.raw("COMMIT").run()
                return (result, sql.touched)
            } catch {
                // In a cancelled task every statement fails at once, ROLLBACK too; a connection handed back inside
                // its transaction would keep it open for whoever comes next. A fresh task is not cancelled.
                try? await Task { try await sql.raw("ROLLBACK").run() }.value
                throw error
            }
        }
        for (feed, keys) in touched { hubs[feed].published(keys) }
        return result
    }

    /// Tells this process's caches about a change that has committed, at once. The other processes on PostgreSQL
    /// hear of it from the database itself, which announces every change to a cached row in the change's own
    /// transaction (`Migrations.step044ChangesAnnounced`); this process hears that too, a moment later.
    package func announce(_ notice: ChangeNotice) {
        notices.received(notice)
    }

    /// Whether `error` is PostgreSQL refusing a row that `index`, a unique index, already holds (SQLSTATE 23505),
    /// as happens when another process committed the same key first.
    package func isUniqueViolation(_ error: any Error, index: String) -> Bool {
        guard let error = error as? PSQLError, let info = error.serverInfo else { return false }
        return info[.sqlState] == "23505" && info[.constraintName] == index
    }

    /// Answers whether the database responds, for `/healthz`.
    public func ping() async -> Bool {
        (try? await checkHealth()) != nil
    }

    /// Whether a trivial query is answered within `limit`, however long the pool would wait for a connection: after
    /// an unexplained failure, this tells an outage from a fault.
    package func answers(within limit: Duration) async -> Bool {
        let (first, continuation) = AsyncStream<Bool>.makeStream()
        let ping = Task { continuation.yield(await self.ping()) }
        let timer = Task {
            try? await Task.sleep(for: limit)
            continuation.yield(false)
        }
        defer {
            ping.cancel()
            timer.cancel()
        }
        for await answer in first { return answer }
        return false
    }

    /// Throws why the database cannot serve, for `/healthz`: its file gone (`DatabaseFileGone`), its disk full at
    /// the last write (`StorageFull`), or no answer (`DatabaseUnavailable`).
    package func checkHealth() async throws {
        try storage?.checkHealth()
        guard (try? await read({ sql in try await sql.raw("SELECT 1 AS one").first() })) != nil else {
            throw DatabaseUnavailable()
        }
    }

    /// Keeps the pool open while the application runs and closes every connection on shutdown.
    public func run() async throws {
        try? await gracefulShutdown()
        try await shutdown()
    }

    /// Finishes the writes requests left for later, then closes every connection; SQLite connections must be closed
    /// explicitly.
    public func shutdown() async throws {
        await later.finished()
        switch pool {
        case .sqlite(let reader, let writer):
            reader.shutdown()
            writer.shutdown()
        case .postgres(let primary): await primary.close()
        }
    }
}

extension SQLRowDecoder {
    /// Rollcall's columns are snake_case; its Swift properties camelCase.
    package static let rollcall = SQLRowDecoder(keyDecodingStrategy: .convertFromSnakeCase)
}
