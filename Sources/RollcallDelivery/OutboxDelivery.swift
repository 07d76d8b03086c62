import Foundation
import Logging
import Metrics
import RollcallCore
import RollcallModel
import RollcallStorage
import ServiceLifecycle

/// Hands one stored message to the world: an SMTP server, an SMS gateway.
package protocol Courier: Sendable {
    /// Delivers `message` or throws; an `DeliveryFailure` that is permanent is not tried again.
    func deliver(_ message: OutboxMessage) async throws
}

/// How long a failed message waits before its next attempt, and when it is given up.
package struct RetryPolicy: Sendable {
    /// The first wait; each later one doubles, up to `longest`.
    package var first: TimeInterval = 30
    package var longest: TimeInterval = 3600
    /// Attempts in all before the message is marked failed: with the defaults, about seven hours of trying.
    package var attempts: Int = 12

    package init(first: TimeInterval = 30, longest: TimeInterval = 3600, attempts: Int = 12) {
        self.first = first
        self.longest = longest
        self.attempts = attempts
    }

    /// The wait after attempt number `attempt` (from 1) failed, or `nil` when it was the last.
    package func wait(after attempt: Int) -> TimeInterval? {
        guard attempt < attempts else { return nil }
        return min(longest, first * pow(2, Double(max(0, attempt - 1))))
    }
}

/// The sender loop: takes due messages from the outbox one by one, hands each to its channel's courier, and records
/// the outcome; a failed attempt is retried with a growing wait, so a message survives a mail server that is down and
/// a restart of Rollcall.
package struct OutboxDelivery: Service {
    package let queue: OutboxQueue
    package let couriers: [MessageChannel: any Courier]
    package let bell: DeliveryBell
    /// Opens when the schema is in place.
    package let ready: SchemaReady
    package let logger: Logger
    package var retry = RetryPolicy()
    /// How often the queue is read without a bell: messages queued by another process, retries falling due.
    package var poll: Duration = .seconds(5)
    /// How long a claim holds; longer than any conversation with a courier can take, timeouts included.
    package var lease: TimeInterval = 600

    package init(
        queue: OutboxQueue, couriers: [MessageChannel: any Courier], bell: DeliveryBell, ready: SchemaReady,
        logger: Logger, retry: RetryPolicy = RetryPolicy(), poll: Duration = .seconds(5), lease: TimeInterval = 600
    ) {
        self.retry = retry
        self.queue = queue
        self.couriers = couriers
        self.bell = bell
        self.ready = ready
        self.logger = logger
        self.poll = poll
        self.lease = lease
    }

    package func run() async throws {
        let channels = Array(couriers.keys)
        await SenderLoop.run(
            service: "outbox-delivery", queue: "the outbox", ready: ready, bell: bell, poll: poll, logger: logger,
            claim: { try await queue.claim(channels: channels, lease: lease) },
            nextDue: { try await queue.nextDue(channels: channels) }, work: deliver)
    }

    /// One attempt at one claimed message.
    package func deliver(_ message: OutboxMessage) async {
        guard let channel = MessageChannel(rawValue: message.channel), let courier = couriers[channel] else { return }
        do {
            try await courier.deliver(message)
            try await queue.markSent(id: message.id)
            logger.info("delivered \(message.channel) \(message.id) to \(message.recipient)")
        } catch {
            let permanent = (error as? DeliveryFailure)?.permanent ?? false
            let wait = permanent ? nil : retry.wait(after: message.attempts)
            logger.warning(
                "delivering \(message.channel) \(message.id) to \(message.recipient) failed (attempt \(message.attempts))\(wait == nil ? ", given up" : ""): \(error)"
            )
            do {
                try await queue.markFailed(
                    id: message.id, error: String(describing: error),
                    retryAt: wait.map { Date().addingTimeInterval($0) })
            } catch {
                logger.error("recording the failed delivery of \(message.id) failed: \(error)")
            }
        }
    }
}

/// Email through an SMTP server.
package struct MailCourier: Courier {
    package let client: SMTPClient
    package let from: Mailbox

    package init(client: SMTPClient, from: Mailbox) {
        self.client = client
        self.from = from
    }

    package func deliver(_ message: OutboxMessage) async throws {
        let mail = Self.mail(message, from: from)
        try await client.send(from: from.address, to: message.recipient, data: mail.rendered())
    }

    /// The message as mailed; its Message-ID depends on the stored message alone, so every attempt sends the same one.
    package static func mail(_ message: OutboxMessage, from: Mailbox) -> MailMessage {
        let domain = from.address.split(separator: "@").last.map(String.init) ?? "rollcall.invalid"
        let stamp = Int64(message.createdAt.timeIntervalSince1970 * 1000)
        return MailMessage(
            from: from, to: Mailbox(address: message.recipient, name: message.recipientName), subject: message.subject,
            text: message.body, html: message.html ?? Letter.html(fromText: message.body),
            date: message.createdAt, messageID: "rollcall.\(message.id).\(stamp)@\(domain)")
    }
}
