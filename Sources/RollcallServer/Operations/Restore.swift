import Foundation
import RollcallHealth
import RollcallParts
import RollcallStorage
import RollcallWords
import SQLKit

/// `rollcall restore`: a backup put in place of the configured database, checked before anything is replaced.
///
/// The backup is first made into a database of its own beside the target (`….restoring`): copied, migrated to this
/// build's schema, its aged-out evidence deleted as the running server would, and checked. Only then is the
/// target replaced, while the command holds the old file alone (`SQLiteExclusive`), so no server can be using it.
/// The file replaced is kept beside it. On PostgreSQL, the prepared copy goes into an empty database.
enum Restore {
    static func run(_ configuration: Configuration, from backup: String, in reader: Reader) async throws
        -> Operations.Report
    {
        try await verify(backup)
        switch OperatedStores.Place.configured(configuration).resolved {
        case .sqliteFile(let target):
            return try await intoSQLite(configuration, from: backup, target: target, in: reader)
        case .postgres(let url):
            let prepared = FileManager.default.temporaryDirectory.appendingPathComponent(
                "rollcall-restore-\(UUID().uuidString).sqlite"
            ).path
            defer { removeFile(prepared) }
            try await prepare(backup, at: prepared, evidenceDays: configuration.evidenceDays, in: reader)
            var report = try await DatabaseCopy.run(from: .sqliteFile(prepared), to: .postgres(url), in: reader)
            report.lines.insert(reader.say("Restored \(backup) into \(OperatedStores.shown(url))."), at: 0)
            return report
        case .configured:
            preconditionFailure("a resolved place is never the configuration")
        }
    }

    private static func intoSQLite(
        _ configuration: Configuration, from backup: String, target: String, in reader: Reader
    ) async throws -> Operations.Report {
        let held = FileManager.default.fileExists(atPath: target) ? try SQLiteExclusive(path: target) : nil
        let directory = URL(fileURLWithPath: target).deletingLastPathComponent().path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { held?.release() }
        let prepared = target + ".restoring"
        removeFile(prepared)
        do {
            try await prepare(backup, at: prepared, evidenceDays: configuration.evidenceDays, in: reader)
        } catch {
            removeFile(prepared)
            throw error
        }
        var lines: [String] = []
        if let held {
            try held.settle()
            let stamp = ISO8601DateFormatter().string(from: Date()).replacingOccurrences(of: ":", with: "")
            let kept = "\(target).before-restore-\(stamp)"
            try FileManager.default.moveItem(atPath: target, toPath: kept)
            lines.append(reader.say("The database it replaces is kept at \(kept)."))
        }
        for side in ["-wal", "-shm", "-journal"] { removeFile(target + side) }
        try FileManager.default.moveItem(atPath: prepared, toPath: target)
        let version = try await OperatedStore(file: target).closing { try await SchemaVersion.read($0) }
        lines.insert(reader.say("Restored \(backup) into \(target): schema \(version.latest)."), at: 0)
        return Operations.Report(lines: lines)
    }

    /// Refuses a backup this build cannot restore: not whole (its description's size and digest, SQLite's integrity
    /// check), not Rollcall's, or written by a newer Rollcall.
    static func verify(_ backup: String) async throws {
        if let manifest = try BackupManifest.read(beside: backup) {
            let (bytes, digest) = try SQLiteBackup.digest(of: backup)
            guard bytes == manifest.bytes, digest == manifest.sha256 else {
                throw OperationRefused(
                    message:
                        "\(backup) is not the file its description speaks of (\(bytes) bytes, not \(manifest.bytes)): it may be truncated or altered, so it is not restored."
                )
            }
        }
        let problems: [String]
        let version: SchemaVersion
        do {
            (problems, version) = try await OperatedStore(file: backup).closing { store in
                let integrity = try await store.using { sql in
                    try await sql.raw("PRAGMA integrity_check").all(decodingColumn: "integrity_check", as: String.self)
                }
                return (integrity == ["ok"] ? [] : integrity, try await SchemaVersion.read(store))
            }
        } catch let refused as OperationRefused {
            throw refused
        } catch {
            throw OperationRefused(
                message:
                    "\(backup) is not a whole SQLite database, so it is not restored (\(String(describing: error))).")
        }
        guard problems.isEmpty else {
            throw OperationRefused(
                message: "\(backup) fails SQLite's integrity check, so it is not restored (\(problems[0])).")
        }
        guard version.applied.contains(Migrations.steps[0].name) else {
            throw OperationRefused(message: "\(backup) is not a Rollcall database, so it is not restored.")
        }
        try version.refuseNewer()
    }

    /// Makes the database at `path` from the backup: copied, migrated, aged-out evidence deleted, checked, and left
    /// in rollback-journal mode with nothing beside it.
    static func prepare(_ backup: String, at path: String, evidenceDays: Int, in reader: Reader) async throws {
        try await OperatedStore(file: backup).closing { store in
            try await store.using { sql in try await sql.raw("VACUUM INTO \(bind: path)").run() }
        }
        let database = try Database.sqlite(path: path, logger: Operations.logger)
        try await database.closingAfter {
            try await Migrations.apply(to: database)
            try await EvidenceRetention.purge(database, days: evidenceDays, now: Date())
        }
        let report = try await OperatedStore(file: path).closing { store in
            try await store.using { sql in try await sql.raw("PRAGMA journal_mode = DELETE").run() }
            return try await DatabaseCheck.run(on: store, in: reader)
        }
        guard report.passed else {
            throw OperationRefused(
                message: "\(backup) does not pass rollcall check, so it is not restored (\(report.problems[0])).")
        }
    }

    private static func removeFile(_ path: String) {
        try? FileManager.default.removeItem(atPath: path)
    }
}

extension Database {
    /// Runs `body`, then closes every connection, whether it threw or not.
    fileprivate func closingAfter(_ body: () async throws -> Void) async throws {
        do {
            try await body()
            try await shutdown()
        } catch {
            try? await self.shutdown()
            throw error
        }
    }
}
