import Foundation
import SQLiteNIO
import ServerTestSupport

@testable import RollcallServer

extension API {
    /// A session's secret from the test's database file, to sign tickets for moments the API cannot reach quickly.
    func secret(ofSession id: Int64) async throws -> [UInt8] {
        let connection = try await SQLiteConnection.open(storage: .file(path: databasePath))
        let rows: [SQLiteRow]
        do {
            rows = try await connection.query("SELECT secret FROM sessions WHERE id = ?", [.integer(Int(id))])
            try await connection.close()
        } catch {
            try? await connection.close()
            throw error
        }
        guard case .blob(let buffer) = rows.first?.column("secret") else { throw CancellationError() }
        return Array(buffer.readableBytesView)
    }

    /// Runs SQL on the test's database file, to set up moments in time the API cannot reach quickly.
    func execute(_ sql: String) async throws {
        let connection = try await SQLiteConnection.open(storage: .file(path: databasePath))
        do {
            _ = try await connection.query(sql)
            try await connection.close()
        } catch {
            try? await connection.close()
            throw error
        }
    }

    /// Rows read straight from the test's database, each column as text (`nil` for NULL).
    func rows(_ sql: String) async throws -> [[String: String?]] {
        let connection = try await SQLiteConnection.open(storage: .file(path: databasePath))
        do {
            let rows = try await connection.query(sql).map { row in
                Dictionary(uniqueKeysWithValues: row.columns.map { ($0.name, $0.data.string) })
            }
            try await connection.close()
            return rows
        } catch {
            try? await connection.close()
            throw error
        }
    }
}
