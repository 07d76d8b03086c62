import Foundation
import HTTPTypes
import RollcallCore
import RollcallStorage
import ServerTestSupport
import Testing

@testable import RollcallQuizzes
@testable import RollcallServer

@Suite("Quizzes", .timeLimit(.minutes(2)))
struct QuizzesTests {
    @Test func a_teacher_creates_edits_duplicates_and_deletes_quizzes() async throws {
        try await withServer { api in
            let (teacher, courseID, _) = try await api.teacherWithCourse()
            let created = try await api.call(.post, "/api/v1/courses/\(courseID)/quizzes", as: teacher, json: quizBody)
            #expect(created.status == .created, "\(created.text)")
            let id = try #require(created.int("quiz.id"))
            #expect(created.int("quiz.maxPoints") == 10)
            #expect(created.list("quiz.questions").count == 4)

            var edited = quizBody
            edited["title"] = "Cells, revised"
            let updated = try await api.call(.put, "/api/v1/quizzes/\(id)", as: teacher, json: edited)
            #expect(updated.status == .ok, "\(updated.text)")
            #expect(updated.string("quiz.title") == "Cells, revised")

            let copy = try await api.call(.post, "/api/v1/quizzes/\(id)/duplicate", as: teacher)
            #expect(copy.status == .created)
            #expect(copy.string("quiz.title") == "Copy of Cells, revised")
            let list = try await api.call(.get, "/api/v1/courses/\(courseID)/quizzes", as: teacher)
            #expect(list.list("quizzes").count == 2)

            // Nobody answered the copy: it is gone for good.
            let deleted = try await api.call(.delete, "/api/v1/quizzes/\(copy.int("quiz.id")!)", as: teacher)
            #expect(deleted.value("deleted") as? Bool == true)
            #expect(try await api.rows("SELECT id FROM quizzes").count == 1)
        }
    }

    @Test func a_quiz_with_answers_is_archived_not_deleted() async throws {
        try await withServer { api in
            let quiz = try await QuizRoom.start(api)
            let attempt = try #require(try await quiz.attempt(api).int("attempt.id"))
            try await quiz.save(api, attempt: attempt, "q1", ["choice": 1], sequence: 1)
            let deleted = try await api.call(.delete, "/api/v1/quizzes/\(quiz.quizID)", as: quiz.room.teacher)
            #expect(deleted.value("archived") as? Bool == true)
            #expect(try await api.rows("SELECT archived_at FROM quizzes").first?["archived_at"] != nil)
            let list = try await api.call(.get, "/api/v1/courses/\(quiz.room.courseID)/quizzes", as: quiz.room.teacher)
            #expect(list.list("quizzes").isEmpty)
            let archived = try await api.call(
                .get, "/api/v1/courses/\(quiz.room.courseID)/quizzes?archived=true", as: quiz.room.teacher)
            #expect(archived.list("quizzes").count == 1)
            try await api.expectRefused(
                .put, "/api/v1/quizzes/\(quiz.quizID)", as: quiz.room.teacher, json: quizBody, status: .conflict,
                code: "quiz_archived")
            // The results stay.
            let results = try await api.call(
                .get, "/api/v1/quiz-runs/\(quiz.runID)/results", as: quiz.room.teacher)
            #expect(results.list("results").count == 1)
        }
    }

    /// A save's answer is written by hand (`JSONWriter`); it must read as Foundation's encoder writes it, key by key.
    @Test func a_saves_answer_reads_as_the_encoder_writes_it() throws {
        let saved = AttemptsController.Saved(
            questionId: "q\"1\\", sequence: 7, savedAt: Date(timeIntervalSince1970: 1_796_000_000.5), changed: false,
            answered: 3, deadline: Date(timeIntervalSince1970: 1_796_000_600.25))
        let byHand = try JSONSerialization.jsonObject(with: Data(saved.written.text.utf8)) as? NSDictionary
        let encoded = try JSONSerialization.jsonObject(with: JSONCoding.encoder.encode(saved)) as? NSDictionary
        #expect(byHand != nil)
        #expect(byHand == encoded, "\(saved.written.text)")
    }

