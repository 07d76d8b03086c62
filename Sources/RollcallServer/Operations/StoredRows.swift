import Crypto
import Foundation
import NIOCore
import RollcallStorage
import SQLKit
import SQLiteNIO

/// One stored value, read the same way from either engine so that a row copied from one to the other can be
/// compared with its original.
enum StoredValue: Sendable, Hashable {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)
    case bool(Bool)
    case blob([UInt8])
    /// Seconds since 1970, as SQLite keeps a time and as PostgreSQL's `to_timestamp` takes it.
    case time(Double)

    /// What a column holds, as PostgreSQL's catalog names it.
    enum Kind: Sendable, Equatable {
        case integer, real, text, bool, blob, time

        init?(postgresType: String) {
            switch postgresType {
            case "bigint", "integer", "smallint": self = .integer
            case "double precision", "real", "numeric": self = .real
            case "text", "character varying", "character": self = .text
            case "boolean": self = .bool
            case "bytea": self = .blob
            case "timestamp with time zone", "timestamp without time zone": self = .time
            default: return nil
            }
        }
    }

    /// Reads `column` of `row`; an SQLite row's values are taken as SQLite holds them, then read as `kind`.
    static func read(_ row: any SQLRow, column: String, kind: Kind?) throws -> StoredValue {
        if let row = row as? SQLiteFileRow, let offset = row.columns.offset(of: column) {
            return fromSQLite(row.values[offset], kind: kind)
        }
        if try row.decodeNil(column: column) { return .null }
        switch kind {
        case .integer: return .integer(try row.decode(column: column, as: Int64.self))
        case .real: return .real(try row.decode(column: column, as: Double.self))
        case .bool: return .bool(try row.decode(column: column, as: Bool.self))
        case .blob: return .blob(Array(try row.decode(column: column, as: Data.self)))
        case .time: return .time(try row.decode(column: column, as: Date.self).timeIntervalSince1970)
        case .text, nil: return .text(try row.decode(column: column, as: String.self))
        }
    }

    private static func fromSQLite(_ value: SQLiteData, kind: Kind?) -> StoredValue {
        switch (value, kind) {
        case (.null, _): .null
        case (.integer(let number), .text): .text(String(number))
        case (.float(let number), .text): .text(String(number))
        case (.integer(let number), .bool): .bool(number != 0)
        case (.integer(let number), .real): .real(Double(number))
        case (.integer(let number), .time): .time(Double(number))
        case (.integer(let number), _): .integer(Int64(number))
        case (.float(let number), .time): .time(number)
        case (.float(let number), .integer): .integer(Int64(number))
        case (.float(let number), _): .real(number)
        case (.text(let text), _): .text(text)
        case (.blob(let bytes), _): .blob(Array(bytes.readableBytesView))
        }
    }

    /// The value as a statement on `engine` writes it.
    func bound(for engine: Database.Engine) -> any SQLExpression {
        switch self {
        case .null: SQLLiteral.null
        case .integer(let number): SQLBind(number)
        case .real(let number): SQLBind(number)
        case .text(let text): SQLBind(text)
        case .bool(let flag): SQLBind(flag)
        case .blob(let bytes): SQLBind(Data(bytes))
        // PostgreSQL rounds the seconds to its microseconds exactly as `canonical` does.
        case .time(let seconds):
            engine == .postgres ? SQLFunction("to_timestamp", args: SQLBind(seconds)) : SQLBind(seconds)
        }
    }

    /// The value as the checksums see it: a time to the microsecond PostgreSQL keeps, rounded as it rounds.
    var canonical: String {
        switch self {
        case .null: "N"
        case .integer(let number): "I\(number)"
        case .real(let number): "R\(number)"
        case .text(let text): "T" + text
        case .bool(let flag): flag ? "B1" : "B0"
        case .blob(let bytes): "X" + bytes.map { String(format: "%02x", $0) }.joined()
        case .time(let seconds):
            "D\(Int64(((seconds - 946_684_800) * 1_000_000).rounded(.toNearestOrEven)))"
        }
    }
}

/// A table's rows summed up so that the same rows give the same checksum in any order, as two engines list them:
/// the SHA-256 of each row, added up.
struct TableChecksum: Sendable, Equatable {
    private(set) var rows = 0
    private var low: UInt64 = 0
    private var high: UInt64 = 0

    mutating func add(_ row: [StoredValue]) {
        var hash = SHA256()
        for value in row {
            hash.update(data: Data(value.canonical.utf8))
            hash.update(data: [0x1F])
        }
        let digest = Array(hash.finalize())
        low &+= digest[0..<8].reduce(0) { $0 << 8 | UInt64($1) }
        high &+= digest[8..<16].reduce(0) { $0 << 8 | UInt64($1) }
        rows += 1
    }

    var hex: String { String(format: "%016llx%016llx", high, low) }
}

/// Reads a table's rows in batches, in the order they were written where the engine keeps one.
enum TableScan {
    static let batchSize = 500

    /// Hands `each` the rows of `table`, `columns` in that order, a batch at a time.
    static func rows(
        of table: StoredTable, columns: [String], kinds: [String: StoredValue.Kind], in sql: any SQLDatabase,
        _ each: ([[StoredValue]]) async throws -> Void
    ) async throws {
        let list = SQLList(columns.map { SQLIdentifier($0) })
        let sqlite = sql.dialect.name == "sqlite"
        // SQLite's rowid, and PostgreSQL's identity `id`, give pages that need no offset; a table without either
        // is read whole.
        let key = sqlite ? "rowid" : (table.identities.contains("id") ? "id" : nil)
        var after = Int64.min
        while true {
            var query = sql.select().column(list).from(SQLIdentifier(table.name))
            if let key {
                query = query.column(SQLAlias(SQLIdentifier(key), as: SQLIdentifier("rollcall_key")))
                    .where(SQLIdentifier(key), .greaterThan, SQLBind(after))
                    .orderBy(SQLIdentifier(key)).limit(batchSize)
            }
            let rows = try await query.all()
            guard !rows.isEmpty else { return }
            // A table read whole is still handed on a batch at a time: one statement takes only so many values.
            for start in stride(from: 0, to: rows.count, by: batchSize) {
                try await each(
                    try rows[start..<min(start + batchSize, rows.count)].map { row in
                        try columns.map { try StoredValue.read(row, column: $0, kind: kinds[$0]) }
                    })
            }
            guard key != nil, rows.count == batchSize, let last = rows.last else { return }
            after = try last.decode(column: "rollcall_key", as: Int64.self)
        }
    }

    /// The checksum of every row of `table`.
    static func checksum(
        of table: StoredTable, columns: [String], kinds: [String: StoredValue.Kind], in sql: any SQLDatabase
    ) async throws -> TableChecksum {
        var sum = TableChecksum()
        try await rows(of: table, columns: columns, kinds: kinds, in: sql) { batch in
            for row in batch { sum.add(row) }
        }
        return sum
    }
}
