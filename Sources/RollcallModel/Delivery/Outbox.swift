import Foundation
import Logging
import RollcallStorage
import SQLKit

/// One email or text message Rollcall sent, with where its delivery stands.
package struct OutboxMessage: Codable, Sendable, Equatable {
    package var id: Int64
    package var channel: String
    package var recipient: String
    package var recipientName: String?
    package var subject: String
    /// The plain text; for email, the HTML part is `html`.
    package var body: String
    package var html: String?
    /// `stored` (kept here only: no courier for its channel), `queued`, `sending`, `sent` or `failed`.
    package var status: String
    package var attempts: Int
    package var lastError: String?
    package var nextAttemptAt: Date?
    package var sentAt: Date?
    package var createdAt: Date
}

/// Where a message goes.
package enum MessageChannel: String, Sendable {
    case email, sms
}

/// A message to send: for email, a subject, a text and an HTML part; for SMS, the text alone.
package struct OutgoingMessage: Sendable, Equatable {
    package var channel: MessageChannel
    package var recipient: String
    package var recipientName: String?
    package var subject: String
    package var text: String
    package var html: String?

    package init(
        channel: MessageChannel, recipient: String, recipientName: String? = nil, subject: String, text: String,
        html: String? = nil
    ) {
        self.channel = channel
        self.recipient = recipient
        self.recipientName = recipientName
        self.subject = subject
        self.text = text
        self.html = html
    }
}

/// Where outgoing email and SMS go; a real provider implements this, the embedded default is the outbox.
package protocol MessageSender: Sendable {
    func send(_ message: OutgoingMessage) async throws
}

/// The embedded provider and the delivery queue in one table: every message is stored for the admin pages and tests
/// to read; a message of a channel with a courier (SMTP for email, a webhook for SMS) is queued for
/// `OutboxDelivery`, and one without is printed in the log.
package struct Outbox: MessageSender {
    package let database: Database
    package let logger: Logger
    /// The channels a courier delivers.
    package var delivered: Set<MessageChannel> = []
    /// Wakes the delivery as soon as a message is queued.
    package var bell: DeliveryBell?

    package init(database: Database, logger: Logger, delivered: Set<MessageChannel> = [], bell: DeliveryBell? = nil) {
        self.database = database
        self.logger = logger
        self.delivered = delivered
        self.bell = bell
    }

    package func send(_ message: OutgoingMessage) async throws {
        _ = try await send([message]) { _ in true }
    }

    /// Stores `messages` in the transaction of `claim`, when it answers `true`: the messages are queued together
    /// with what the claim writes, or not at all. Answers the claim's answer.
    package func send(
        _ messages: [OutgoingMessage], once claim: @Sendable @escaping (any SQLDatabase) async throws -> Bool
    )
        async throws -> Bool
    {
        try await send { sql in try await claim(sql) ? messages : nil } != nil
    }

    /// Stores the messages `compose` answers in the transaction in which it decides them, so that what it writes
    /// (such as an invitation marked as mailed) and its messages are kept together or not at all. `nil` means
    /// nothing to send; the transaction still commits what `compose` wrote. Answers the messages sent.
    @discardableResult
    package func send(composing compose: @Sendable (Transaction) async throws -> [OutgoingMessage]?) async throws
        -> [OutgoingMessage]?
    {
        let now = Date()
        let delivered = self.delivered
        let messages = try await database.transaction { sql -> [OutgoingMessage]? in
            guard let messages = try await compose(sql) else { return nil }
            for message in messages {
                let queued = delivered.contains(message.channel)
                try await sql.insert(into: "outbox")
                    .columns(
                        "channel", "recipient", "recipient_name", "subject", "body", "html", "status",
                        "next_attempt_at", "created_at"
                    )
                    .values(
                        SQLBind(message.channel.rawValue), SQLBind(message.recipient), SQLBind(message.recipientName),
                        SQLBind(message.subject), SQLBind(message.text), SQLBind(message.html),
                        SQLBind(queued ? "queued" : "stored"), SQLBind(queued ? now : nil), SQLBind(now)
                    ).run()
            }
            return messages
        }
        guard let messages else { return nil }
        for message in messages {
            if delivered.contains(message.channel) {
                logger.info("outbox: \(message.channel.rawValue) to \(message.recipient) queued: \(message.subject)")
            } else {
                logger.info(
                    "outbox: \(message.channel.rawValue) to \(message.recipient): \(message.subject)\n\(message.text)")
            }
        }
        if messages.contains(where: { delivered.contains($0.channel) }) { bell?.ring() }
        return messages
    }

    /// The newest messages first.
    package func list(limit: Int = 100) async throws -> [OutboxMessage] {
        try await page(limit: limit).messages
    }

    /// One page of messages, newest first: at most `limit`, older than the message `before` when given, to
    /// `recipient` (any case) when given. `nextCursor` is the id to pass as `before` for the next page, `nil` on the
    /// last.
    package func page(limit: Int, before: Int64? = nil, recipient: String? = nil) async throws -> OutboxPage {
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

extension MessageSender {
    /// A message of plain text alone.
    package func send(channel: MessageChannel, to recipient: String, subject: String, body: String) async throws {
        try await send(
            OutgoingMessage(channel: channel, recipient: recipient, subject: subject, text: body, html: nil))
    }
}

/// A page of the outbox and where the next one starts.
package struct OutboxPage: Sendable, Equatable {
    package var messages: [OutboxMessage]
    package var nextCursor: Int64?
}
