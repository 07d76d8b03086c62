import Foundation
import HTTPTypes
import RollcallCore
import ServerTestSupport
import Testing

@testable import RollcallServer

/// The same routes on PostgreSQL: a real server on loopback, started and stopped by the test.
@Suite("PostgreSQL", .timeLimit(.minutes(5)))
struct PostgresTests {
    @Test func accounts_courses_sessions_and_check_ins_work_on_postgresql() async throws {
        let postgres = try PostgresServer.start()
        defer { postgres.stop() }
        try await withServer(databaseURL: postgres.url) { api in
            let room = try await Classroom.open(api, settings: ["latitude": 52, "longitude": 4, "radius": 30])
            let ticket = try await room.scan(api)
            let body: [String: Any] = ["ticket": ticket, "location": Classroom.here, "deviceId": "pg-phone-1"]
            let first = try await api.call(.post, "/api/v1/check-ins", as: room.student, json: body)
            #expect(first.status == .created, "\(first.text)")
            let again = try await api.call(.post, "/api/v1/check-ins", as: room.student, json: body)
            #expect(again.status == .ok)
            #expect(again.string("checkedInAt") == first.string("checkedInAt"))

            let friend = try await api.register("Pg Friend")
            let code = try await api.call(.get, "/api/v1/courses/\(room.courseID)", as: room.teacher)
                .string("course.joinCode")!
            _ = try await api.call(.post, "/api/v1/courses/join", as: friend, json: ["code": code])
            let shared = try await api.call(
                .post, "/api/v1/check-ins", as: friend,
                json: ["ticket": try await room.scan(api), "location": Classroom.here, "deviceId": "pg-phone-1"]
            )
            #expect(shared.errorCode == "device_already_used")

            let sessions = try await api.call(.get, "/api/v1/courses/\(room.courseID)/sessions", as: room.teacher)
            #expect(
                sessions.list("sessions").first?["counts"] as? [String: Int] == [
                    "present": 1, "late": 0, "excused": 0, "absent": 0,
                ])
            let roster = try await api.call(
                .get, "/api/v1/courses/\(room.courseID)/students?q=friend", as: room.teacher)
            #expect(roster.list("students").count == 1)
            let png = Pictures.png
            #expect(try await api.call(.put, "/api/v1/me/picture", as: friend, raw: png).status == .noContent)
            #expect(try await api.call(.get, "/api/v1/users/\(friend.id)/picture", as: friend).status == .ok)
            #expect(try await api.call(.get, "/healthz").status == .ok)
        }
        // A second start on the same database finds the schema in place and the data still there.
        try await withServer(databaseURL: postgres.url) { api in
            let account = try await api.signIn("cass.checkin@school.test")
            let courses = try await api.call(.get, "/api/v1/courses", as: account)
            #expect(courses.list("courses").count == 1)
        }
    }

    @Test func records_reports_and_imports_work_on_postgresql() async throws {
        let postgres = try PostgresServer.start()
        defer { postgres.stop() }
        try await withServer(databaseURL: postgres.url) { api in
            let room = try await Classroom.open(api)
            let marked = try await api.mark(
                room, session: room.sessionID, student: room.student.id, "excused", reason: "Dentist")
            #expect(marked.string("audit.reason") == "Dentist", "\(marked.text)")
            _ = try await api.call(
                .patch, "/api/v1/courses/\(room.courseID)", as: room.teacher, json: ["markAbsentOnClose": true])
            let csv = "name,email\nPg Newcomer,pg.newcomer@school.test\nCass Checkin,cass.checkin@school.test\n"
            let imported = try await api.call(
                .post, "/api/v1/courses/\(room.courseID)/roster-import", as: room.teacher, raw: Array(csv.utf8),
                contentType: "text/csv")
            #expect(imported.int("alreadyEnrolled") == 1, "\(imported.text)")
            #expect(imported.list("invited").count == 1)
            _ = try await api.pastSession(room, title: "Week 2")
            let summary = try await api.call(
                .get, "/api/v1/courses/\(room.courseID)/students/\(room.student.id)/attendance", as: room.student)
            #expect(summary.int("summary.excused") == 1, "\(summary.text)")
            #expect(summary.int("summary.absent") == 1, "closing week 2 marked Cass absent")
            #expect(summary.value("summary.grade") as? Double == 25)
            let report = try await api.csv("/api/v1/courses/\(room.courseID)/report.csv", as: room.teacher)
            #expect(report.count == 2)
            #expect(Array(report[1].suffix(10)) == ["0", "0", "1", "1", "0.0", "25.0", "0", "0", "", "25.0"])
            let log = try await api.call(.get, "/api/v1/sessions/\(room.sessionID)/audit", as: room.teacher)
            #expect(log.list("entries").count == 1)
        }
    }
}

@Suite("Quizzes on PostgreSQL", .timeLimit(.minutes(5)))
struct QuizPostgresTests {
    @Test func a_quiz_runs_saves_under_the_sequence_rule_and_closes_on_postgresql() async throws {
        let postgres = try PostgresServer.start()
        defer { postgres.stop() }
        try await withServer(databaseURL: postgres.url) { api in
            let quiz = try await QuizRoom.start(api)
            let attempt = try #require(try await quiz.attempt(api).int("attempt.id"))
            #expect(try await quiz.save(api, attempt: attempt, "q3", ["text": "draft 2"], sequence: 2).status == .ok)
            let stale = try await quiz.save(api, attempt: attempt, "q3", ["text": "draft 1"], sequence: 1)
            #expect(stale.errorCode == "stale_sequence")
            #expect(try await quiz.save(api, attempt: attempt, "q1", ["choice": 1], sequence: 3).int("answered") == 2)
            let flags = try await api.call(
                .post, "/api/v1/quiz-attempts/\(attempt)/flags", as: quiz.room.student,
                json: ["flags": [["kind": "offline", "occurredAt": "2026-01-01T09:00:00Z", "clientId": "a"]]])
            #expect(flags.int("recorded") == 1)
            let submitted = try await api.call(
                .post, "/api/v1/quiz-attempts/\(attempt)/submit", as: quiz.room.student)
            #expect(submitted.string("attempt.ending") == "submitted")
            let results = try await api.call(
                .get, "/api/v1/quiz-runs/\(quiz.runID)/results", as: quiz.room.teacher)
            #expect(results.list("results").first?["points"] as? Double == 2)
            #expect(results.list("flags").count == 1)
            let view = try await api.call(.get, "/api/v1/quiz-attempts/\(attempt)", as: quiz.room.student)
            #expect(view.value("answers.q3.answer.text") as? String == "draft 2")
        }
    }
}
