import Foundation
import Logging
import RollcallCore
import RollcallParts
import RollcallStorage
import RollcallWeb
import RollcallWords

/// What the operator's commands run on a school's database: `rollcall backup`, `check`, `restore`, `migrate
/// --dry-run` and `copy-database`. Each opens what it needs, closes it, and answers with a report to print.
public enum Operations {
    /// Takes a consistent copy of the configured database at `path` while the server runs, and writes what it holds
    /// beside it (`path.json`); refuses to replace an earlier copy unless `force`.
    package static func backup(_ configuration: Configuration, to path: String, force: Bool, in reader: Reader)
        async throws -> Report
    {
        guard configuration.databaseURL == nil else {
            throw OperationRefused(
                message:
                    "On PostgreSQL, take backups with pg_dump or a base backup, as docs/operations.md shows; rollcall backup copies the embedded SQLite database only."
            )
        }
        return try await SQLiteBackup.take(from: configuration.sqlitePath, to: path, force: force).report(in: reader)
    }

    /// Checks the configured database, or the SQLite file at `file` (such as a backup): its integrity and Rollcall's
    /// own invariants.
    package static func check(_ configuration: Configuration, file: String? = nil, in reader: Reader) async throws
        -> CheckReport
    {
        let place = file.map { OperatedStores.Place.sqliteFile($0) } ?? .configured(configuration)
        let store = try await OperatedStores.open(place)
        return try await store.closing { try await DatabaseCheck.run(on: $0, in: reader) }
    }

    /// Puts the backup at `path` in place of the configured database: into a stopped server's data directory, or an
    /// empty PostgreSQL database. The copy is checked first and migrated forward.
    package static func restore(_ configuration: Configuration, from path: String, in reader: Reader) async throws
        -> Report
    {
        try await Restore.run(configuration, from: path, in: reader)
    }

    /// The migrations starting the server would apply now, in order; nothing is changed.
    public static func migrationPlan(_ configuration: Configuration) async throws -> [String] {
        if configuration.databaseURL == nil, !FileManager.default.fileExists(atPath: configuration.sqlitePath) {
            return Migrations.steps.map(\.name)
        }
        let store = try await OperatedStores.open(.configured(configuration), creating: false)
        return try await store.closing { store in
            let applied = try await SchemaVersion.read(store)
            try applied.refuseNewer()
            return applied.pending
        }
    }

    /// Copies every table of the configured database (the server stopped) into the empty database at `target`, a
    /// `postgres://` URL or an SQLite file's path, and compares the two table by table.
    package static func copyDatabase(_ configuration: Configuration, to target: String, in reader: Reader)
        async throws -> Report
    {
        try await DatabaseCopy.run(from: .configured(configuration), to: OperatedStores.place(of: target), in: reader)
    }

    /// What a command did, line by line, in the language of whoever runs it.
    public struct Report: Sendable {
        public var lines: [String]
    }
}

/// An operator's command that will not go ahead, with the sentence that says why and what to do instead.
public struct OperationRefused: Error, CustomStringConvertible {
    public var message: Phrase

    public init(message: Phrase) {
        self.message = message
    }

    /// The sentence in English, for a log; the command line says `message` in its own language.
    public var description: String { Reader.english.say(message) }
}

extension Operations {
    /// The log the commands keep quiet: they speak through their reports.
    static var logger: Logger {
        var logger = Logger(label: "rollcall")
        logger.logLevel = .warning
        return logger
    }
}
