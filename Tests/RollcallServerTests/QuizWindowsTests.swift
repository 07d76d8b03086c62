import Foundation
import HTTPTypes
import NIOConcurrencyHelpers
import RollcallCore
import RollcallModel
import RollcallStorage
import SQLKit
import ServerTestSupport
import Testing

@testable import RollcallServer

/// Small windows of a quiz closed inside the write: an attempt starting while its quiz or session is deleted, a flag
/// and a second device at the flood limit, and a folded flag sent again. On PostgreSQL with two server processes each
/// race is made certain rather than likely: the test holds, in a transaction of its own, what both requests need (as
/// a third change under way would), waits until both wait for it, and lets go; the first in line then goes wholly
/// first. The same requests are also sent at once, round after round, on SQLite and on PostgreSQL.
@Suite("Quiz windows", .timeLimit(.minutes(4)))
struct QuizWindowsTests {
    // MARK: An attempt starting while its quiz or session is deleted

    @Test(arguments: [false, true])
    func an_attempt_starting_while_its_quiz_or_session_is_deleted_is_counted_or_refused_on_two_processes(
        sessionDeleted: Bool
    ) async throws {
        try await RaceGround.postgres.run { servers, database in
            let quiz = try await QuizRoom.start(servers[0])
            let held = try await HeldLock.hold(on: database) { sql in
                try await sql.raw("SELECT id FROM quiz_runs WHERE id = \(bind: quiz.runID) FOR UPDATE").run()
            }
            let start = Task { try await quiz.attempt(servers[0]) }
            try await waitUntil("the start waits") { try await database.lockWaiters() == 1 }
            let path =
                sessionDeleted
                ? "/api/v1/sessions/\(quiz.room.sessionID)?records=1" : "/api/v1/quizzes/\(quiz.quizID)"
            let delete = Task { try await servers[1].call(.delete, path, as: quiz.room.teacher) }
            try await waitUntil("the deletion waits") { try await database.lockWaiters() == 2 }
            try await held.letGo()
            let (started, deleted) = (try await start.value, try await delete.value)
            try await Self.expectCountedOrRefused(started, deleted: deleted, quiz: quiz, database: database)
        }
    }

    @Test(arguments: RaceGround.allCases)
    func attempts_starting_while_their_quizzes_are_deleted_are_counted_or_refused(_ ground: RaceGround) async throws {
        try await ground.run { servers, database in
            let quiz = try await QuizRoom.start(servers[0])
            for _ in 0..<6 {
                let created = try await servers[0].call(
                    .post, "/api/v1/courses/\(quiz.room.courseID)/quizzes", as: quiz.room.teacher, json: quizBody)
                let quizID = try #require(created.int("quiz.id"))
                let run = try await servers[0].call(
                    .post, "/api/v1/sessions/\(quiz.room.sessionID)/quiz-runs", as: quiz.room.teacher,
                    json: ["quizId": quizID])
                let round = QuizRoom(room: quiz.room, quizID: quizID, runID: try #require(run.int("run.id")))
                let replies = try await RacesTests.atOnce(2, over: servers) { api, index in
                    index == 0
                        ? try await round.attempt(api)
                        : try await api.call(.delete, "/api/v1/quizzes/\(quizID)", as: quiz.room.teacher)
                }
                try await Self.expectCountedOrRefused(replies[0], deleted: replies[1], quiz: round, database: database)
            }
        }
    }

    /// An attempt answered 201 is kept, and keeps its quiz (archived) or session; one refused is 404
    /// `quiz_run_not_found` and left nothing.
    static func expectCountedOrRefused(
        _ started: Reply, deleted: Reply, quiz: QuizRoom, database: Database
    ) async throws {
        let attempts = try await database.count(
            "SELECT COUNT(*) AS n FROM quiz_attempts WHERE run_id = \(quiz.runID)")
        if started.status == .created {
            #expect(attempts == 1, "an attempt answered 201 went with its run; the deletion said \(deleted.status)")
            #expect(try await database.count("SELECT COUNT(*) AS n FROM quiz_runs WHERE id = \(quiz.runID)") == 1)
        } else {
            #expect(started.status == .notFound && started.errorCode == "quiz_run_not_found", "\(started.text)")
            #expect(attempts == 0)
        }
    }

    // MARK: A quiz's flood limit

    @Test func a_flag_and_a_second_device_at_the_limit_make_one_flag_not_two_on_two_processes() async throws {
        try await RaceGround.postgres.run { servers, database in
            let quiz = try await QuizRoom.start(servers[0])
            let attemptID = try #require(try await quiz.attempt(servers[0], device: "phone-a").int("attempt.id"))
            try await Self.seedFlags(FlagFlood.perAttempt - 1, attemptID: attemptID, database)
            // Held as another change to the run's feed would hold it: each request waits to tell the dashboard.
            let held = try await HeldLock.hold(on: database) { sql in
                try await EventLog.share([quiz.runID], rowsOf: "quiz_runs", announcing: .quizRuns, sql: sql)
            }
            let flag = Task {
                try await servers[0].call(
                    .post, "/api/v1/quiz-attempts/\(attemptID)/flags", as: quiz.room.student,
                    json: ["flags": [["kind": "left_page", "occurredAt": ISO8601DateFormatter().string(from: Date())]]])
            }
            try await waitUntil("the flag waits") { try await database.lockWaiters() == 1 }
            let second = Task { try await quiz.attempt(servers[1], device: "phone-b") }
            try await waitUntil("the second device waits") { try await database.lockWaiters() == 2 }
            try await held.letGo()
            #expect(try await flag.value.status == .created)
            #expect(try await second.value.status == .ok)
            #expect(
                try await database.count("SELECT COUNT(*) AS n FROM quiz_flags WHERE attempt_id = \(attemptID)")
                    == FlagFlood.perAttempt)
        }
    }

