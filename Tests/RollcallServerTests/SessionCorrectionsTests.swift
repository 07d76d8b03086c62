import Foundation
import HTTPTypes
import RollcallCore
import ServerTestSupport
import Testing

@testable import RollcallServer

@Suite("Session corrections", .timeLimit(.minutes(2)))
struct SessionCorrectionsTests {
    @Test func a_teacher_edits_a_scheduled_and_an_open_session_and_every_reader_sees_the_new_settings() async throws {
        try await withServer { api in
            let room = try await Classroom.open(api)
            let path = "/api/v1/sessions/\(room.sessionID)"
            // Read once, so that the server holds the settings in memory.
            #expect(try await api.call(.get, path, as: room.teacher).int("session.settings.period") == 5)
            #expect(try await room.projector(api).string("typedCode") == nil)
            let edited = try await api.call(
                .patch, path, as: room.teacher,
                json: ["title": "Lab, moved", "settings": ["period": 10, "openMinutes": 30, "allowTyping": true]])
            #expect(edited.status == .ok, "\(edited.text)")
            #expect(edited.string("session.title") == "Lab, moved")
            #expect(edited.int("session.settings.period") == 10)
            let shown = try await api.call(.get, path, as: room.teacher)
            #expect(shown.int("session.settings.period") == 10, "the session's settings are not read from an old copy")
            let opened = try #require(Date(isoText: shown.string("session.openedAt") ?? ""))
            let closes = try #require(Date(isoText: shown.string("session.closesAt") ?? ""))
            #expect(abs(closes.timeIntervalSince(opened) - 30 * 60) < 1, "an open session closes by its new minutes")
            #expect(try await room.projector(api).string("typedCode") != nil, "the projector shows the typed code now")
            // A check-in still works with the code projected under the new settings.
            #expect(try await room.checkIn(api, room.student).status == .created)

            let later = ISO8601DateFormatter().string(from: Date().addingTimeInterval(7200))
            let scheduled = try await api.call(
                .post, "/api/v1/courses/\(room.courseID)/sessions", as: room.teacher, json: ["scheduledAt": later])
            let scheduledID = try #require(scheduled.int("session.id"))
            let sooner = ISO8601DateFormatter().string(from: Date().addingTimeInterval(3600))
            let moved = try await api.call(
                .patch, "/api/v1/sessions/\(scheduledID)", as: room.teacher, json: ["scheduledAt": sooner])
            #expect(moved.status == .ok, "\(moved.text)")
            #expect(moved.string("session.scheduledAt")?.hasPrefix(String(sooner.prefix(16))) == true)
            #expect(moved.string("session.phase") == "scheduled")
        }
    }

    @Test func bad_edits_are_refused_and_change_nothing() async throws {
        try await withServer { api in
            let room = try await Classroom.open(api)
            let path = "/api/v1/sessions/\(room.sessionID)"
            let teacher = room.teacher
            try await api.expectRefused(
                .patch, path, as: teacher, json: ["title": "   "], status: .badRequest, code: "invalid_title")
            try await api.expectRefused(
                .patch, path, as: teacher, json: ["settings": ["period": 1]], status: .badRequest,
                code: "invalid_period")
            try await api.expectRefused(
                .patch, path, as: teacher, json: ["settings": ["typedPeriod": 5]], status: .badRequest,
                code: "invalid_typed_period")
            try await api.expectRefused(
                .post, "/api/v1/courses/\(room.courseID)/sessions", as: teacher,
                json: ["settings": ["typedPeriod": 120]], status: .badRequest, code: "invalid_typed_period")
            try await api.expectRefused(
                .patch, path, as: teacher, json: ["scheduledAt": "tomorrow"], status: .badRequest,
                code: "invalid_scheduled_at")
            try await api.expectRefused(
                .patch, path, as: teacher, json: ["scheduledAt": "2030-01-01T09:00:00Z"], status: .conflict,
                code: "session_started")
            try await api.expectRefused(
                .patch, path, as: room.student, json: ["title": "Mine now"], status: .forbidden, code: "forbidden")
            try await api.expectRefused(
                .patch, "/api/v1/sessions/999999", as: teacher, json: ["title": "Ghost"], status: .notFound,
                code: "session_not_found")
            _ = try await api.call(.post, "\(path)/close", as: teacher)
            try await api.expectRefused(
                .patch, path, as: teacher, json: ["title": "After the fact"], status: .conflict,
                code: "session_closed")
        }
    }

