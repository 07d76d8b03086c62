import Foundation
import SQLKit

/// One of Rollcall's tables as the copy, the checksums and the backup's counts see it, read from the database's own
/// catalog so that a table a migration adds is never forgotten here.
struct StoredTable: Sendable, Equatable {
    var name: String
    var columns: [String]
    /// Each column's kind, where PostgreSQL's catalog tells it; SQLite keeps a time and a number alike as REAL.
    var kinds: [String: StoredValue.Kind]
    /// The tables this one's rows refer to, which are copied before it.
    var parents: Set<String>
    /// On PostgreSQL, the identity columns, whose sequences must be moved past the ids copied.
    var identities: [String]
}

enum StoredTables {
    /// Kept by the database itself (SQLite's own tables are all `sqlite_…`) or by the migrations, never copied or
    /// counted as a school's data.
    static let bookkeeping: Set<String> = ["schema_migrations", "sqlite_sequence"]

    /// The names of every table, bookkeeping included.
    static func names(in sql: any SQLDatabase) async throws -> Set<String> {
        let query: SQLQueryString =
            sql.dialect.name == "sqlite"
            ? "SELECT name FROM sqlite_master WHERE type = 'table'"
            : """
            SELECT table_name AS name FROM information_schema.tables
            WHERE table_schema = current_schema() AND table_type = 'BASE TABLE'
            """
        return Set(try await sql.raw(query).all(decodingColumn: "name", as: String.self))
    }

    /// Every table of a school's data, each after the tables it refers to, ties by name.
    static func inOrder(_ sql: any SQLDatabase) async throws -> [StoredTable] {
        var tables: [StoredTable] = []
        for name in try await names(in: sql).subtracting(bookkeeping).sorted() where !name.hasPrefix("sqlite_") {
            tables.append(try await sql.dialect.name == "sqlite" ? sqliteTable(name, sql) : postgresTable(name, sql))
        }
        return ordered(tables)
    }

    /// Kahn's order: a table comes once every table it refers to has come.
    static func ordered(_ tables: [StoredTable]) -> [StoredTable] {
        var placed: Set<String> = []
        var remaining = tables
        var result: [StoredTable] = []
        while !remaining.isEmpty {
            let ready = remaining.filter { $0.parents.subtracting([$0.name]).isSubset(of: placed) }
            // A cycle cannot be ordered; its tables follow in name order, and the target's keys will say so.
            let next = ready.isEmpty ? remaining : ready
            result += next
            placed.formUnion(next.map(\.name))
            remaining.removeAll { table in next.contains { $0.name == table.name } }
        }
        return result
    }

    private static func sqliteTable(_ name: String, _ sql: any SQLDatabase) async throws -> StoredTable {
        let columns = try await sql.raw("SELECT name FROM pragma_table_info(\(bind: name)) ORDER BY cid")
            .all(decodingColumn: "name", as: String.self)
        let parents = try await sql.raw("SELECT \"table\" AS parent FROM pragma_foreign_key_list(\(bind: name))")
            .all(decodingColumn: "parent", as: String.self)
        return StoredTable(name: name, columns: columns, kinds: [:], parents: Set(parents), identities: [])
    }

    private static func postgresTable(_ name: String, _ sql: any SQLDatabase) async throws -> StoredTable {
        let rows = try await sql.raw(
            """
            SELECT column_name, data_type, is_identity FROM information_schema.columns
            WHERE table_schema = current_schema() AND table_name = \(bind: name) ORDER BY ordinal_position
            """
        ).all()
        var columns: [String] = []
        var kinds: [String: StoredValue.Kind] = [:]
        var identities: [String] = []
        for row in rows {
            let column = try row.decode(column: "column_name", as: String.self)
            columns.append(column)
            kinds[column] = StoredValue.Kind(postgresType: try row.decode(column: "data_type", as: String.self))
            if try row.decode(column: "is_identity", as: String.self) == "YES" { identities.append(column) }
        }
        let parents = try await sql.raw(
            """
            SELECT DISTINCT parent.relname AS parent FROM pg_constraint c
            JOIN pg_class parent ON parent.oid = c.confrelid
            WHERE c.contype = 'f' AND c.conrelid = CAST(\(bind: name) AS regclass)
            """
        ).all(decodingColumn: "parent", as: String.self)
        return StoredTable(name: name, columns: columns, kinds: kinds, parents: Set(parents), identities: identities)
    }

    /// How many rows each table holds.
    static func counts(_ sql: any SQLDatabase, of tables: [StoredTable]) async throws -> [String: Int] {
        var counts: [String: Int] = [:]
        for table in tables {
            counts[table.name] =
                try await sql.raw("SELECT COUNT(*) AS n FROM \(ident: table.name)")
                .first(decodingColumn: "n", as: Int.self) ?? 0
        }
        return counts
    }
}