    @Test(arguments: RaceGround.allCases)
    func flags_and_second_devices_at_once_keep_the_flood_limit(_ ground: RaceGround) async throws {
        try await ground.run { servers, database in
            let quiz = try await QuizRoom.start(servers[0])
            let attemptID = try #require(try await quiz.attempt(servers[0], device: "phone-a").int("attempt.id"))
            try await Self.seedFlags(FlagFlood.perAttempt - 3, attemptID: attemptID, database)
            let now = ISO8601DateFormatter().string(from: Date())
            let replies = try await RacesTests.atOnce(8, over: servers) { api, index in
                index % 2 == 0
                    ? try await api.call(
                        .post, "/api/v1/quiz-attempts/\(attemptID)/flags", as: quiz.room.student,
                        json: ["flags": [["kind": "left_page", "occurredAt": now]]])
                    : try await quiz.attempt(api, device: "phone-\(index)")
            }
            #expect(replies.allSatisfy { $0.status == .created || $0.status == .ok }, "\(replies.map(\.status))")
            #expect(
                try await database.count("SELECT COUNT(*) AS n FROM quiz_flags WHERE attempt_id = \(attemptID)")
                    == FlagFlood.perAttempt)
        }
    }

    /// Stores `count` flags for the attempt, received ten minutes ago (so none counts in the last minute): a
    /// `second_device` one and the rest `left_page`, so that a report of either kind may fold.
    static func seedFlags(_ count: Int, attemptID: Int64, _ database: Database) async throws {
        let then = Date().addingTimeInterval(-600)
        try await database.transaction { sql in
            for number in 0..<count {
                let kind: IntegrityFlagKind = number == 0 ? .secondDevice : .leftPage
                let report = IntegrityFlagReport(kind: kind, occurredAt: then)
                try await sql.insert(into: "quiz_flags")
                    .columns("attempt_id", "kind", "report", "client_id", "occurred_at", "received_at")
                    .values(
                        SQLBind(attemptID), SQLBind(kind.rawValue), SQLBind(try QuizJSON.encode(report)),
                        SQLBind(String?.none), SQLBind(then), SQLBind(then)
                    ).run()
            }
        }
    }

    @Test(arguments: RaceGround.allCases)
    func a_flag_folded_into_a_flood_keeps_its_client_id_so_a_resend_is_not_counted_again(
        _ ground: RaceGround
    ) async throws {
        try await ground.run { servers, database in
            let api = servers[0]
            let quiz = try await QuizRoom.start(api)
            let attemptID = try #require(try await quiz.attempt(api).int("attempt.id"))
            let now = ISO8601DateFormatter().string(from: Date())
            func flags(_ ids: [String]) -> [String: Any] {
                ["flags": ids.map { ["kind": "left_page", "occurredAt": now, "clientId": $0] }]
            }
            let path = "/api/v1/quiz-attempts/\(attemptID)/flags"
            // Twenty in a minute are kept one by one; the next one is folded into the latest.
            let kept = try await api.call(
                .post, path, as: quiz.room.student, json: flags((0..<20).map { "flag-\($0)" }))
            #expect(kept.int("recorded") == 20, "\(kept.text)")
            let folded = try await api.call(.post, path, as: quiz.room.student, json: flags(["flag-folded"]))
            #expect(folded.int("recorded") == 1, "\(folded.text)")
            func repeats() async throws -> Int {
                let reports = try await database.read { sql in
                    try await sql.select().column("report").from("quiz_flags").where("attempt_id", .equal, attemptID)
                        .all(decodingColumn: "report", as: String.self)
                }
                return try reports.map {
                    try QuizJSON.decode($0, as: IntegrityFlagReport.self).repeats ?? 0
                }.reduce(0, +)
            }
            #expect(try await repeats() == 1)

            // Sent again (a phone that lost the answer), alone and beside a new one: known, counted once.
            let again = try await api.call(.post, path, as: quiz.room.student, json: flags(["flag-folded"]))
            #expect(again.status == .ok || again.status == .created, "\(again.text)")
            #expect(again.int("recorded") == 0, "\(again.text)")
            #expect(try await repeats() == 1)
            let mixed = try await api.call(
                .post, path, as: quiz.room.student, json: flags(["flag-folded", "flag-new", "flag-new"]))
            #expect(mixed.int("recorded") == 1, "\(mixed.text)")
            #expect(try await repeats() == 2)
            #expect(
                try await database.count("SELECT COUNT(*) AS n FROM quiz_flags WHERE attempt_id = \(attemptID)") == 20)
        }
    }
}
