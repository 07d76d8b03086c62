import Foundation
import RollcallParts
import RollcallStorage
import SQLKit

/// A database an operator's command works on: the server's own, another PostgreSQL database, or an SQLite file such
/// as a backup. A file is reached through one connection of the command's own, outside any server's pool, so that
/// reading a backup never turns it into a WAL database or creates it.
final class OperatedStore: Sendable {
    let engine: Database.Engine
    /// How the store is named to the operator: a file's path, or a PostgreSQL URL without its password.
    let name: String
    private let access: Access

    private enum Access: @unchecked Sendable {
        case database(Database)
        case file(SQLiteConnections)
    }

    init(database: Database, name: String) {
        engine = database.engine
        self.name = name
        access = .database(database)
    }

    /// One connection to the SQLite file at `path`, which must exist.
    init(file path: String) throws {
        guard FileManager.default.fileExists(atPath: path) else {
            throw OperationRefused(message: "There is no database at \(path).")
        }
        engine = .sqlite
        name = path
        access = .file(
            SQLiteConnections(limit: 1, logger: Operations.logger) {
                try SQLiteFileConnection(
                    path: path, create: false, pragmas: ["PRAGMA foreign_keys = ON", "PRAGMA busy_timeout = 5000"])
            })
    }

    /// Runs `body` on one connection, which may write.
    func using<T: Sendable>(_ body: @Sendable (any SQLDatabase) async throws -> T) async throws -> T {
        switch access {
        case .database(let database): try await database.write(body)
        case .file(let connections): try await connections.with { try await body($0) }
        }
    }

    /// Runs `body` in one transaction on one connection: a consistent snapshot to read, or a change made whole.
    func transaction<T: Sendable>(
        readOnly: Bool = false, _ body: @Sendable (any SQLDatabase) async throws -> T
    ) async throws -> T {
        let begin: String =
            switch (engine, readOnly) {
            case (.sqlite, true): "BEGIN"
            case (.sqlite, false): "BEGIN IMMEDIATE"
            case (.postgres, true): "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY"
            case (.postgres, false): "BEGIN"
            }
        return try await using { sql in
            try await sql.raw(SQLQueryString(begin)).run()
            do {
                let result = try await body(sql)
                try await sql.raw("COMMIT").run()
                return result
            } catch {
                try? await Task { try await sql.raw("ROLLBACK").run() }.value
                throw error
            }
        }
    }

    /// Brings the schema up to this build's, as a server's start does.
    func migrate() async throws {
        guard case .database(let database) = access else {
            throw OperationRefused(message: "\(name) is opened to be read, not migrated.")
        }
        try await Migrations.apply(to: database)
    }

    /// Runs `body`, then closes every connection, whether it threw or not.
    func closing<T: Sendable>(_ body: (OperatedStore) async throws -> T) async throws -> T {
        do {
            let result = try await body(self)
            try await close()
            return result
        } catch {
            try? await self.close()
            throw error
        }
    }

    func close() async throws {
        switch access {
        case .database(let database): try await database.shutdown()
        case .file(let connections): connections.shutdown()
        }
    }
}

/// Where the stores of the operator's commands are, and how each is opened.
enum OperatedStores {
    /// A database named on the command line or in the configuration.
    enum Place: Sendable {
        /// The server's configured database: its SQLite file, or `ROLLCALL_DATABASE_URL`.
        case configured(Configuration)
        case sqliteFile(String)
        case postgres(String)

        /// The place itself, the configuration read.
        var resolved: Place {
            guard case .configured(let configuration) = self else { return self }
            return configuration.databaseURL.map { .postgres($0) } ?? .sqliteFile(configuration.sqlitePath)
        }
    }

    /// A `postgres://` URL, or else an SQLite file's path.
    static func place(of text: String) -> Place {
        text.hasPrefix("postgres://") || text.hasPrefix("postgresql://") ? .postgres(text) : .sqliteFile(text)
    }

    /// Opens the store at `place`; an SQLite file must exist unless `creating`, when it is made as the server makes
    /// its own (WAL, through `Database`).
    static func open(_ place: Place, creating: Bool = false) async throws -> OperatedStore {
        switch place.resolved {
        case .postgres(let url):
            return OperatedStore(database: try Database.postgres(url: url, logger: Operations.logger), name: shown(url))
        case .sqliteFile(let path) where creating:
            return OperatedStore(database: try Database.sqlite(path: path, logger: Operations.logger), name: path)
        case .sqliteFile(let path):
            return try OperatedStore(file: path)
        case .configured:
            preconditionFailure("a resolved place is never the configuration")
        }
    }

    /// A PostgreSQL URL as it may be printed: without its password.
    static func shown(_ url: String) -> String {
        guard var parts = URLComponents(string: url), parts.password != nil else { return url }
        parts.password = "…"
        return parts.string ?? url
    }
}
