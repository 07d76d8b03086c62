import Foundation
import RollcallParts
import SQLiteNIO
import ServerTestSupport
import Testing

@testable import RollcallServer

/// A temporary directory of a test's own, with its files named inside it; `remove` deletes it all.
struct Scratch: Sendable {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("rollcall-ops-\(UUID())").path

    func path(_ name: String) -> String { directory + "/" + name }

    /// A configuration whose data directory is `name` here.
    func configuration(_ name: String = "data") -> Configuration {
        Configuration(dataDirectory: path(name), logLevel: .error)
    }

    func remove() {
        try? FileManager.default.removeItem(atPath: directory)
    }
}

/// Reads an SQLite file on a connection of its own: whatever a command wrote, as it is on disk.
func sqliteRows(_ path: String, _ query: String) async throws -> [SQLiteRow] {
    let connection = try await SQLiteConnection.open(storage: .file(path: path))
    do {
        let rows = try await connection.query(query)
        try await connection.close()
        return rows
    } catch {
        try? await connection.close()
        throw error
    }
}

/// Runs `body`, expecting an operator's command to refuse with a sentence containing `words`.
func expectOperationRefused(
    containing words: String, sourceLocation: SourceLocation = #_sourceLocation, _ body: () async throws -> Void
) async {
    do {
        try await body()
        Issue.record("the command went ahead; it should have refused (“\(words)”)", sourceLocation: sourceLocation)
    } catch let refused as OperationRefused {
        #expect(refused.description.contains(words), "\(refused.description)", sourceLocation: sourceLocation)
        #expect(refused.description.hasSuffix("."), "a whole sentence", sourceLocation: sourceLocation)
    } catch {
        Issue.record("refused without a sentence: \(error)", sourceLocation: sourceLocation)
    }
}
