import Foundation
import RollcallStorage
import ServerTestSupport

@testable import RollcallServer

extension PostgresServer {
    /// Two databases on this server, migrated, as two server processes each have one; both are shut down afterwards,
    /// whatever `body` does.
    func twoProcesses<Result: Sendable>(
        _ body: (_ first: Database, _ second: Database) async throws -> Result
    ) async throws -> Result {
        let first = try Database.postgres(url: url, logger: .init(label: "process-a"))
        let second = try Database.postgres(url: url, logger: .init(label: "process-b"))
        do {
            try await Migrations.apply(to: first)
            let result = try await body(first, second)
            try await first.shutdown()
            try await second.shutdown()
            return result
        } catch {
            try? await first.shutdown()
            try? await second.shutdown()
            throw error
        }
    }
}
