import Foundation
import Logging
import SQLKit

/// One email or text message Rollcall sent.
struct OutboxMessage: Codable, Sendable, Equatable {
    var id: Int64
    var channel: String
    var recipient: String
    var subject: String
    var body: String
    var createdAt: Date
}

/// Where outgoing email and SMS go; a real provider implements this, the embedded default is the outbox.
protocol MessageSender: Sendable {
    func send(channel: String, to recipient: String, subject: String, body: String) async throws
}

/// The embedded provider: every message is stored for the admin pages and tests to read, and printed in the log.
struct Outbox: MessageSender {
    let database: Database
    let logger: Logger

    func send(channel: String, to recipient: String, subject: String, body: String) async throws {
        try await database.write { sql in
            try await sql.insert(into: "outbox").columns("channel", "recipient", "subject", "body", "created_at")
                .values(SQLBind(channel), SQLBind(recipient), SQLBind(subject), SQLBind(body), SQLBind(Date())).run()
        }
        logger.info("outbox: \(channel) to \(recipient): \(subject)\n\(body)")
    }

    /// The newest messages first.
    func list(limit: Int = 100) async throws -> [OutboxMessage] {
        try await database.read { sql in
            try await sql.select().column("*").from("outbox").orderBy("id", .descending).limit(limit)
                .all(decoding: OutboxMessage.self, with: .rollcall)
        }
    }
}
