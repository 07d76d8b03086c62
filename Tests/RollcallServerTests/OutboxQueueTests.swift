import Foundation
import RollcallModel
import RollcallStorage
import Testing

@testable import RollcallServer

/// The outbox as a queue, on its own: what a failed attempt leaves.
@Suite("Outbox queue", .timeLimit(.minutes(5)))
struct OutboxQueueTests {
    func mail(_ text: String, to recipient: String = "a@school.test") -> OutgoingMessage {
        OutgoingMessage(
            channel: .email, recipient: recipient, recipientName: nil, subject: "Hello", text: text, html: nil)
    }

    @Test func a_failed_message_waits_for_its_retry_and_one_queued_after_it_is_sent_too() async throws {
        try await withJobDatabase { database in
            let outbox = Outbox(database: database, logger: .init(label: "test"), delivered: [.email])
            let queue = OutboxQueue(database: database)
            try await outbox.send(mail("1"))
            let first = try #require(try await queue.claim(channels: [.email], lease: 60))
            // While the first is on its way, a second letter with the same subject goes to the same person: letters
            // are not scores, and both are meant to arrive.
            try await outbox.send(mail("2"))
            try await queue.markFailed(id: first.id, error: "mail server down", retryAt: Date().addingTimeInterval(60))
            let second = try #require(try await queue.claim(channels: [.email], lease: 60))
            #expect(second.body == "2", "the first waits for its retry")
            try await queue.markSent(id: second.id)

            let messages = try await outbox.list()
            #expect(messages.map(\.status) == ["sent", "queued"], "\(messages)")
            #expect(messages.last?.lastError == "mail server down" && messages.last?.attempts == 1)
            #expect(try await queue.claim(channels: [.sms], lease: 60) == nil, "a text courier finds no letter")
        }
    }
}
