@preconcurrency import AsyncKit
import Foundation
import Logging
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
    private let pool: Pool
    private let logger: Logger

    private enum Pool: @unchecked Sendable {
        case sqlite(EventLoopGroupConnectionPool<SQLiteFileSource>)
        case postgres(EventLoopGroupConnectionPool<PostgresConnectionSource>)
    }

    /// Opens (creating if needed) an SQLite file in WAL mode.
    ///
    /// One connection serves every request: SQLite admits one writer at a time anyway, and a single connection
    /// keeps transactions from waiting on each other's locks while holding the few threads of the I/O pool.
    public static func sqlite(path: String, logger: Logger) throws -> Database {
        let directory = URL(fileURLWithPath: path).deletingLastPathComponent().path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let pool = EventLoopGroupConnectionPool(
            source: SQLiteFileSource(path: path),
            maxConnectionsPerEventLoop: 1,
            requestTimeout: .seconds(30),
            pruneInterval: nil,
            logger: logger,
            on: MultiThreadedEventLoopGroup.singleton.next()
        )
        return Database(engine: .sqlite, pool: .sqlite(pool), logger: logger)
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
        return Database(engine: .postgres, pool: .postgres(pool), logger: logger)
    }

    private init(engine: Engine, pool: Pool, logger: Logger) {
        self.engine = engine
        self.pool = pool
        self.logger = logger
    }

    /// Runs `body` on one connection, for queries that need no transaction.
    public func read<Result: Sendable>(
        _ body: @Sendable (any SQLDatabase) async throws -> Result
    ) async throws -> Result {
        switch pool {
        case .sqlite(let pool):
            let connection = try await pool.requestConnection(logger: logger).get()
            defer { pool.releaseConnection(connection, logger: logger) }
            return try await body(connection.sql())
        case .postgres(let pool):
            let connection = try await pool.requestConnection(logger: logger).get()
            defer { pool.releaseConnection(connection, logger: logger) }
            return try await body(connection.sql())
        }
    }

    /// Runs `body` in a transaction that commits when it returns and rolls back when it throws.
    public func transaction<Result: Sendable>(
        _ body: @Sendable (any SQLDatabase) async throws -> Result
    ) async throws -> Result {
        // IMMEDIATE takes SQLite's write lock at the start, so a transaction never fails half-way upgrading it.
        let begin = engine == .sqlite ? "BEGIN IMMEDIATE" : "BEGIN"
        return try await read { sql in
            try await sql.raw(SQLQueryString(begin)).run()
            do {
                let result = try await body(sql)
                try await sql.raw("COMMIT").run()
                return result
            } catch {
                try? await sql.raw("ROLLBACK").run()
                throw error
            }
        }
    }

    /// Answers whether the database responds, for `/healthz`.
    public func ping() async -> Bool {
        (try? await read { sql in try await sql.raw("SELECT 1 AS one").first() }) != nil
    }

    /// Keeps the pool open while the application runs and closes every connection on shutdown.
    public func run() async throws {
        try? await gracefulShutdown()
        try await shutdown()
    }

    /// Closes every connection; SQLite connections must be closed explicitly.
    public func shutdown() async throws {
        switch pool {
        case .sqlite(let pool): try await pool.shutdownAsync()
        case .postgres(let pool): try await pool.shutdownAsync()
        }
    }
}

/// Opens SQLite connections with the settings Rollcall relies on.
struct SQLiteFileSource: ConnectionPoolSource {
    let path: String

    func makeConnection(logger: Logger, on eventLoop: any EventLoop) -> EventLoopFuture<SQLiteConnection> {
        SQLiteConnection.open(storage: .file(path: path), threadPool: .singleton, logger: logger, on: eventLoop)
            .flatMap { connection in
                // WAL keeps every committed check-in through a crash of the process; NORMAL sync is enough for that.
                let pragmas = [
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
