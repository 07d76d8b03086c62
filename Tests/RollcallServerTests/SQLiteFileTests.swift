import Foundation
import Logging
import NIOConcurrencyHelpers
import NIOCore
import RollcallStorage
import SQLKit
import SQLiteKit
import Testing

@testable import RollcallServer

/// Rollcall's own SQLite connections: statements prepared once and kept, connections handed to one task at a time.
@Suite("SQLite file", .timeLimit(.minutes(5)))
struct SQLiteFileTests {
    /// A connection on a fresh file, closed after `body`.
    func withConnection(_ body: (SQLiteFileConnection) throws -> Void) throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("rollcall-sqlite-\(UUID())").path
        defer {
            for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
        }
        let connection = try SQLiteFileConnection(
            path: path, create: true, pragmas: ["PRAGMA journal_mode = WAL", "PRAGMA foreign_keys = ON"])
        defer { connection.close() }
        try body(connection)
    }

    func rows(_ connection: SQLiteFileConnection, _ sql: String, _ binds: [SQLiteData] = []) throws -> [SQLiteFileRow] {
        var rows: [SQLiteFileRow] = []
        try connection.run(sql, binds: binds) { rows.append($0) }
        return rows
    }

    @Test func a_statement_is_prepared_once_and_kept_whatever_is_bound() throws {
        try withConnection { connection in
            _ = try rows(connection, "CREATE TABLE people (id INTEGER PRIMARY KEY, name TEXT NOT NULL, role TEXT)")
            _ = try rows(connection, "CREATE INDEX people_role ON people(role)")
            let before = connection.preparations
            let insert = "INSERT INTO people (id, name, role) VALUES (?1, ?2, ?3)"
            for id in 1...50 {
                _ = try rows(
                    connection, insert, [.integer(id), .text("Person \(id)"), id % 2 == 0 ? .text("a") : .null])
            }
            // An equality against a parameter lets SQLite's planner look at the bound value; the statement must not
            // be prepared anew for every new value.
            let find = "SELECT name FROM people WHERE role = ?1 AND id > ?2 ORDER BY id"
            for id in 0..<50 {
                let found = try rows(connection, find, [.text("a"), .integer(id)])
                #expect(found.count == (1...50).filter { $0 % 2 == 0 && $0 > id }.count)
            }
            #expect(connection.preparations - before == 2)
            #expect(connection.reprepared(insert) == 0)
            #expect(connection.reprepared(find) == 0)
        }
    }

    @Test func rows_decode_as_sqlkit_decodes_them() throws {
        try withConnection { connection in
            let row = try #require(
                try rows(
                    connection, "SELECT ?1 AS number, ?2 AS text, ?3 AS blob, NULL AS absent, 1.5 AS fraction",
                    [.integer(42), .text("Grüße"), .blob(ByteBuffer(bytes: [0, 1, 2]))]
                ).first)
            #expect(row.allColumns == ["number", "text", "blob", "absent", "fraction"])
            #expect(try row.decode(column: "number", as: Int64.self) == 42)
            #expect(try row.decode(column: "text", as: String.self) == "Grüße")
            #expect(try row.decode(column: "blob", as: Data.self) == Data([0, 1, 2]))
            #expect(try row.decodeNil(column: "absent"))
            #expect(try row.decode(column: "absent", as: String?.self) == nil)
            #expect(try row.decode(column: "fraction", as: Double.self) == 1.5)
            #expect(!row.contains(column: "missing"))
            #expect(throws: DecodingError.self) { try row.decode(column: "missing", as: Int.self) }
        }
    }

    @Test func a_failed_statement_says_why_and_the_kept_statement_runs_again() throws {
        try withConnection { connection in
            _ = try rows(connection, "CREATE TABLE codes (code TEXT PRIMARY KEY)")
            let insert = "INSERT INTO codes (code) VALUES (?1)"
            _ = try rows(connection, insert, [.text("A")])
            let failure = try #require(throws: SQLiteFailure.self) { try rows(connection, insert, [.text("A")]) }
            #expect(failure.code & 0xFF == 19, "\(failure)")  // SQLITE_CONSTRAINT
            #expect(failure.message.contains("UNIQUE"), "\(failure)")
            #expect(!failure.isFull)
            _ = try rows(connection, insert, [.text("B")])
            #expect(
                try rows(connection, "SELECT code FROM codes ORDER BY code").map {
                    try $0.decode(column: "code", as: String.self)
                } == ["A", "B"])
            #expect(throws: SQLiteFailure.self) { try rows(connection, "SELECT FROM nowhere") }
        }
    }

    @Test func a_kept_select_star_sees_columns_added_later() throws {
        try withConnection { connection in
            _ = try rows(connection, "CREATE TABLE rooms (id INTEGER PRIMARY KEY)")
            _ = try rows(connection, "INSERT INTO rooms (id) VALUES (1)")
            #expect(try rows(connection, "SELECT * FROM rooms").first?.allColumns == ["id"])
            _ = try rows(connection, "ALTER TABLE rooms ADD COLUMN name TEXT DEFAULT 'Hall'")
            let row = try #require(try rows(connection, "SELECT * FROM rooms").first)
            #expect(row.allColumns == ["id", "name"])
            #expect(try row.decode(column: "name", as: String.self) == "Hall")
        }
    }

    @Test func more_statements_than_are_kept_all_still_run() throws {
        try withConnection { connection in
            for number in 0..<(SQLiteFileConnection.statementsKept * 2 + 3) {
                let row = try #require(try rows(connection, "SELECT \(number) AS n").first)
                #expect(try row.decode(column: "n", as: Int.self) == number)
            }
            #expect(try rows(connection, "SELECT 7 AS n").first?.decode(column: "n", as: Int.self) == 7)
        }
    }

    @Test func connections_go_to_one_task_at_a_time_and_waiters_are_refused_at_shutdown() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("rollcall-sqlite-\(UUID())").path
        defer {
            for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
        }
        let opened = Counter()
        let connections = SQLiteConnections(limit: 2, logger: Logger(label: "test")) {
            opened.add()
            return try SQLiteFileConnection(path: path, create: true, pragmas: [])
        }
        let inside = Counter()
        let most = Counter()
        try await withThrowingTaskGroup(of: Void.self) { tasks in
            for _ in 0..<20 {
                tasks.addTask {
                    try await connections.with { sql in
                        most.atLeast(inside.add())
                        try await sql.raw("SELECT 1 AS one").run()
                        try await Task.sleep(for: .milliseconds(2))
                        inside.remove()
                    }
                }
            }
            try await tasks.waitForAll()
        }
        #expect(opened.value == 2)
        #expect(most.value == 2)

        // One task holds each connection; a third waits, and is refused when the connections close.
        let releases = (0..<2).map { _ in AsyncStream<Void>.makeStream() }
        let (holding, holds) = AsyncStream<Void>.makeStream()
        let holders = releases.map { release in
            Task {
                try await connections.with { _ in
                    holds.yield()
                    for await _ in release.stream { break }
                }
            }
        }
        var count = 0
        for await _ in holding {
            count += 1
            if count == 2 { break }
        }
        // Whether it is queued yet or not when the connections close, the waiter is refused.
        let waiter = Task { try await connections.with { _ in } }
        connections.shutdown()
        await #expect(throws: DatabaseUnavailable.self) { try await waiter.value }
        for release in releases { release.continuation.finish() }
        for holder in holders { try await holder.value }
        await #expect(throws: DatabaseUnavailable.self) { try await connections.with { _ in } }
    }
}

/// A count shared by the tasks of a test.
private final class Counter: Sendable {
    private let count = NIOLockedValueBox(0)
    var value: Int { count.withLockedValue { $0 } }
    @discardableResult func add() -> Int {
        count.withLockedValue {
            $0 += 1; return $0
        }
    }
    func remove() { count.withLockedValue { $0 -= 1 } }
    func atLeast(_ value: Int) { count.withLockedValue { $0 = max($0, value) } }
}
