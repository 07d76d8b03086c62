import Foundation
import RollcallModel
import RollcallStorage
import Testing

@testable import RollcallServer

/// The outbox as a queue, on its own: what a failed attempt leaves.
@Suite("Outbox queue")
struct OutboxQueueTests {
    func score(_ grade: Int, to student: String) -> OutgoingMessage {
        OutgoingMessage(
            channel: .lti, recipient: student, recipientName: nil, subject: "line-item-1", text: "\(grade)",
            html: nil, replacesQueued: true)
    }

    @Test func a_score_in_flight_when_a_newer_one_is_queued_is_not_tried_again() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("rollcall-outbox-\(UUID())").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let database = try Database.sqlite(path: "\(directory)/db.sqlite", logger: .init(label: "test"))
        do {
            try await Migrations.apply(to: database)
            let outbox = Outbox(database: database, logger: .init(label: "test"), delivered: [.lti, .email])
            let queue = OutboxQueue(database: database)
            try await outbox.send(score(60, to: "s-1"))
            try await outbox.send(score(70, to: "s-2"))
            let first = try #require(try await queue.claim(channels: [.lti], lease: 60))
            #expect(first.body == "60")
            // While the older score is on its way, a newer one is queued: the older cannot be replaced in the queue.
            try await outbox.send(score(90, to: "s-1"))
            try await queue.markFailed(id: first.id, error: "platform down", retryAt: Date().addingTimeInterval(60))
            // A failed score with nothing newer waits for its retry, and so does any other message.
            let second = try #require(try await queue.claim(channels: [.lti], lease: 60))
            #expect(second.body == "70")
            try await queue.markFailed(id: second.id, error: "platform down", retryAt: Date().addingTimeInterval(60))
            try await outbox.send(
                OutgoingMessage(
                    channel: .email, recipient: "a@school.test", recipientName: nil, subject: "Hello", text: "1",
                    html: nil))
            let mail = try #require(try await queue.claim(channels: [.email], lease: 60))
            try await outbox.send(
                OutgoingMessage(
                    channel: .email, recipient: "a@school.test", recipientName: nil, subject: "Hello", text: "2",
                    html: nil))
            try await queue.markFailed(id: mail.id, error: "mail server down", retryAt: Date().addingTimeInterval(60))

            let statuses = Dictionary(
                uniqueKeysWithValues: try await outbox.list().map { ("\($0.recipient) \($0.body)", $0.status) })
            #expect(
                statuses == [
                    "s-1 60": "replaced", "s-1 90": "queued", "s-2 70": "queued", "a@school.test 1": "queued",
                    "a@school.test 2": "queued",
                ], "\(statuses)")
            try await database.shutdown()
        } catch {
            try? await database.shutdown()
            throw error
        }
    }
}
