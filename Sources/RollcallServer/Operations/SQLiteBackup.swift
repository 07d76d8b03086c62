import Crypto
import Foundation
import RollcallCore
import RollcallWords
import SQLKit

/// What a backup holds, written beside it as `PATH.json`: the schema it has, its rows table by table, and its size
/// and digest, which tell a whole copy from a truncated or altered one.
struct BackupManifest: Codable, Sendable, Equatable {
    var format = "rollcall-backup-1"
    var engine = "sqlite"
    var takenAt: Date
    /// The latest schema step the copy has taken.
    var schemaVersion: String
    var migrations: [String]
    var tables: [String: Int]
    var bytes: Int
    var sha256: String

    static func path(beside backup: String) -> String { backup + ".json" }

    func write(to path: String) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .iso8601
        try encoder.encode(self).write(to: URL(fileURLWithPath: path), options: .atomic)
    }

    /// The manifest beside `backup`, when there is one.
    static func read(beside backup: String) throws -> BackupManifest? {
        let path = path(beside: backup)
        guard FileManager.default.fileExists(atPath: path) else { return nil }
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        do {
            return try decoder.decode(BackupManifest.self, from: Data(contentsOf: URL(fileURLWithPath: path)))
        } catch {
            throw OperationRefused(message: "\(path) is not a backup's description that this Rollcall can read.")
        }
    }
}

/// A consistent copy of the SQLite database, taken while the server runs: `VACUUM INTO` reads one snapshot of the
/// file, every transaction committed before it began and none after, while the server goes on writing beside it.
/// A file copy would not do: it can catch a page half-written, or miss what is still in the WAL.
enum SQLiteBackup {
    struct Taken: Sendable {
        var manifest: BackupManifest
        var seconds: Double
        var path: String

        func report(in reader: Reader) -> Operations.Report {
            let rows = manifest.tables.values.reduce(0, +)
            let time = String(format: "%.2f", seconds)
            return Operations.Report(lines: [
                reader.say(
                    "Backup written to \(path): \(manifest.bytes) bytes, schema \(manifest.schemaVersion), \(rows) rows in \(manifest.tables.count) tables, in \(time) s."
                ),
                reader.say("What it holds is described in \(BackupManifest.path(beside: path))."),
            ])
        }
    }

    static func take(from source: String, to path: String, force: Bool) async throws -> Taken {
        let manifestPath = BackupManifest.path(beside: path)
        let files = FileManager.default
        if !force, files.fileExists(atPath: path) || files.fileExists(atPath: manifestPath) {
            throw OperationRefused(message: "\(path) exists already: give --force to replace it, or another path.")
        }
        let directory = URL(fileURLWithPath: path).deletingLastPathComponent().path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        // Written under another name and renamed whole: an interrupted backup never leaves a half file at `path`.
        let partial = path + ".partial"
        try? FileManager.default.removeItem(atPath: partial)
        let started = ContinuousClock.now
        try await OperatedStore(file: source).closing { store in
            try await store.using { sql in try await sql.raw("VACUUM INTO \(bind: partial)").run() }
        }
        // A copy in rollback-journal mode is one file, whole without a `-wal` beside it.
        try await OperatedStore(file: partial).closing { store in
            try await store.using { sql in try await sql.raw("PRAGMA journal_mode = DELETE").run() }
        }
        var manifest = try await describe(partial)
        manifest.takenAt = Date()
        if force {
            try? FileManager.default.removeItem(atPath: path)
            try? FileManager.default.removeItem(atPath: manifestPath)
        }
        try FileManager.default.moveItem(atPath: partial, toPath: path)
        try manifest.write(to: manifestPath)
        let elapsed = ContinuousClock.now - started
        let seconds = elapsed.seconds
        return Taken(manifest: manifest, seconds: seconds, path: path)
    }

    /// Reads the copy at `path`: its schema, its rows, its size and digest.
    static func describe(_ path: String) async throws -> BackupManifest {
        let (version, counts) = try await OperatedStore(file: path).closing { store in
            let version = try await SchemaVersion.read(store)
            let counts = try await store.using { sql in
                try await StoredTables.counts(sql, of: try await StoredTables.inOrder(sql))
            }
            return (version, counts)
        }
        let (bytes, digest) = try digest(of: path)
        return BackupManifest(
            takenAt: Date(), schemaVersion: version.latest, migrations: version.applied, tables: counts, bytes: bytes,
            sha256: digest)
    }

    /// The size and SHA-256 of the file at `path`, read a megabyte at a time.
    static func digest(of path: String) throws -> (Int, String) {
        guard let file = FileHandle(forReadingAtPath: path) else {
            throw OperationRefused(message: "There is no database at \(path).")
        }
        defer { try? file.close() }
        var hash = SHA256()
        var bytes = 0
        while let chunk = try file.read(upToCount: 1 << 20), !chunk.isEmpty {
            hash.update(data: chunk)
            bytes += chunk.count
        }
        return (bytes, hash.finalize().map { String(format: "%02x", $0) }.joined())
    }
}
