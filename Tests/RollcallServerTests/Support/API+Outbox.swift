import Foundation
import RollcallModel
import RollcallStorage
import ServerTestSupport

@testable import RollcallServer

extension API {
    /// Messages in the outbox, newest first, read from the database.
    func outbox() async throws -> [OutboxMessage] {
        let database = try Database.sqlite(path: databasePath, logger: .init(label: "test"))
        let messages = try await Outbox(database: database, logger: .init(label: "test")).list()
        try await database.shutdown()
        return messages
    }
}
