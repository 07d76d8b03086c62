import Foundation
import RollcallCore
import RollcallWords
import SQLKit

/// `rollcall copy-database`: every table of a stopped server's database copied into an empty one, SQLite to
/// PostgreSQL or back, and the two compared table by table before the copy is committed.
///
/// The source must be still: an SQLite file is held by the command alone for the whole copy (`SQLiteExclusive`,
/// which refuses while a server has it open), and a PostgreSQL source with other connections open is refused, then
/// read in one snapshot. The target is written in one transaction, so a copy that fails or does not compare equal
/// leaves it as empty as it was.
enum DatabaseCopy {
    static func run(from source: OperatedStores.Place, to target: OperatedStores.Place, in reader: Reader)
        async throws -> Operations.Report
    {
        let (source, target) = (source.resolved, target.resolved)
        if case .sqliteFile(let from) = source, case .sqliteFile(let to) = target,
            URL(fileURLWithPath: from).standardized == URL(fileURLWithPath: to).standardized
        {
            throw OperationRefused(message: "The source and the target are the same file.")
        }
        let opened = try await CopySource.open(source)
        // A target file the command made is removed again when the copy fails, as if it had never been asked for.
        var made: String?
        if case .sqliteFile(let path) = target, !FileManager.default.fileExists(atPath: path) { made = path }
        do {
            let report = try await copy(from: opened, to: target, in: reader)
            try await opened.close()
            return report
        } catch {
            try? await opened.close()
            for side in ["", "-wal", "-shm"] {
                if let made { try? FileManager.default.removeItem(atPath: made + side) }
            }
            throw error
        }
    }

    private static func copy(from source: CopySource, to place: OperatedStores.Place, in reader: Reader)
        async throws -> Operations.Report
    {
        let version = try await source.read { sql in try await SchemaVersion.read(sql) }
        try version.refuseNewer()
        guard version.pending.isEmpty else {
            throw OperationRefused(
                message:
                    "The source's schema is older than this Rollcall's: run rollcall migrate on it first, then copy.")
        }
        let target = try await OperatedStores.open(place, creating: true)
        return try await target.closing { target in
            try await refuseNonEmpty(target)
            try await target.migrate()
            let tables = try await source.read { try await StoredTables.inOrder($0) }
            let targetTables = try await target.using { try await StoredTables.inOrder($0) }
            guard Set(tables.map(\.name)) == Set(targetTables.map(\.name)) else {
                throw OperationRefused(message: "The two databases do not have the same tables; nothing was copied.")
            }
            let started = ContinuousClock.now
            let compared = try await source.read { from in
                try await target.transaction { into in
                    try await TableCopy.all(targetTables, from: from, into: into, sourceTables: tables)
                }
            }
            return report(compared, from: source.name, to: target.name, took: ContinuousClock.now - started, in: reader)
        }
    }

    /// Refuses a target that holds any row of a school's data: a copy is a move into a new home, never a merge.
    private static func refuseNonEmpty(_ target: OperatedStore) async throws {
        try await SchemaVersion.read(target).refuseNewer()
        let counts = try await target.using { sql in
            try await StoredTables.counts(sql, of: try await StoredTables.inOrder(sql))
        }
        let filled = counts.filter { $0.value > 0 }.keys.sorted()
        guard filled.isEmpty else {
            let rows = counts.values.reduce(0, +)
            throw OperationRefused(
                message:
                    "\(target.name) is not empty (\(rows) rows, in \(filled.joined(separator: ", "))): copy only into an empty database."
            )
        }
    }

    private static func report(
        _ tables: [TableCopy.Compared], from: String, to: String, took: Duration, in reader: Reader
    )
        -> Operations.Report
    {
        let rows = tables.map(\.rows).reduce(0, +)
        let seconds = String(format: "%.2f", took.seconds)
        var lines = [reader.say("Copied \(from) to \(to): \(rows) rows in \(tables.count) tables, in \(seconds) s.")]
        let width = tables.map(\.name.count).max() ?? 0
        for table in tables {
            let name = table.name.padding(toLength: width, withPad: " ", startingAt: 0)
            lines.append("  \(name)  \(table.rows) = \(table.rows)  \(table.source) = \(table.target)")
        }
        lines.append(reader.say("Row counts and checksums are equal on both sides."))
        return Operations.Report(lines: lines)
    }
}

/// The database copied from, held still while it is read.
enum CopySource: Sendable {
    case sqlite(SQLiteExclusive)
    case postgres(OperatedStore)

    static func open(_ place: OperatedStores.Place) async throws -> CopySource {
        switch place {
        case .sqliteFile(let path):
            guard FileManager.default.fileExists(atPath: path) else {
                throw OperationRefused(message: "There is no database at \(path).")
            }
            return .sqlite(try SQLiteExclusive(path: path))
        default:
            let store = try await OperatedStores.open(place)
            let others = try await store.using { sql in
                try await sql.raw(
                    """
                    SELECT COUNT(*) AS n FROM pg_stat_activity
                    WHERE datname = current_database() AND pid <> pg_backend_pid()
                    """
                ).first(decodingColumn: "n", as: Int.self) ?? 0
            }
            guard others == 0 else {
                try? await store.close()
                throw OperationRefused(
                    message:
                        "Other connections to \(store.name) are open: stop every Rollcall server that uses it first."
                )
            }
            return .postgres(store)
        }
    }

    var name: String {
        switch self {
        case .sqlite(let held): held.path
        case .postgres(let store): store.name
        }
    }

    /// Runs `body` on one snapshot of the source.
    func read<T: Sendable>(_ body: @Sendable (any SQLDatabase) async throws -> T) async throws -> T {
        switch self {
        case .sqlite(let held): try await body(held.sql)
        case .postgres(let store): try await store.transaction(readOnly: true, body)
        }
    }

    func close() async throws {
        switch self {
        case .sqlite(let held): held.release()
        case .postgres(let store): try await store.close()
        }
    }
}