    @Test func an_open_session_is_extended_and_a_closed_one_reopened_for_late_arrivals() async throws {
        try await withServer { api in
            let room = try await Classroom.open(api)
            let path = "/api/v1/sessions/\(room.sessionID)"
            let teacher = room.teacher
            let before = try #require(
                Date(isoText: try await api.call(.get, path, as: teacher).string("session.closesAt") ?? ""))
            let extended = try await api.call(.post, "\(path)/extend", as: teacher, json: ["minutes": 10])
            #expect(extended.status == .ok, "\(extended.text)")
            let after = try #require(Date(isoText: extended.string("session.closesAt") ?? ""))
            #expect(abs(after.timeIntervalSince(before) - 600) < 1)
            for minutes in [0, 241, -5] {
                try await api.expectRefused(
                    .post, "\(path)/extend", as: teacher, json: ["minutes": minutes], status: .badRequest,
                    code: "invalid_minutes")
            }
            try await api.expectRefused(
                .post, "\(path)/extend", as: teacher, json: [:], status: .badRequest, code: "missing_field")
            try await api.expectRefused(
                .post, "\(path)/reopen", as: teacher, json: [:], status: .conflict, code: "session_already_open")
            try await api.expectRefused(
                .post, "\(path)/extend", as: room.student, json: ["minutes": 5], status: .forbidden,
                code: "forbidden")

            _ = try await api.call(.post, "\(path)/close", as: teacher)
            try await api.expectRefused(
                .post, "\(path)/extend", as: teacher, json: ["minutes": 5], status: .conflict, code: "session_closed")
            let reopened = try await api.call(.post, "\(path)/reopen", as: teacher, json: ["minutes": 10])
            #expect(reopened.status == .ok, "\(reopened.text)")
            #expect(reopened.string("session.phase") == "open")
            // Whoever checks in after the reopening is late, as the teacher chose by default.
            let checkedIn = try await room.checkIn(api, room.student)
            #expect(checkedIn.status == .created, "\(checkedIn.text)")
            #expect(checkedIn.string("status") == "late", "\(checkedIn.text)")

            _ = try await api.call(.post, "\(path)/close", as: teacher)
            let latecomer = try await room.enrol(api, "Lou Later")
            let asPresent = try await api.call(
                .post, "\(path)/reopen", as: teacher, json: ["minutes": 5, "late": false])
            #expect(asPresent.status == .ok, "\(asPresent.text)")
            let second = try await room.checkIn(api, latecomer)
            #expect(second.string("status") == "present", "\(second.text)")

            let scheduled = try await api.call(
                .post, "/api/v1/courses/\(room.courseID)/sessions", as: teacher,
                json: ["scheduledAt": ISO8601DateFormatter().string(from: Date().addingTimeInterval(3600))])
            let scheduledPath = "/api/v1/sessions/\(try #require(scheduled.int("session.id")))"
            try await api.expectRefused(
                .post, "\(scheduledPath)/reopen", as: teacher, json: [:], status: .conflict,
                code: "session_not_started")
            try await api.expectRefused(
                .post, "\(scheduledPath)/extend", as: teacher, json: ["minutes": 5], status: .conflict,
                code: "session_not_started")
        }
    }

    @Test func deleting_a_session_with_quiz_work_names_the_attempts_and_is_refused_until_they_are_confirmed()
        async throws
    {
        try await withServer { api in
            // Setup: a checked-in student's submitted quiz attempt in the session.
            let quiz = try await QuizRoom.start(api)
            let attempt = try #require(try await quiz.attempt(api).int("attempt.id"))
            let submitted = try await api.call(
                .post, "/api/v1/quiz-attempts/\(attempt)/submit", as: quiz.room.student)
            #expect(submitted.status == .ok, "\(submitted.text)")
            let path = "/api/v1/sessions/\(quiz.room.sessionID)"
            let teacher = quiz.room.teacher

            // The calls under test: deleting with the records confirmed but not the attempts, then both.
            let unconfirmed = try await api.call(.delete, "\(path)?records=1", as: teacher)
            try await api.expectRefused(
                .delete, "\(path)?records=1", as: teacher, status: .conflict, code: "confirm_delete")
            try await api.expectRefused(
                .delete, "\(path)?records=1&attempts=2", as: teacher, status: .conflict, code: "confirm_delete")
            try await api.expectRefused(
                .delete, "\(path)?records=1&attempts=one", as: teacher, status: .badRequest, code: "invalid_attempts")
            let page = try await api.call(.get, "/sessions/\(quiz.room.sessionID)", as: teacher)
            let deleted = try await api.call(.delete, "\(path)?records=1&attempts=1", as: teacher)

            // Validation: the refusal counted the attempt, the page asks about it, the audit keeps it.
            #expect(unconfirmed.value("error.details.attempts") as? Int == 1, "\(unconfirmed.text)")
            #expect(unconfirmed.errorMessage?.contains("1 quiz attempt") == true, "\(unconfirmed.text)")
            #expect(page.text.contains("records=1&amp;attempts=1") || page.text.contains("records=1&attempts=1"))
            #expect(page.text.contains("1 quiz attempt"), "the confirmation names the quiz work")
            #expect(deleted.status == .noContent, "\(deleted.text)")
            let audit = try await api.call(.get, "/api/v1/courses/\(quiz.room.courseID)/audit", as: teacher)
            let detail = audit.list("entries").first?["detail"] as? String
            #expect(detail?.contains("1 quiz attempt") == true, "\(audit.text)")
        }
    }

    @Test func a_mistaken_session_is_deleted_with_its_records_once_confirmed_and_the_course_keeps_a_line() async throws
    {
        try await withServer { api in
            let room = try await Classroom.open(api)
            let path = "/api/v1/sessions/\(room.sessionID)"
            let teacher = room.teacher
            #expect(try await room.checkIn(api, room.student).status == .created)

            try await api.expectRefused(.delete, path, as: teacher, status: .conflict, code: "confirm_delete")
            let unconfirmed = try await api.call(.delete, path, as: teacher)
            #expect(unconfirmed.value("error.details.records") as? Int == 1, "\(unconfirmed.text)")
            #expect(unconfirmed.errorMessage?.contains("1 attendance record") == true)
            try await api.expectRefused(
                .delete, "\(path)?records=2", as: teacher, status: .conflict, code: "confirm_delete")
            try await api.expectRefused(
                .delete, "\(path)?records=many", as: teacher, status: .badRequest, code: "invalid_records")
            try await api.expectRefused(
                .delete, "\(path)?records=1", as: room.student, status: .forbidden, code: "forbidden")

            let deleted = try await api.call(.delete, "\(path)?records=1", as: teacher)
            #expect(deleted.status == .noContent, "\(deleted.text)")
            #expect(try await api.call(.get, path, as: teacher).status == .notFound)
            let record = try await api.call(
                .get, "/api/v1/courses/\(room.courseID)/students/\(room.student.id)/attendance", as: teacher)
            #expect(record.int("summary.sessions") == 0, "the record went with the session")

            // A scheduled session has nothing recorded: cancelling it needs no count.
            let scheduled = try await api.call(
                .post, "/api/v1/courses/\(room.courseID)/sessions", as: teacher,
                json: [
                    "title": "Friday lab",
                    "scheduledAt": ISO8601DateFormatter().string(from: Date().addingTimeInterval(3600)),
                ])
            let cancelled = try await api.call(
                .delete, "/api/v1/sessions/\(try #require(scheduled.int("session.id")))", as: teacher)
            #expect(cancelled.status == .noContent, "\(cancelled.text)")

            let audit = try await api.call(.get, "/api/v1/courses/\(room.courseID)/audit", as: teacher)
            let entries = audit.list("entries")
            #expect(entries.map { $0["action"] as? String } == ["session_cancelled", "session_deleted"])
            #expect((entries.last?["detail"] as? String)?.contains("with 1 attendance record") == true, "\(audit.text)")
            #expect(entries.last?["actorName"] as? String == "Tess Teacher")
            try await api.expectRefused(
                .get, "/api/v1/courses/\(room.courseID)/audit", as: room.student, status: .forbidden,
                code: "forbidden")
        }
    }

    @Test func opening_a_second_session_in_a_course_warns_of_the_first() async throws {
        try await withServer { api in
            let room = try await Classroom.open(api)
            let first = try await api.call(.get, "/api/v1/sessions/\(room.sessionID)", as: room.teacher)
            #expect(first.value("warning") == nil)
            let second = try await api.call(
                .post, "/api/v1/courses/\(room.courseID)/sessions", as: room.teacher, json: ["title": "Tutorial"])
            #expect(second.status == .created)
            let title = try #require(first.string("session.title"))
            #expect(second.string("warning")?.contains("“\(title)” is still open") == true, "\(second.text)")
            _ = try await api.call(.post, "/api/v1/sessions/\(room.sessionID)/close", as: room.teacher)
            let third = try await api.call(
                .post, "/api/v1/courses/\(room.courseID)/sessions", as: room.teacher, json: ["title": "Tutorial 2"])
            #expect(third.string("warning")?.contains("“Tutorial” is still open") == true, "\(third.text)")
        }
    }
}
