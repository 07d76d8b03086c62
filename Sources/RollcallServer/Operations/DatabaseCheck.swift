import Foundation
import RollcallCore
import RollcallWeb
import RollcallWords
import SQLKit

/// What `rollcall check` found: the problems, each a sentence, and a short summary of what was checked.
public struct CheckReport: Sendable {
    public var problems: [String]
    public var summary: [String]

    public var passed: Bool { problems.isEmpty }
}

/// The database's integrity and Rollcall's own invariants, read without changing anything.
enum DatabaseCheck {
    /// How many problems of one kind are listed before the rest are only counted.
    static let listed = 20

    static func run(on store: OperatedStore, in reader: Reader) async throws -> CheckReport {
        var problems: [String] = []
        let version = try await SchemaVersion.read(store)
        if !version.unknown.isEmpty {
            problems.append(
                reader.say(
                    "The schema has steps this Rollcall does not know (\(version.unknown.joined(separator: ", "))): check it with the Rollcall that wrote it."
                ))
        }
        if store.engine == .sqlite { problems += try await sqliteIntegrity(store, in: reader) }
        let (tables, rows) = try await store.using { sql in
            let tables = try await StoredTables.inOrder(sql)
            return (tables.count, try await StoredTables.counts(sql, of: tables).values.reduce(0, +))
        }
        guard tables > 0 else {
            return CheckReport(
                problems: problems, summary: [reader.say("The database is empty: it holds no tables yet.")])
        }
        problems += try await store.using { sql in try await orphanedRecords(sql, in: reader) }
        let (auditProblems, replayed) = try await store.using { sql in try await AuditReplay.check(sql, in: reader) }
        problems += auditProblems
        var summary = [
            reader.say("Checked \(store.name): schema \(version.latest), \(rows) rows in \(tables) tables."),
            reader.say("Audit entries replayed to their records: \(replayed)."),
        ]
        if !version.pending.isEmpty {
            summary.append(reader.say("Schema steps the next start applies: \(version.pending.count)."))
        }
        return CheckReport(problems: problems, summary: summary)
    }

    /// SQLite's own checks: every page and index whole, and every foreign key pointing at a row.
    private static func sqliteIntegrity(_ store: OperatedStore, in reader: Reader) async throws -> [String] {
        try await store.using { sql in
            var problems: [String] = []
            let integrity = try await sql.raw("PRAGMA integrity_check").all(
                decodingColumn: "integrity_check", as: String.self)
            if integrity != ["ok"] {
                problems += integrity.prefix(listed).map { reader.say("SQLite's integrity check: \($0)") }
            }
            let keys = try await sql.raw("PRAGMA foreign_key_check").all()
            for key in keys.prefix(listed) {
                let table = try key.decode(column: "table", as: String.self)
                let parent = try key.decode(column: "parent", as: String.self)
                let row =
                    try key.decodeNil(column: "rowid") ? "?" : String(try key.decode(column: "rowid", as: Int64.self))
                problems.append(reader.say("Row \(row) of \(table) refers to a row of \(parent) that does not exist."))
            }
            if keys.count > listed {
                problems.append(
                    reader.say("Further rows that refer to rows that do not exist: \(keys.count - listed)."))
            }
            return problems
        }
    }

    /// Attendance rows whose session or student is gone: on PostgreSQL the keys forbid them, on SQLite a file written
    /// with its keys off may hold them.
    private static func orphanedRecords(_ sql: any SQLDatabase, in reader: Reader) async throws -> [String] {
        let rows = try await sql.raw(
            """
            SELECT a.session_id, a.student_id, s.id AS found_session, u.id AS found_student FROM attendance a
            LEFT JOIN sessions s ON s.id = a.session_id LEFT JOIN users u ON u.id = a.student_id
            WHERE s.id IS NULL OR u.id IS NULL
            """
        ).all()
        var problems: [String] = []
        for row in rows.prefix(listed) {
            let session = try row.decode(column: "session_id", as: Int64.self)
            let student = try row.decode(column: "student_id", as: Int64.self)
            if try row.decodeNil(column: "found_session") {
                problems.append(
                    reader.say("The attendance of student \(student) in session \(session) names no session."))
            } else {
                problems.append(
                    reader.say("The attendance of student \(student) in session \(session) names no student."))
            }
        }
        if rows.count > listed {
            problems.append(
                reader.say("Further attendance rows that name no session or no student: \(rows.count - listed)."))
        }
        return problems
    }
}
