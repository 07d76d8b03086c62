import Foundation
import RollcallCore
import RollcallModel
import RollcallParts
import RollcallStorage
import ServerTestSupport
import Testing

@testable import RollcallServer
@testable import RollcallTeaching

/// The outbox queue and the weekly notices with two server processes on one PostgreSQL database: each message is
/// delivered once, and each week's notices are queued once.
@Suite("Queue on PostgreSQL", .serialized, .timeLimit(.minutes(3)))
struct QueuePostgresTests {
    @Test func two_processes_deliver_every_queued_message_once() async throws {
        let postgres = try PostgresServer.start()
        defer { postgres.stop() }
        let mail = try MailServerProcess(tls: "starttls")
        defer { mail.stop() }
        try await withServer(databaseURL: postgres.url, configure: { $0.deliver(to: mail) }) { first in
            try await withServer(databaseURL: postgres.url, configure: { $0.deliver(to: mail) }) { second in
                // Thirty confirmations queued at once, half by each process; both senders take from the one queue.
                try await withThrowingTaskGroup(of: Void.self) { group in
                    for number in 0..<30 {
                        group.addTask {
                            _ = try await (number.isMultiple(of: 2) ? first : second).register("Pat Person\(number)")
                        }
                    }
                    try await group.waitForAll()
                }
                let delivered = try await mail.waitForMessages(30)
                let recipients = delivered.compactMap { ($0.envelope["rcpt_tos"] as? [String])?.first }
                #expect(Set(recipients).count == 30, "thirty different people")
                try await Database.postgres(url: postgres.url, logger: .init(label: "test")).closing { database in
                    try await eventually("every message is marked sent") {
                        try await Outbox(database: database, logger: .init(label: "test")).list()
                            .allSatisfy { $0.status == "sent" }
                    }
                    let messages = try await Outbox(database: database, logger: .init(label: "test")).list()
                    #expect(messages.count == 30)
                    #expect(messages.allSatisfy { $0.attempts == 1 }, "no message was claimed twice")
                }
                // A last message behind them: by the time it arrives, a second copy of any other would have too.
                _ = try await first.register("Lou Last")
                _ = try await mail.waitForMessages(31)
                #expect(try mail.messages().count == 31)
            }
        }
    }

    @Test func two_processes_looking_at_once_queue_a_weeks_absence_notices_once() async throws {
        let postgres = try PostgresServer.start()
        defer { postgres.stop() }
        try await withServer(databaseURL: postgres.url) { api in
            let term = try await AbsenceNoticeTests.term(api)
            _ = try await api.call(
                .patch, "/api/v1/courses/\(term.room.courseID)", as: term.room.teacher, json: ["absenceNotices": true])
            let nextWeek = AbsenceNoticeTests.nextMonday()
            try await postgres.twoProcesses { first, second in
                let notices = [first, second].map { database in
                    AbsenceNotices(
                        stores: Stores(database: database),
                        school: "Rollcall", publicURL: "https://rollcall.school.test")
                }
                async let onA = notices[0].sendDue(now: nextWeek)
                async let onB = notices[1].sendDue(now: nextWeek)
                let weeks = try await onA + onB
                #expect(weeks.count == 1, "one process queued the week: \(weeks)")
                let messages = try await Outbox(database: first, logger: .init(label: "test")).list()
                #expect(messages.filter { $0.subject.hasPrefix("Your attendance") }.count == 3, "Ben, Cat and Dan")
                #expect(messages.filter { $0.subject.contains("below 80% attendance") }.count == 1)
                // Each process, looking again, finds the week queued.
                for notice in notices { #expect(try await notice.sendDue(now: nextWeek).isEmpty) }

                // The week after, both have read the records and written their notes when they claim the week at
                // the same moment: one claim wins, the other queues nothing.
                let later = nextWeek.addingTimeInterval(AbsenceNoticeTests.week)
                let due = AbsenceNoticeSchedule.latestDue(atOrBefore: later, timeZone: TimeZone(identifier: "UTC")!)
                let course = try #require(try await CourseStore(database: first).find(id: term.room.courseID))
                async let claimA = notices[0].send(course, due: due, now: later)
                async let claimB = notices[1].send(course, due: due, now: later)
                let claims = try await [claimA, claimB]
                #expect(claims.compactMap { $0 }.count == 1, "\(claims)")
                #expect(
                    try await Outbox(database: first, logger: .init(label: "test")).list().count == messages.count + 4)
            }
        }
    }
}
