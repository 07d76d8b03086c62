import Foundation
import RollcallCore
import RollcallStorage
import SQLKit
import Testing

@testable import RollcallServer

@Suite("Database", .timeLimit(.minutes(5)))
struct DatabaseTests {
    @Test(arguments: [Database.Engine.sqlite, .postgres])
    func a_time_sent_with_milliseconds_is_read_back_with_the_same_milliseconds(engine: Database.Engine) async throws {
        var random = SeededRandom(seed: 20_261_202)
        var texts = ["2026-12-01T09:35:29.712Z", "2026-09-14T12:00:00.001Z", "2026-09-14T12:00:00.000Z"]
        for _ in 0..<500 {
            let date = Date(timeIntervalSince1970: Double.random(in: 1_700_000_000...2_100_000_000, using: &random))
            texts.append(date.millisecondText)
        }
        let sent = texts
        try await withMigratedDatabase(engine) { database in
            try await database.write { sql in
                try await sql.raw("CREATE TABLE moments (n INTEGER PRIMARY KEY, at TIMESTAMPTZ NOT NULL)").run()
                // On PostgreSQL the first goes out unnamed and the rest by name: both bind a date alike.
                for (n, text) in sent.enumerated() {
                    let date = try #require(RFC3339.moment(text))
                    try await sql.insert(into: "moments").columns("n", "at").values(SQLBind(n), SQLBind(date)).run()
                }
            }
            let read = try await database.read { sql in
                try await sql.select().column("at").from("moments").orderBy("n").all()
                    .map { try $0.decode(column: "at", as: Date.self).millisecondText }
            }
            #expect(read.count == sent.count)
            for (text, back) in zip(sent, read) where text != back { Issue.record("\(text) came back as \(back)") }
        }
    }

    @Test func a_transaction_cancelled_midway_leaves_the_writer_outside_any_transaction() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("rollcall-db-\(UUID())").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let database = try Database.sqlite(path: "\(directory)/db.sqlite", logger: .init(label: "test"))
        do {
            try await database.write { sql in try await sql.raw("CREATE TABLE marks (id INTEGER PRIMARY KEY)").run() }
            let started = AsyncStream<Void>.makeStream()
            let cancelled = Task {
                try await database.transaction { sql in
                    try await sql.raw("INSERT INTO marks (id) VALUES (1)").run()
                    started.continuation.yield()
                    // Cancelled here: the next statement fails, and the transaction must roll back all the same.
                    try await Task.sleep(for: .seconds(30))
                    try await sql.raw("INSERT INTO marks (id) VALUES (2)").run()
                }
            }
            for await _ in started.stream { break }
            cancelled.cancel()
            await #expect(throws: CancellationError.self) { try await cancelled.value }
            // The next transaction starts cleanly, commits, and readers see exactly its row.
            try await database.transaction { sql in try await sql.raw("INSERT INTO marks (id) VALUES (3)").run() }
            for _ in 0..<4 {
                let ids = try await database.read { sql in
                    try await sql.raw("SELECT id FROM marks ORDER BY id").all(decodingColumn: "id", as: Int.self)
                }
                #expect(ids == [3])
            }
            try await database.shutdown()
        } catch {
            try? await database.shutdown()
            throw error
        }
    }
}