    @Test func a_student_answers_every_kind_and_is_marked() async throws {
        try await withServer { api in
            let quiz = try await QuizRoom.start(api)
            let started = try await quiz.attempt(api)
            #expect(started.status == .created, "\(started.text)")
            let attempt = try #require(started.int("attempt.id"))
            // The student's copy has no solutions.
            #expect(started.list("questions").allSatisfy { $0["correct"] == nil && $0["answer"] == nil })
            #expect(started.list("questions").count == 4)

            #expect(try await quiz.save(api, attempt: attempt, "q1", ["choice": 1], sequence: 1).status == .ok)
            #expect(try await quiz.save(api, attempt: attempt, "q2", ["choices": [1, 0]], sequence: 2).status == .ok)
            #expect(
                try await quiz.save(api, attempt: attempt, "q3", ["text": "Water crosses"], sequence: 3).status == .ok)
            let last = try await quiz.save(api, attempt: attempt, "q4", ["number": 46], sequence: 4)
            #expect(last.status == .ok, "\(last.text)")
            #expect(last.int("answered") == 4)

            let submitted = try await api.call(
                .post, "/api/v1/quiz-attempts/\(attempt)/submit", as: quiz.room.student)
            #expect(submitted.status == .ok, "\(submitted.text)")
            #expect(submitted.string("attempt.ending") == "submitted")
            // Submitting again is the same answer.
            let again = try await api.call(.post, "/api/v1/quiz-attempts/\(attempt)/submit", as: quiz.room.student)
            #expect(again.status == .ok)
            #expect(again.string("attempt.closedAt") == submitted.string("attempt.closedAt"))
            try await api.expectRefused(
                .put, "/api/v1/quiz-attempts/\(attempt)/answers/q1", as: quiz.room.student,
                json: ["sequence": 9, "answer": ["choice": 0]], status: .conflict, code: "attempt_closed")

            let teacher = quiz.room.teacher
            var results = try await api.call(.get, "/api/v1/quiz-runs/\(quiz.runID)/results", as: teacher)
            let result = try #require(results.list("results").first)
            #expect(result["points"] as? Double == 6)
            #expect(result["pending"] as? Int == 1)

            let marked = try await api.call(
                .put, "/api/v1/quiz-attempts/\(attempt)/marks/q3", as: teacher,
                json: ["points": 3.5, "comment": "Half: what drives it?"])
            #expect(marked.status == .noContent, "\(marked.text)")
            results = try await api.call(.get, "/api/v1/quiz-runs/\(quiz.runID)/results", as: teacher)
            #expect(results.list("results").first?["points"] as? Double == 9.5)
            #expect(results.list("results").first?["pending"] as? Int == 0)

            let stats = try await api.call(.get, "/api/v1/quiz-runs/\(quiz.runID)/statistics", as: teacher)
            let first = try #require(stats.list("questions").first)
            #expect(first["optionCounts"] as? [Int] == [0, 1, 0])
            #expect(first["percentCorrect"] as? Double == 100)

            let csv = try await api.csv("/api/v1/quiz-runs/\(quiz.runID)/results.csv", as: teacher)
            #expect(csv.first?[0...1] == ["Name", "Student number"])
            #expect(csv.first?[2].hasPrefix("Started at (") == true, "the zone is named: \(csv.first ?? [])")
            #expect(csv.first?[4...5] == ["Ending", "Ending code"])
            #expect(csv.count == 2)
            #expect(csv[1][0] == "Cass Checkin")
            #expect(csv[1][4...5] == ["Handed in", "submitted"], "\(csv[1])")
            #expect(
                csv[1][2].wholeMatch(of: /\d{4}-\d\d-\d\d \d\d:\d\d:\d\d/) != nil, "a time, no offset: \(csv[1][2])")
            #expect(csv[1][6] == "9.50")
            #expect(csv[1][9...12] == ["2", "3", "3.50", "1"])

