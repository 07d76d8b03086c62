import Foundation
import RollcallStorage
import SQLKit
import Testing

@testable import RollcallServer

@Suite("Database", .timeLimit(.minutes(5)))
struct DatabaseTests {
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
