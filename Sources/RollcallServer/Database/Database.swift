@preconcurrency import AsyncKit
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
    let hubs = LiveHubs()
    /// Tells this process's caches about changes, including other processes' (see `ChangeNotices`).
    let notices = ChangeNotices()
    /// This process's caches of rows, told of every notice (`Caches`).
    let caches: Caches
    private let pool: Pool
    private let logger: Logger

    private enum Pool: @unchecked Sendable {
        case sqlite(reader: SQLiteReaders, writer: EventLoopGroupConnectionPool<SQLiteFileSource>)
        case postgres(EventLoopGroupConnectionPool<PostgresConnectionSource>)
    }

    /// Opens (creating if needed) an SQLite file in WAL mode.
    ///
    /// One connection writes: SQLite admits one writer at a time anyway, and a single writer keeps transactions
    /// from waiting on each other's locks while holding the few threads of the I/O pool. Reads go to a few
    /// read-only connections beside it, which WAL lets run while the writer works.
    public static func sqlite(path: String, logger: Logger) throws -> Database {
        let storage = try StorageWatch(path: path, logger: logger)
        let writer = EventLoopGroupConnectionPool(
            source: SQLiteFileSource(path: path, readOnly: false),
            maxConnectionsPerEventLoop: 1,
            requestTimeout: .seconds(30),
            pruneInterval: nil,
            logger: logger,
            on: MultiThreadedEventLoopGroup.singleton.next()
        )
        let reader = SQLiteReaders(source: SQLiteFileSource(path: path, readOnly: true), count: 4, logger: logger)
        return Database(
            engine: .sqlite, pool: .sqlite(reader: reader, writer: writer), logger: logger, storage: storage)
    }

    /// Connects to PostgreSQL at a `postgres://user:password@host:port/database` URL.
    public static func postgres(url: String, logger: Logger) throws -> Database {
        let configuration = try SQLPostgresConfiguration(url: url)
        let pool = EventLoopGroupConnectionPool(
            source: PostgresConnectionSource(sqlConfiguration: configuration),
            maxConnectionsPerEventLoop: 4,
            requestTimeout: .seconds(30),
            pruneInterval: .seconds(60),
            logger: logger,
            on: MultiThreadedEventLoopGroup.singleton
        )
        return Database(
            engine: .postgres, pool: .postgres(pool), logger: logger,
            postgresConfiguration: configuration.coreConfiguration
        )
    }

    private init(
        engine: Engine, pool: Pool, logger: Logger, postgresConfiguration: PostgresConnection.Configuration? = nil,
        storage: StorageWatch? = nil
    ) {
        self.storage = storage
        caches = Caches(notices: notices)
        self.engine = engine
        self.pool = pool
        self.logger = logger
        self.postgresConfiguration = postgresConfiguration
    }

    /// The SQLite file's watch: deleted or replaced under the server, or on a full disk, writes are refused.
    private let storage: StorageWatch?

    /// How to reach PostgreSQL, for the connection that listens for other processes' live notifications.
    private let postgresConfiguration: PostgresConnection.Configuration?

    /// The services that run beside the pool: on PostgreSQL, the listener for other processes' changes.
    public var liveServices: [any Service] {
        guard let postgresConfiguration else { return [] }
        return [
            LiveNotifications(
                configuration: postgresConfiguration, hubs: hubs, notices: notices, logger: logger)
        ]
    }

    /// Runs `body` on one connection that may only read.
    public func read<Result: Sendable>(
        _ body: @Sendable (any SQLDatabase) async throws -> Result
    ) async throws -> Result {
        switch pool {
        case .sqlite(let reader, _): try await reader.read { try await body($0.sql()) }
        case .postgres(let pool): try await Self.using(pool, logger: logger) { try await body($0.sql()) }
        }
    }

    /// Runs `body` on the connection that writes, for single statements that change data.
    public func write<Result: Sendable>(
        _ body: @Sendable (any SQLDatabase) async throws -> Result
    ) async throws -> Result {
        switch pool {
        case .sqlite(_, let writer):
            try await storage!.writing {
                try await Self.using(writer, logger: logger) { try await body($0.sql()) }
            }
        case .postgres(let pool): try await Self.using(pool, logger: logger) { try await body($0.sql()) }
        }
    }

    private static func using<Source: ConnectionPoolSource, Result: Sendable>(
        _ pool: EventLoopGroupConnectionPool<Source>, logger: Logger,
        _ body: (Source.Connection) async throws -> Result
    ) async throws -> Result {
        let connection = try await pool.requestConnection(logger: logger).get()
        defer { pool.releaseConnection(connection, logger: logger) }
        return try await body(connection)
    }

    /// Runs `body` in a transaction that commits when it returns and rolls back when it throws. Once it has
    /// committed, the live views of every key whose event log it wrote are woken.
    func transaction<Result: Sendable>(
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

    /// Tells the other processes' caches about a change that has committed; this process's own caches have been
    /// told already by whoever made it. A notification lost here is covered by the caches' short lifetimes.
    func announce(_ notice: ChangeNotice) async {
        guard engine == .postgres else { return }
        _ = try? await write { sql in
            try await sql.raw("SELECT pg_notify(\(bind: LiveNotifications.changes), \(bind: notice.payload))").run()
        }
    }

    /// Whether `error` is PostgreSQL refusing a row that `index`, a unique index, already holds (SQLSTATE 23505),
    /// as happens when another process committed the same key first.
    func isUniqueViolation(_ error: any Error, index: String) -> Bool {
        guard let error = error as? PSQLError, let info = error.serverInfo else { return false }
        return info[.sqlState] == "23505" && info[.constraintName] == index
    }

    /// Answers whether the database responds, for `/healthz`.
    public func ping() async -> Bool {
        (try? await checkHealth()) != nil
    }

    /// Whether a trivial query is answered within `limit`, however long the pool would wait for a connection: after
    /// an unexplained failure, this tells an outage from a fault.
    func answers(within limit: Duration) async -> Bool {
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
    func checkHealth() async throws {
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

    /// Closes every connection; SQLite connections must be closed explicitly.
    public func shutdown() async throws {
        switch pool {
        case .sqlite(let reader, let writer):
            try await reader.shutdown()
            try await writer.shutdownAsync()
        case .postgres(let pool): try await pool.shutdownAsync()
        }
    }
}

/// Opens SQLite connections with the settings Rollcall relies on.
struct SQLiteFileSource: ConnectionPoolSource {
    let path: String
    /// Read-only connections refuse writes, so a write sent to the wrong pool fails loudly instead of racing.
    let readOnly: Bool

    func makeConnection(logger: Logger, on eventLoop: any EventLoop) -> EventLoopFuture<SQLiteConnection> {
        SQLiteConnection.open(storage: .file(path: path), threadPool: .singleton, logger: logger, on: eventLoop)
            .flatMap { connection in
                // WAL keeps every committed check-in through a crash of the process; NORMAL sync is enough for that.
                let pragmas =
                    readOnly
                    ? ["PRAGMA query_only = ON", "PRAGMA foreign_keys = ON", "PRAGMA busy_timeout = 5000"]
                    : [
                        "PRAGMA journal_mode = WAL", "PRAGMA synchronous = NORMAL", "PRAGMA foreign_keys = ON",
                        "PRAGMA busy_timeout = 5000",
                    ]
                return pragmas.reduce(eventLoop.makeSucceededVoidFuture()) { future, pragma in
                    future.flatMap { connection.query(pragma).map { _ in } }
                }
                .flatMapError { error in connection.close().flatMapThrowing { throw error } }
                .map { connection }
            }
    }
}

/// Read-only SQLite connections taken in turn and never checked out. Each is opened FULLMUTEX, so SQLite serialises
/// the calls made on one connection, and WAL lets them all read beside the writer; checking a connection out of a
/// pool and back cost more hops between threads than the short reads of a check-in take.
final class SQLiteReaders: Sendable {
    private struct State {
        var connections: [SQLiteConnection] = []
        var turn = 0
        var closed = false
    }

    private let source: SQLiteFileSource
    private let count: Int
    private let logger: Logger
    private let state = NIOLockedValueBox(State())

    init(source: SQLiteFileSource, count: Int, logger: Logger) {
        self.source = source
        self.count = count
        self.logger = logger
    }

    /// Runs `body` on the next connection in turn; the connections are opened the first times round.
    func read<Result: Sendable>(_ body: (SQLiteConnection) async throws -> Result) async throws -> Result {
        let next: SQLiteConnection? = try state.withLockedValue { state in
            guard !state.closed else {
                throw DatabaseUnavailable()
            }
            state.turn = (state.turn + 1) % count
            return state.connections.count < count ? nil : state.connections[state.turn]
        }
        if let next { return try await body(next) }
        let opened = try await source.makeConnection(logger: logger, on: MultiThreadedEventLoopGroup.singleton.next())
            .get()
        let kept = state.withLockedValue { state in
            guard !state.closed, state.connections.count < count else { return false }
            state.connections.append(opened)
            return true
        }
        if kept { return try await body(opened) }
        // Another request opened the last one first, or the server is stopping: this one reads once and goes.
        do {
            let result = try await body(opened)
            try await opened.close().get()
            return result
        } catch {
            try? await opened.close().get()
            throw error
        }
    }

    func shutdown() async throws {
        let connections = state.withLockedValue { state in
            state.closed = true
            defer { state.connections = [] }
            return state.connections
        }
        // The future-returning close runs even when this task is cancelled (as a stopping service group cancels
        // it); the async one would then give up, and an unclosed connection traps in debug builds.
        var failure: (any Error)?
        for connection in connections {
            do { try await connection.close().get() } catch { failure = failure ?? error }
        }
        if let failure { throw failure }
    }
}

extension SQLRowDecoder {
    /// Rollcall's columns are snake_case; its Swift properties camelCase.
    static let rollcall = SQLRowDecoder(keyDecodingStrategy: .convertFromSnakeCase)
}
