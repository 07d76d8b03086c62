import Foundation
import RollcallCore
import RollcallModel
import RollcallStorage
import SQLKit
import ServerTestSupport
import Testing

@testable import RollcallServer

/// Live views across processes: two servers on one PostgreSQL database, a real server started by the test.
@Suite("Live on PostgreSQL", .timeLimit(.minutes(2)))
struct LivePostgresTests {
    /// How process A writes its change: an append that locks the log and notifies on its own, or a check-in group's
    /// one statement that takes the session, its log and queues the notification first (`EventLog.share`), after which
    /// the append sends none of its own.
    enum Writing: Sendable, CaseIterable {
        case append, announcedWithTheRow
    }

    @Test(arguments: Writing.allCases)
    func a_change_committed_by_one_process_wakes_the_views_of_another(writing: Writing) async throws {
        let postgres = try PostgresServer.start()
        defer { postgres.stop() }
        // Two databases, as two server processes would each have.
        try await postgres.twoProcesses { writer, watcher in
            let session = try await writer.openSessionOfNewCourse()

            let listener = try #require(watcher.liveServices.first)
            try await watcher.hubs.sessions.subscribe(session.id) { view in
                try await withThrowingTaskGroup(of: Void.self) { group in
                    group.addTask { try await listener.run() }
                    // The listener wakes every view once it listens, for whatever it may have missed before.
                    await view.next()
                    switch writing {
                    case .append: _ = try await SessionStore(database: writer).close(id: session.id)
                    case .announcedWithTheRow:
                        try await writer.transaction { sql in
                            let held = try await EventLog.share(
                                [session.id, 999_999], rowsOf: "sessions", announcing: .sessions, sql: sql)
                            #expect(held == [session.id], "a session that does not exist is not held")
                            let change = SessionChange.CheckedIn(studentId: 1, status: .present, at: Date(), via: .qr)
                            try await SessionEvents.append(.checkedIn(change), sessionID: session.id, in: sql)
                        }
                    }
                    // Nothing in process B calls `published`: only PostgreSQL's notification can wake this view.
                    await view.next()
                    let events = try await watcher.read { sql in
                        try await SessionEvents.after(0, sessionID: session.id, in: sql)
                    }
                    #expect(events.map(\.kind) == [.sessionOpened, writing == .append ? .sessionClosed : .checkedIn])
                    group.cancelAll()
                }
            }
        }
    }

    @Test func a_teacher_watching_one_server_sees_a_check_in_made_on_another() async throws {
        let postgres = try PostgresServer.start()
        defer { postgres.stop() }
        try await withServer(databaseURL: postgres.url, setup: .live) { first in
            let room = try await Classroom.open(first)
            try await withServer(databaseURL: postgres.url, setup: .live) { second in
                try await second.watch(room.sessionID, as: room.teacher) { view in
                    let snapshot = try await view.next("snapshot")
                    #expect(snapshot.int("counts.notYet") == 1)
                    #expect(try await room.checkIn(first, room.student).status == .created)
                    let event = try await view.next("event")
                    #expect(event.string("kind") == "checked_in")
                    #expect(event.int("data.studentId") == room.student.id)
                    let counts = try await view.next("counts")
                    #expect(counts.int("counts.checkedIn") == 1)
                }
            }
        }
    }
}
