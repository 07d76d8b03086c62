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
        try await page(limit: limit).messages
    }

    /// One page of messages, newest first: at most `limit`, older than the message `before` when given, to
    /// `recipient` (any case) when given. `nextCursor` is the id to pass as `before` for the next page, `nil` on the
    /// last.
    func page(limit: Int, before: Int64? = nil, recipient: String? = nil) async throws -> OutboxPage {
        let rows = try await database.read { sql in
            let select = sql.select().column("*").from("outbox")
            if let before { select.where("id", .lessThan, SQLBind(before)) }
            if let recipient {
                select.where(
                    SQLFunction("lower", args: SQLColumn("recipient")), .equal, SQLBind(recipient.lowercased()))
            }
            return try await select.orderBy("id", .descending).limit(limit + 1)
                .all(decoding: OutboxMessage.self, with: .rollcall)
        }
        let messages = Array(rows.prefix(limit))
        return OutboxPage(messages: messages, nextCursor: rows.count > limit ? messages.last?.id : nil)
    }
}

/// A page of the outbox and where the next one starts.
struct OutboxPage: Sendable, Equatable {
    var messages: [OutboxMessage]
    var nextCursor: Int64?
}