            // The results show to the student once the quiz has stopped, as the teacher chose.
            let before = try await api.call(.get, "/api/v1/quiz-attempts/\(attempt)", as: quiz.room.student)
            #expect(before.value("points") == nil)
            _ = try await api.call(.post, "/api/v1/quiz-runs/\(quiz.runID)/stop", as: teacher)
            let after = try await api.call(.get, "/api/v1/quiz-attempts/\(attempt)", as: quiz.room.student)
            #expect(after.value("points") as? Double == 9.5)
        }
    }

    @Test func the_sequence_rule_keeps_the_latest_save_and_acknowledges_retries() async throws {
        try await withServer { api in
            let quiz = try await QuizRoom.start(api)
            let attempt = try #require(try await quiz.attempt(api).int("attempt.id"))
            let newer = try await quiz.save(api, attempt: attempt, "q3", ["text": "second draft"], sequence: 7)
            #expect(newer.value("changed") as? Bool == true)
            let retry = try await quiz.save(api, attempt: attempt, "q3", ["text": "second draft"], sequence: 7)
            #expect(retry.status == .ok)
            #expect(retry.value("changed") as? Bool == false)
            try await api.expectRefused(
                .put, "/api/v1/quiz-attempts/\(attempt)/answers/q3", as: quiz.room.student,
                json: ["sequence": 6, "answer": ["text": "first draft"]], status: .conflict, code: "stale_sequence")
            // Another question's older number is not stale: sequences compare per question.
            #expect(try await quiz.save(api, attempt: attempt, "q1", ["choice": 0], sequence: 5).status == .ok)
            let rows = try await api.rows("SELECT question_id, answer, sequence FROM quiz_answers ORDER BY question_id")
            #expect(rows.count == 2)
            #expect(rows[1]["answer"] == #"{"text":"second draft"}"#)
            #expect(rows[1]["sequence"] == "7")
            let view = try await api.call(.get, "/api/v1/quiz-attempts/\(attempt)", as: quiz.room.student)
            #expect(view.int("lastSequence") == 7)
        }
    }

    @Test func only_students_checked_in_take_the_quiz_unless_let_in() async throws {
        try await withServer { api in
            let quiz = try await QuizRoom.start(api, checkIn: false)
            try await api.expectRefused(
                .post, "/api/v1/quiz-runs/\(quiz.runID)/attempts", as: quiz.room.student, json: [:],
                status: .forbidden, code: "not_checked_in")
            let run = try await api.call(.get, "/api/v1/quiz-runs/\(quiz.runID)", as: quiz.room.student)
            #expect(run.value("mayStart") as? Bool == false)
            let admitted = try await api.call(
                .post, "/api/v1/quiz-runs/\(quiz.runID)/admissions", as: quiz.room.teacher,
                json: ["studentId": quiz.room.student.id])
            #expect(admitted.status == .created, "\(admitted.text)")
            #expect(try await quiz.attempt(api).status == .created)
            // A second student, checked in, takes it too.
            let other = try await quiz.room.enrol(api, "Otto Other")
            try await quiz.room.checkIn(api, other)
            #expect(try await quiz.attempt(api, as: other).status == .created)
        }
    }

    @Test func a_resumed_attempt_is_the_same_and_another_device_is_flagged() async throws {
        try await withServer { api in
            var body = quizBody
            body["shuffleQuestions"] = true
            body["shuffleOptions"] = true
            let quiz = try await QuizRoom.start(api, body: body)
            let first = try await quiz.attempt(api, device: "phone-a")
            let again = try await quiz.attempt(api, device: "phone-a")
            #expect(again.status == .ok)
            #expect(again.int("attempt.id") == first.int("attempt.id"))
            let order = { (reply: Reply) in reply.list("questions").map { "\($0["id"]!)\($0["order"] ?? "")" } }
            #expect(order(again) == order(first))
            #expect(try await api.rows("SELECT kind FROM quiz_flags").isEmpty)
            _ = try await quiz.attempt(api, device: "laptop-b")
            #expect(try await api.rows("SELECT kind FROM quiz_flags").map { $0["kind"] } == ["second_device"])
        }
    }

    @Test func the_time_limit_closes_the_attempt_with_its_saved_answers() async throws {
        try await withServer { api in
            let quiz = try await QuizRoom.start(api)
            let attempt = try #require(try await quiz.attempt(api).int("attempt.id"))
            try await quiz.save(api, attempt: attempt, "q1", ["choice": 1], sequence: 1)
            // The deadline passed a minute ago.
            try await api.execute(
                "UPDATE quiz_attempts SET deadline = started_at - 60, started_at = started_at - 660")
            // Reading the attempt closes it, as the sweep would have.
            let view = try await api.call(.get, "/api/v1/quiz-attempts/\(attempt)", as: quiz.room.student)
            #expect(view.string("attempt.ending") == "time_limit")
            #expect(view.value("answers.q1.answer.choice") as? Int == 1)
            try await api.expectRefused(
                .put, "/api/v1/quiz-attempts/\(attempt)/answers/q1", as: quiz.room.student,
                json: ["sequence": 2, "answer": ["choice": 0]], status: .conflict, code: "time_limit_passed")
            // Closed at its deadline, not when someone noticed.
            let row = try #require(try await api.rows("SELECT closed_at, deadline FROM quiz_attempts").first)
            let closedAt = try #require(Double((row["closed_at"] ?? nil) ?? ""))
            let deadline = try #require(Double((row["deadline"] ?? nil) ?? ""))
            #expect(abs(closedAt - deadline) < 0.001)
        }
    }

    @Test func the_teacher_adds_time_ends_an_attempt_and_stops_the_quiz() async throws {
        try await withServer { api in
            let quiz = try await QuizRoom.start(api)
            let teacher = quiz.room.teacher
            let started = try await quiz.attempt(api)
            let attempt = try #require(started.int("attempt.id"))
            let added = try await api.call(
                .post, "/api/v1/quiz-attempts/\(attempt)/added-time", as: teacher, json: ["seconds": 120])
            #expect(added.status == .ok, "\(added.text)")
            #expect(added.int("attempt.addedSeconds") == 120)
            let before = try Date(started.string("attempt.deadline") ?? "", strategy: .iso8601)
            let after = try Date(added.string("attempt.deadline") ?? "", strategy: .iso8601)
            #expect(abs(after.timeIntervalSince(before) - 120) < 0.01)

            let ended = try await api.call(.post, "/api/v1/quiz-attempts/\(attempt)/end", as: teacher)
            #expect(ended.string("attempt.ending") == "ended_by_teacher")
            try await api.expectRefused(
                .post, "/api/v1/quiz-attempts/\(attempt)/submit", as: quiz.room.student, status: .conflict,
                code: "attempt_closed")
            try await api.expectRefused(
                .post, "/api/v1/quiz-attempts/\(attempt)/added-time", as: teacher, json: ["seconds": 60],
                status: .conflict, code: "attempt_closed")

            let other = try await quiz.room.enrol(api, "Otto Other")
            try await quiz.room.checkIn(api, other)
            let second = try #require(try await quiz.attempt(api, as: other).int("attempt.id"))
            let stopped = try await api.call(.post, "/api/v1/quiz-runs/\(quiz.runID)/stop", as: teacher)
            #expect(stopped.value("run.running") as? Bool == false)
            let view = try await api.call(.get, "/api/v1/quiz-attempts/\(second)", as: other)
            #expect(view.string("attempt.ending") == "quiz_stopped")
            try await api.expectRefused(
                .post, "/api/v1/quiz-attempts/\(second)/submit", as: other, status: .conflict, code: "attempt_closed")
            let late = try await quiz.room.enrol(api, "Lou Late")
            try await quiz.room.checkIn(api, late)
            try await api.expectRefused(
                .post, "/api/v1/quiz-runs/\(quiz.runID)/attempts", as: late, json: [:], status: .conflict,
                code: "quiz_stopped")
        }
    }

    @Test func flags_are_stored_once_each_with_the_time_they_happened() async throws {
        try await withServer { api in
            let quiz = try await QuizRoom.start(api)
            let attempt = try #require(try await quiz.attempt(api).int("attempt.id"))
            let happened = ISO8601DateFormatter().string(from: Date().addingTimeInterval(-20))
            let flags: [[String: Any]] = [
                ["kind": "left_page", "occurredAt": happened, "clientId": "f-1"],
                ["kind": "returned", "occurredAt": happened, "clientId": "f-2", "secondsAway": 12.5],
                ["kind": "pasted", "occurredAt": happened, "clientId": "f-3", "characters": 80, "questionId": "q3"],
            ]
            let sent = try await api.call(
                .post, "/api/v1/quiz-attempts/\(attempt)/flags", as: quiz.room.student, json: ["flags": flags])
            #expect(sent.status == .created, "\(sent.text)")
            #expect(sent.int("recorded") == 3)
            // Sent again from the offline queue: nothing twice.
            let resent = try await api.call(
                .post, "/api/v1/quiz-attempts/\(attempt)/flags", as: quiz.room.student, json: ["flags": flags])
            #expect(resent.int("recorded") == 0)
            let results = try await api.call(
                .get, "/api/v1/quiz-runs/\(quiz.runID)/results", as: quiz.room.teacher)
            #expect(results.list("flags").map { $0["kind"] as? String } == ["left_page", "returned", "pasted"])
            #expect(results.list("flags")[1]["detail"] as? String == "after 13 s")
            #expect(
                results.list("flags")[0]["occurredAt"] as? String
                    == happened.replacingOccurrences(of: "Z", with: ".000Z"))
        }
    }

    @Test func a_flood_of_flags_is_folded_into_counted_repeats_and_the_dashboard_stays_small() async throws {
        try await withServer { api in
            // Setup: a student sending 50 requests of 200 identical flags, as a script would.
            let quiz = try await QuizRoom.start(api)
            let attempt = try #require(try await quiz.attempt(api).int("attempt.id"))
            let now = ISO8601DateFormatter().string(from: Date())
            let burst = Array(
                repeating: ["kind": "pasted", "occurredAt": now, "characters": 10] as [String: Any], count: 200)

            // The calls under test.
            for _ in 0..<50 {
                let sent = try await api.call(
                    .post, "/api/v1/quiz-attempts/\(attempt)/flags", as: quiz.room.student, json: ["flags": burst])
                #expect(sent.status == .created, "\(sent.text)")
            }
            let left = try await api.call(
                .post, "/api/v1/quiz-attempts/\(attempt)/flags", as: quiz.room.student,
                json: ["flags": [["kind": "left_page", "occurredAt": now]]])

            // Validation: a minute's worth of flags kept, every other repeat counted on the latest, and a new kind
            // still shows on its own.
            #expect(left.status == .created)
            let stored = try await api.rows("SELECT kind FROM quiz_flags")
            #expect(stored.count == FlagFlood.perMinute + 1, "\(stored.count) flags stored")
            let results = try await api.call(.get, "/api/v1/quiz-runs/\(quiz.runID)/results", as: quiz.room.teacher)
            let details = results.list("flags").compactMap { $0["detail"] as? String }
            #expect(details.contains("10 characters, \(10_000 - FlagFlood.perMinute + 1) times"), "\(details)")
            #expect(
                results.text.utf8.count < 20_000, "the teacher's view stays small: \(results.text.utf8.count) bytes")
        }
    }

    @Test func answers_saved_faster_than_a_person_types_wait_their_turn() async throws {
        try await withServer { api in
            let quiz = try await QuizRoom.start(api)
            let attempt = try #require(try await quiz.attempt(api).int("attempt.id"))
            var statuses: [HTTPResponse.Status] = []
            var retryAfter: String?
            for sequence in 1...(SaveThrottle.limit.limit + 5) {
                let saved = try await api.call(
                    .put, "/api/v1/quiz-attempts/\(attempt)/answers/q3", as: quiz.room.student,
                    json: ["answer": ["text": "draft \(sequence)"], "sequence": sequence])
                statuses.append(saved.status)
                if saved.status == .tooManyRequests { retryAfter = saved.headers[.retryAfter] }
            }
            #expect(statuses.prefix(SaveThrottle.limit.limit).allSatisfy { $0 == .ok }, "\(statuses)")
            #expect(statuses.last == .tooManyRequests, "\(statuses)")
            #expect(Int(retryAfter ?? "") ?? 0 >= 1, "Retry-After says when")
        }
    }

    @Test func the_dashboard_shows_each_start_answer_flag_and_submission_live() async throws {
        try await withServer(setup: .live) { api in
            let quiz = try await QuizRoom.start(api)
            try await api.watchQuiz(quiz.runID, as: quiz.room.teacher) { view in
                let snapshot = try await view.next("snapshot")
                #expect(snapshot.list("students").map { $0["name"] as? String } == ["Cass Checkin"])
                #expect(snapshot.list("attempts").isEmpty)
                let attempt = try #require(try await quiz.attempt(api).int("attempt.id"))
                let started = try await view.next("event")
                #expect(started.string("kind") == "attempt_started")
                #expect(started.int("data.attemptId") == attempt)
                try await quiz.save(api, attempt: attempt, "q1", ["choice": 1], sequence: 1)
                let answered = try await view.next("event")
                #expect(answered.string("kind") == "answered")
                #expect(answered.int("data.answered") == 1)
                // Changing an answer changes no count: no event.
                try await quiz.save(api, attempt: attempt, "q1", ["choice": 2], sequence: 2)
                _ = try await api.call(
                    .post, "/api/v1/quiz-attempts/\(attempt)/flags", as: quiz.room.student,
                    json: ["flags": [["kind": "offline", "occurredAt": ISO8601DateFormatter().string(from: Date())]]])
                let flagged = try await view.next("event")
                #expect(flagged.string("kind") == "flagged")
                #expect(flagged.string("data.kind") == "offline")
                #expect(flagged.string("data.name") == "Cass Checkin")
                _ = try await api.call(.post, "/api/v1/quiz-attempts/\(attempt)/submit", as: quiz.room.student)
                let closed = try await view.next("event")
                #expect(closed.string("kind") == "attempt_closed")
                #expect(closed.string("data.ending") == "submitted")
            }
            // A dashboard that resumes gets what it missed, once.
            let events = try await api.rows("SELECT id, kind FROM quiz_events ORDER BY id")
            #expect(events.map { $0["kind"] } == ["attempt_started", "answered", "flagged", "attempt_closed"])
            let second = Int64(events[1]["id"]!!)!
            try await api.watchQuiz(quiz.runID, as: quiz.room.teacher, after: second) { view in
                let flagged = try await view.next("event")
                #expect(flagged.string("kind") == "flagged")
                let closed = try await view.next("event")
                #expect(closed.string("kind") == "attempt_closed")
            }
        }
    }

    @Test func a_students_quiz_data_is_in_their_download_and_its_evidence_goes_with_the_account() async throws {
        try await withServer { api in
            let quiz = try await QuizRoom.start(api)
            let attempt = try #require(try await quiz.attempt(api, device: "phone-of-cass").int("attempt.id"))
            try await quiz.save(api, attempt: attempt, "q3", ["text": "My own words"], sequence: 1)
            _ = try await api.call(
                .post, "/api/v1/quiz-attempts/\(attempt)/flags", as: quiz.room.student,
                json: ["flags": [["kind": "left_page", "occurredAt": "2026-01-01T09:00:00Z"]]])
            let data = try await api.call(.get, "/api/v1/me/data", as: quiz.room.student)
            #expect(data.list("data.quizAnswers").first?["answer"] as? String == #"{"text":"My own words"}"#)
            #expect(data.list("data.quizFlags").first?["kind"] as? String == "left_page")

            let deleted = try await api.call(.delete, "/api/v1/me", as: quiz.room.student)
            #expect(deleted.status == .noContent, "\(deleted.text)")
            #expect(try await api.rows("SELECT id FROM quiz_flags").isEmpty)
            #expect(try await api.rows("SELECT device_id FROM quiz_attempts").first?["device_id"] == .some(nil))
            // The answers stay with the anonymous account, as attendance does.
            #expect(try await api.rows("SELECT question_id FROM quiz_answers").count == 1)
        }
    }

    @Test func bad_input_is_refused_and_changes_nothing() async throws {
        try await withServer { api in
            let quiz = try await QuizRoom.start(api)
            let teacher = quiz.room.teacher
            let student = quiz.room.student
            let attempt = try #require(try await quiz.attempt(api).int("attempt.id"))
            let answers = "/api/v1/quiz-attempts/\(attempt)/answers"
            try await quiz.save(api, attempt: attempt, "q1", ["choice": 1], sequence: 3)

            // Answers.
            try await api.expectRefused(
                .put, "\(answers)/q9", as: student, json: ["sequence": 4, "answer": ["choice": 1]],
                status: .notFound, code: "unknown_question")
            try await api.expectRefused(
                .put, "\(answers)/q4", as: student, json: ["sequence": 4, "answer": ["text": "46"]],
                status: .badRequest, code: "wrong_answer_type")
            try await api.expectRefused(
                .put, "\(answers)/q1", as: student, json: ["sequence": 4, "answer": ["choices": [1]]],
                status: .badRequest, code: "wrong_answer_type")
            try await api.expectRefused(
                .put, "\(answers)/q1", as: student, json: ["sequence": 4, "answer": ["choice": 7]],
                status: .badRequest, code: "no_such_option")
            try await api.expectRefused(
                .put, "\(answers)/q3", as: student,
                json: ["sequence": 4, "answer": ["text": String(repeating: "a", count: 5001)]],
                status: .badRequest, code: "invalid_answer")
            try await api.expectRefused(
                .put, "\(answers)/q1", as: student, json: ["sequence": 2, "answer": ["choice": 0]],
                status: .conflict, code: "stale_sequence")
            try await api.expectRefused(
                .put, "\(answers)/q1", as: student, json: ["sequence": 0, "answer": ["choice": 0]],
                status: .badRequest, code: "invalid_sequence")
            try await api.expectRefused(
                .put, "\(answers)/q1", as: student, json: ["answer": ["choice": 0]], status: .badRequest,
                code: "missing_field")
            try await api.expectRefused(
                .put, "\(answers)/q1", as: student, json: ["sequence": 5, "answer": ["choice": "one"]],
                status: .badRequest, code: "wrong_type")
            // Another student's attempt.
            let other = try await quiz.room.enrol(api, "Otto Other")
            try await api.expectRefused(
                .put, "\(answers)/q1", as: other, json: ["sequence": 9, "answer": ["choice": 0]],
                status: .forbidden, code: "forbidden")
            try await api.expectRefused(
                .put, "/api/v1/quiz-attempts/999/answers/q1", as: student,
                json: ["sequence": 9, "answer": ["choice": 0]], status: .notFound, code: "attempt_not_found")

            // Flags.
            let flags = "/api/v1/quiz-attempts/\(attempt)/flags"
            let now = ISO8601DateFormatter().string(from: Date())
            try await api.expectRefused(
                .post, flags, as: student, json: ["flags": [["kind": "took_photo", "occurredAt": now]]],
                status: .badRequest, code: "unknown_flag_kind")
            try await api.expectRefused(
                .post, flags, as: student, json: ["flags": []], status: .badRequest, code: "invalid_flags")
            try await api.expectRefused(
                .post, flags, as: student,
                json: ["flags": [["kind": "returned", "occurredAt": now, "secondsAway": -4]]],
                status: .badRequest, code: "invalid_seconds_away")
            try await api.expectRefused(
                .post, flags, as: student, json: ["flags": [["kind": "offline", "occurredAt": "yesterday"]]],
                status: .badRequest, code: "wrong_type")
            try await api.expectRefused(
                .post, flags, as: student,
                json: ["flags": [["kind": "pasted", "occurredAt": now, "characters": 999_999]]],
                status: .badRequest, code: "invalid_characters")

            // Quizzes.
            var broken = quizBody
            broken["questions"] = []
            try await api.expectRefused(
                .post, "/api/v1/courses/\(quiz.room.courseID)/quizzes", as: teacher, json: broken,
                status: .badRequest, code: "invalid_questions")
            broken = quizBody
            broken["timeLimitSeconds"] = 5
            try await api.expectRefused(
                .put, "/api/v1/quizzes/\(quiz.quizID)", as: teacher, json: broken, status: .badRequest,
                code: "invalid_time_limit_seconds")
            var wrongKind = quizBody
            wrongKind["questions"] = [["id": "q1", "kind": "essay", "prompt": "Why?", "points": 1]]
            try await api.expectRefused(
                .post, "/api/v1/courses/\(quiz.room.courseID)/quizzes", as: teacher, json: wrongKind,
                status: .badRequest, code: "wrong_type")

            // Runs.
            try await api.expectRefused(
                .post, "/api/v1/sessions/\(quiz.room.sessionID)/quiz-runs", as: teacher,
                json: ["quizId": quiz.quizID], status: .conflict, code: "quiz_already_running")
            try await api.expectRefused(
                .post, "/api/v1/sessions/\(quiz.room.sessionID)/quiz-runs", as: teacher, json: ["quizId": 999],
                status: .notFound, code: "quiz_not_found")
            try await api.expectRefused(
                .post, "/api/v1/quiz-runs/\(quiz.runID)/admissions", as: teacher, json: ["studentId": 999],
                status: .notFound, code: "student_not_found")
            try await api.expectRefused(
                .post, "/api/v1/quiz-attempts/\(attempt)/added-time", as: teacher, json: ["seconds": 0],
                status: .badRequest, code: "invalid_seconds")
            try await api.expectRefused(
                .put, "/api/v1/quiz-attempts/\(attempt)/marks/q3", as: teacher, json: ["points": 5],
                status: .badRequest, code: "invalid_points")
            try await api.expectRefused(
                .put, "/api/v1/quiz-attempts/\(attempt)/marks/q8", as: teacher, json: ["points": 1],
                status: .notFound, code: "unknown_question")
            try await api.expectRefused(
                .post, "/api/v1/quiz-runs/\(quiz.runID)/attempts", as: student, json: ["deviceId": "has space"],
                status: .badRequest, code: "invalid_device_id")
            try await api.expectRefused(
                .get, "/api/v1/quiz-runs/\(quiz.runID)/live?after=x", as: teacher, status: .badRequest,
                code: "invalid_after")

            // A closed session starts no quiz.
            let closedSession = try await api.pastSession(quiz.room, title: "Yesterday")
            try await api.expectRefused(
                .post, "/api/v1/sessions/\(closedSession)/quiz-runs", as: teacher, json: ["quizId": quiz.quizID],
                status: .conflict, code: "session_not_open")

            // A student who has left the course saves nothing more: `a_known_attempts_save_is_verified_as_it_is_
            // written`, on both engines.
        }
    }
}
