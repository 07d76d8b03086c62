import Foundation
import RollcallStorage
import SQLKit

/// Copies tables row by row between the engines, and compares each copy with its original.
enum TableCopy {
    /// One table copied: its rows, and the checksum of its rows on each side.
    struct Compared: Sendable {
        var name: String
        var rows: Int
        var source: String
        var target: String
    }

    /// Copies every table of `tables` (the target's, in dependency order) from `source` into `target`, and throws
    /// when any copy differs from its original.
    static func all(
        _ tables: [StoredTable], from source: any SQLDatabase, into target: any SQLDatabase,
        sourceTables: [StoredTable]
    ) async throws -> [Compared] {
        var compared: [Compared] = []
        for table in tables {
            guard let original = sourceTables.first(where: { $0.name == table.name }),
                Set(original.columns) == Set(table.columns)
            else {
                throw OperationRefused(
                    message: "The table \(table.name) has other columns in the two databases; nothing was copied.")
            }
            compared.append(try await copy(table, original: original, from: source, into: target))
        }
        return compared
    }

    private static func copy(
        _ table: StoredTable, original: StoredTable, from source: any SQLDatabase, into target: any SQLDatabase
    ) async throws -> Compared {
        // The kinds come from PostgreSQL's catalog, whichever side it is on; between two SQLite files, values are
        // copied as SQLite holds them.
        let kinds = table.kinds.isEmpty ? original.kinds : table.kinds
        let engine: Database.Engine = target.dialect.name == "sqlite" ? .sqlite : .postgres
        var sent = TableChecksum()
        try await TableScan.rows(of: original, columns: table.columns, kinds: kinds, in: source) { batch in
            for row in batch { sent.add(row) }
            var insert = target.insert(into: table.name).columns(table.columns)
            for row in batch { insert = insert.values(row.map { $0.bound(for: engine) }) }
            try await insert.run()
        }
        if engine == .postgres { try await advanceIdentities(of: table, in: target) }
        let kept = try await TableScan.checksum(of: table, columns: table.columns, kinds: kinds, in: target)
        guard kept == sent else {
            throw OperationRefused(
                message:
                    "The copy of \(table.name) differs from its original (\(sent.rows) rows, checksum \(sent.hex); the copy has \(kept.rows), checksum \(kept.hex)); nothing was copied."
            )
        }
        return Compared(name: table.name, rows: sent.rows, source: sent.hex, target: kept.hex)
    }

    /// Moves each identity sequence past the highest id copied, so that the next row PostgreSQL numbers itself
    /// (the next check-in, the next account) takes a new id.
    private static func advanceIdentities(of table: StoredTable, in sql: any SQLDatabase) async throws {
        for column in table.identities {
            try await sql.raw(
                """
                SELECT setval(pg_get_serial_sequence(\(bind: table.name), \(bind: column)),
                              COALESCE((SELECT MAX(\(ident: column)) FROM \(ident: table.name)), 0) + 1, false)
                """
            ).run()
        }
    }
}
