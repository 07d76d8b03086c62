import Foundation
import Logging
import RollcallCore
import RollcallStorage
import SQLKit
import ServerTestSupport
import Testing

@testable import RollcallModel
@testable import RollcallServer

/// A hall's autosaves arriving together: written in groups, each save still answered by its own rule.
@Suite("Answer saves in groups", .timeLimit(.minutes(5)))
struct AnswerSavesTests {
    @Test(arguments: [Database.Engine.sqlite, .postgres])
    func a_hall_saving_at_once_is_answered_save_by_save(engine: Database.Engine) async throws {
        let postgres = engine == .postgres ? try PostgresServer.start() : nil
        defer { postgres?.stop() }
        try await withServer(databaseURL: postgres?.url) { api in
            let quiz = try await QuizRoom.start(api)
            var students = [quiz.room.student]
            for number in 1..<40 {
                let student = try await quiz.room.enrol(api, "Student \(number)")
                #expect(try await quiz.room.checkIn(api, student).status == .created)
                students.append(student)
            }
            var attempts: [Int64] = []
            for student in students {
                let started = try await quiz.attempt(api, as: student, device: "phone-\(student.id)")
                attempts.append(try #require(started.int("attempt.id"), "\(started.text)"))
            }
            // The first student's answer is at sequence 5 already, so their 3 is stale; the last one has submitted.
            #expect(try await quiz.save(api, attempt: attempts[0], "q1", ["choice": 2], sequence: 5).status == .ok)
            let submitted = try await api.call(
                .post, "/api/v1/quiz-attempts/\(attempts[39])/submit", as: students[39])
            #expect(submitted.status == .ok, "\(submitted.text)")

            let (hall, started) = (students, attempts)
            // Each saves one answer, and all but those two a second one beside it: an attempt may have two saves
            // in one group.
            let (replies, seconds) = try await withThrowingTaskGroup(of: (Int, Reply, Bool).self) { group in
                for (index, student) in hall.enumerated() {
                    group.addTask {
                        let reply = try await quiz.save(
                            api, attempt: started[index], "q1", ["choice": 1], sequence: 3, as: student)
                        return (index, reply, false)
                    }
                    guard (1..<39).contains(index) else { continue }
                    group.addTask {
                        let reply = try await quiz.save(
                            api, attempt: started[index], "q3", ["text": "osmosis"], sequence: 1, as: student)
                        return (index, reply, true)
                    }
                }
                return try await group.reduce(into: ([Int: Reply](), [Int: Reply]())) {
                    if $1.2 { $0.1[$1.0] = $1.1 } else { $0.0[$1.0] = $1.1 }
                }
            }
            #expect(replies[0]?.status == .conflict && replies[0]?.errorCode == "stale_sequence")
            #expect(replies[39]?.status == .conflict && replies[39]?.errorCode == "attempt_closed")
            for index in 1..<39 {
                let (first, second) = (try #require(replies[index]), try #require(seconds[index]))
                #expect(first.status == .ok && second.status == .ok, "\(first.text) \(second.text)")
                #expect(first.value("changed") as? Bool == true && second.value("changed") as? Bool == true)
                // Whichever was written second counts both.
                #expect(
                    Set([first.int("answered"), second.int("answered")]) == [1, 2], "\(first.text) \(second.text)")
            }

            // Stored: two answers each but the first student's (one, unchanged) and the last one's (none), and an
            // event per change.
            let database =
                try postgres.map { try Database.postgres(url: $0.url, logger: Logger(label: "test")) }
                ?? Database.sqlite(path: api.databasePath, logger: Logger(label: "test"))
            try await database.closing { database in
                try await database.read { sql in
                    let answers = try await sql.raw(
                        "SELECT answer, sequence FROM quiz_answers WHERE question_id = 'q1' ORDER BY attempt_id"
                    ).all()
                    #expect(answers.count == 39)
                    #expect(try answers[0].decode(column: "sequence", as: Int64.self) == 5)
                    #expect(try answers[0].decode(column: "answer", as: String.self) == #"{"choice":2}"#)
                    #expect(
                        try answers.dropFirst().allSatisfy { try $0.decode(column: "sequence", as: Int64.self) == 3 })
                    let texts = try await sql.raw("SELECT COUNT(*) AS n FROM quiz_answers WHERE question_id = 'q3'")
                        .first(decodingColumn: "n", as: Int.self)
                    #expect(texts == 38)
                    let answered = try await sql.raw("SELECT id, answered FROM quiz_attempts ORDER BY id").all()
                        .map { try $0.decode(column: "answered", as: Int.self) }
                    #expect(answered == [1] + Array(repeating: 2, count: 38) + [0])
                    let events = try await sql.raw("SELECT COUNT(*) AS n FROM quiz_events WHERE kind = 'answered'")
                        .first(decodingColumn: "n", as: Int.self)
                    #expect(events == 1 + 2 * 38)
                }
            }
        }
    }

    /// A group decides its saves in memory and writes each answer once: whatever it holds (the same answer saved
    /// twice, a retry, a stale save, an answer cleared, an attempt that does not exist), it must answer and store
    /// what the same saves would one at a time.
    @Test(arguments: [Database.Engine.sqlite, .postgres])
    func a_group_answers_and_stores_what_its_saves_would_one_at_a_time(engine: Database.Engine) async throws {
        let together = try await Self.outcome(of: engine, inGroups: false)
        let alone = try await Self.outcome(of: engine, inGroups: true)
        #expect(together.results == alone.results)
        #expect(together.stored == alone.stored)
        #expect(together.results.count == 9 && together.stored.count == 4 + 2 + 5)
    }

    /// What another process's transaction commits while it holds the attempt.
    enum Held: Sendable {
        /// A save of q1 at sequence 5.
        case newerAnswer
        /// The attempt's ending.
        case ending
    }

    /// On PostgreSQL a save waits for its attempt while another process's transaction holding it commits: it is
    /// decided against what that committed, not against what was stored when it began to wait. Two saves go through
    /// the group's transaction; one alone first tries `AnswerSaves.replacing`.
    @Test(arguments: [(Held.newerAnswer, Int64(4), 2), (.newerAnswer, 6, 1), (.ending, 6, 1)])
    func a_save_that_waited_for_its_attempt_is_decided_after_what_held_it(
        held: Held, sequence: Int64, saves: Int
    ) async throws {
        let postgres = try PostgresServer.start()
        defer { postgres.stop() }
        try await withServer(databaseURL: postgres.url) { api in
            let quiz = try await QuizRoom.start(api)
            let attempt = try #require(try await quiz.attempt(api).int("attempt.id"))
            #expect(try await quiz.save(api, attempt: attempt, "q1", ["choice": 0], sequence: 1).status == .ok)
            let (other, this) = (try api.database(), try api.database())
            let (holding, hold) = AsyncStream<Void>.makeStream()
            let (released, release) = AsyncStream<Void>.makeStream()
            async let committed: Void = other.transaction { sql in
                try await sql.raw("SELECT id FROM quiz_attempts WHERE id = \(bind: attempt) FOR UPDATE").run()
                switch held {
                case .newerAnswer:
                    try await sql.raw(
                        """
                        UPDATE quiz_answers SET sequence = 5, answer = '{"choice":2}', answered = TRUE,
                          answered_sequence = 5
                        WHERE attempt_id = \(bind: attempt) AND question_id = 'q1'
                        """
                    ).run()
                case .ending:
                    try await sql.raw("UPDATE quiz_attempts SET closed_at = \(bind: Date()), ending = 'submitted'")
                        .run()
                }
                hold.yield()
                for await _ in released { break }
            }
            for await _ in holding { break }
            let group = [
                AnswerSaves.Save(
                    attemptID: attempt, questionID: "q1", answer: .choice(1), text: #"{"choice":1}"#,
                    sequence: sequence, now: Date()),
                AnswerSaves.Save(
                    attemptID: attempt, questionID: "q3", answer: .text("osmosis"), text: #"{"text":"osmosis"}"#,
                    sequence: 1, now: Date()),
            ]
            async let results = AnswerSaves.write(Array(group.prefix(saves)), database: this)
            try await eventually("the save waiting for the attempt") {
                try await other.read { sql in
                    try await sql.raw("SELECT COUNT(*) AS n FROM pg_stat_activity WHERE wait_event_type = 'Lock'")
                        .first(decodingColumn: "n", as: Int.self)
                } != 0
            }
            release.yield()
            try await committed
            let answers = await results
            let stored = try await this.read { sql in
                try await sql.raw(
                    """
                    SELECT answer, sequence FROM quiz_answers WHERE attempt_id = \(bind: attempt) AND question_id = 'q1'
                    """
                ).first().map {
                    let answer = try $0.decode(column: "answer", as: String.self)
                    return "\(answer) \(try $0.decode(column: "sequence", as: Int64.self))"
                }
            }
            let outcome = answers.first.map { result in
                switch result {
                case .success(let saved): "saved \(saved.sequence), answered \(saved.answered)"
                case .failure(let error): "\(error)"
                }
            }
            switch (held, sequence) {
            case (.newerAnswer, 4):
                #expect(outcome == "\(QuizRefusal.staleSequence(current: 5))", "applied over the save it waited for")
                #expect(stored == #"{"choice":2} 5"#)
            case (.newerAnswer, _):
                #expect(outcome == "saved 6, answered 1")
                #expect(stored == #"{"choice":1} 6"#)
            case (.ending, _):
                #expect(outcome == "\(QuizRefusal.attemptClosed(.submitted))", "saved to an attempt that had ended")
                #expect(stored == #"{"choice":0} 1"#)
            }
            try await other.shutdown()
            try await this.shutdown()
        }
    }

    /// On PostgreSQL a save alone that replaces an answer with a newer one, answered as before, is one statement
    /// (`AnswerSaves.replacing`); every other save is left to the group's transaction, with nothing written.
    @Test func a_save_alone_replaces_its_answer_in_one_statement_only_when_nothing_else_moves() async throws {
        let postgres = try PostgresServer.start()
        defer { postgres.stop() }
        try await withServer(databaseURL: postgres.url) { api in
            let quiz = try await QuizRoom.start(api)
            let attempt = try #require(try await quiz.attempt(api).int("attempt.id"))
            let database = try api.database()
            try await database.closing { database in
                func save(_ question: String, _ answer: QuizAnswer, _ sequence: Int64) throws
                    -> AnswerSaves.Save
                {
                    .init(
                        attemptID: attempt, questionID: question, answer: answer, text: try QuizJSON.encode(answer),
                        sequence: sequence, now: Date())
                }
                func stored() async throws -> [String] {
                    try await database.read { sql in
                        try await sql.raw(
                            """
                            SELECT question_id, answer, sequence, answered, answered_sequence FROM quiz_answers
                            ORDER BY question_id
                            """
                        ).all().map {
                            "\(try $0.decode(column: "question_id", as: String.self)) "
                                + "\(try $0.decode(column: "answer", as: String.self)) "
                                + "\(try $0.decode(column: "sequence", as: Int64.self)) "
                                + "\(try $0.decode(column: "answered", as: Bool?.self).map { "\($0)" } ?? "-")@"
                                + (try $0.decode(column: "answered_sequence", as: Int64?.self).map { "\($0)" } ?? "-")
                        }
                    }
                }
                func update(_ statement: SQLQueryString) async throws {
                    try await database.write { sql in try await sql.raw(statement).run() }
                }
                // A first answer is the group's to write.
                #expect(try await AnswerSaves.replacing(try save("q1", .choice(0), 1), database: database) == nil)
                #expect(try await stored() == [])
                _ = await AnswerSaves.write([try save("q1", .choice(0), 1)], database: database)
                _ = await AnswerSaves.write([try save("q3", .text("osmosis"), 1)], database: database)
                let before = try await stored()
                #expect(before == [#"q1 {"choice":0} 1 true@1"#, #"q3 {"text":"osmosis"} 1 true@1"#])

                let replaced = try await AnswerSaves.replacing(try save("q1", .choice(2), 2), database: database)
                #expect(replaced?.changed == true && replaced?.sequence == 2 && replaced?.answered == 2)
                #expect(try await stored() == [#"q1 {"choice":2} 2 true@2"#, before[1]])

                let declined = [
                    ("the same save again", try save("q1", .choice(2), 2)),
                    ("a stale save", try save("q1", .choice(1), 1)),
                    ("a cleared text", try save("q3", .text("  "), 2)),
                ]
                for (what, save) in declined {
                    #expect(try await AnswerSaves.replacing(save, database: database) == nil, "\(what)")
                }
                // A process from before 043 clears q3, counting one answer less, and leaves the flag as it was: the
                // next save reads the answer rather than trust the flag, and counts it again.
                try await update(
                    """
                    UPDATE quiz_answers SET answer = '{"text":"  "}', sequence = 2 WHERE question_id = 'q3'
                    """)
                try await update("UPDATE quiz_attempts SET answered = 1")
                let diffusion = try save("q3", .text("diffusion"), 3)
                #expect(try await AnswerSaves.replacing(diffusion, database: database) == nil)
                let counted = await AnswerSaves.write([diffusion], database: database)
                #expect(try counted.first?.get().answered == 2)
                let unchanged = try await stored()
                #expect(unchanged == [#"q1 {"choice":2} 2 true@2"#, #"q3 {"text":"diffusion"} 3 true@3"#])
                let passed = Date().addingTimeInterval(-AttemptRules.transitGrace - 1)
                try await update("UPDATE quiz_attempts SET deadline = \(bind: passed)")
                #expect(
                    try await AnswerSaves.replacing(try save("q1", .choice(1), 3), database: database) == nil,
                    "past the deadline and its grace")
                try await update(
                    """
                    UPDATE quiz_attempts SET deadline = \(bind: Date().addingTimeInterval(3_600)),
                      closed_at = \(bind: Date()), ending = 'submitted'
                    """)
                #expect(try await AnswerSaves.replacing(try save("q1", .choice(1), 3), database: database) == nil)
                #expect(try await stored() == unchanged)
            }
        }
    }

    /// A save of an attempt its process has read goes without reading its access first, and is verified as it is
    /// written (`AnswerSaves.Save.verifying`): a student who has left the course saves nothing more, alone or in a
    /// group, on either engine; a save verifying another student is refused likewise.
    @Test(arguments: [Database.Engine.sqlite, .postgres])
    func a_known_attempts_save_is_verified_as_it_is_written(engine: Database.Engine) async throws {
        let postgres = engine == .postgres ? try PostgresServer.start() : nil
        defer { postgres?.stop() }
        try await withServer(databaseURL: postgres?.url) { api in
            let quiz = try await QuizRoom.start(api)
            let student = quiz.room.student
            let attempt = try #require(try await quiz.attempt(api).int("attempt.id"))
            let answers = "/api/v1/quiz-attempts/\(attempt)/answers"
            // Read with its access on the first save; verified in its statement on the second.
            #expect(try await quiz.save(api, attempt: attempt, "q1", ["choice": 0], sequence: 1).status == .ok)
            let replaced = try await quiz.save(api, attempt: attempt, "q1", ["choice": 2], sequence: 2)
            #expect(replaced.status == .ok && replaced.int("answered") == 1, "\(replaced.text)")
            let other = try await quiz.room.enrol(api, "Otto Other")
            try await api.expectRefused(
                .put, "\(answers)/q1", as: other, json: ["sequence": 3, "answer": ["choice": 1]],
                status: .forbidden, code: "forbidden")
            let left = try await api.call(.post, "/api/v1/courses/\(quiz.room.courseID)/leave", as: student)
            #expect(left.status.code < 300, "\(left.text)")
            try await api.expectRefused(
                .put, "\(answers)/q1", as: student, json: ["sequence": 3, "answer": ["choice": 1]],
                status: .forbidden, code: "forbidden")
            let database = try api.database()
            try await database.closing { database in
                func save(_ question: String, _ answer: QuizAnswer, _ sequence: Int64, verifying: Int64)
                    throws -> AnswerSaves.Save
                {
                    .init(
                        attemptID: attempt, questionID: question, answer: answer, text: try QuizJSON.encode(answer),
                        sequence: sequence, now: Date(), verifying: verifying)
                }
                let alone = [try save("q1", .choice(1), 4, verifying: student.id)]
                let group = [
                    try save("q1", .choice(1), 5, verifying: student.id),
                    try save("q3", .text("osmosis"), 1, verifying: other.id),
                ]
                for saves in [alone, group] {
                    for result in await AnswerSaves.write(saves, database: database) {
                        #expect(throws: AnswerSaves.Unverified.self) { try result.get() }
                    }
                }
                let stored = try await database.read { sql in
                    try await sql.raw("SELECT question_id, sequence FROM quiz_answers").all().map {
                        "\(try $0.decode(column: "question_id", as: String.self)) "
                            + "\(try $0.decode(column: "sequence", as: Int64.self))"
                    }
                }
                #expect(stored == ["q1 2"])
            }
        }
    }

    /// The saves' answers, then the answers, counts and events stored, each as text.
    private static func outcome(of engine: Database.Engine, inGroups alone: Bool) async throws -> (
        results: [String], stored: [String]
    ) {
        let postgres = engine == .postgres ? try PostgresServer.start() : nil
        defer { postgres?.stop() }
        nonisolated(unsafe) var outcome: (results: [String], stored: [String]) = ([], [])
        try await withServer(databaseURL: postgres?.url) { api in
            let quiz = try await QuizRoom.start(api)
            let other = try await quiz.room.enrol(api, "Other Student")
            #expect(try await quiz.room.checkIn(api, other).status == .created)
            let a = try #require(try await quiz.attempt(api).int("attempt.id"))
            let b = try #require(try await quiz.attempt(api, as: other, device: "phone-b").int("attempt.id"))
            let start = Date()
            func save(_ attempt: Int64, _ question: String, _ answer: QuizAnswer, _ sequence: Int64) throws
                -> AnswerSaves.Save
            {
                AnswerSaves.Save(
                    attemptID: attempt, questionID: question, answer: answer, text: try QuizJSON.encode(answer),
                    sequence: sequence, now: start.addingTimeInterval(Double(sequence)))
            }
            let saves: [AnswerSaves.Save] = [
                try save(a, "q1", .choice(1), 1), try save(a, "q1", .choice(2), 2), try save(a, "q1", .choice(2), 2),
                try save(a, "q1", .choice(0), 1), try save(b, "q3", .text("osmosis"), 1),
                try save(b, "q3", .text("  "), 2),
                try save(999_999, "q1", .choice(1), 1), try save(b, "q2", .choices([0]), 3),
                try save(a, "q4", .number(46), 4),
            ]
            let database = try api.database()
            try await database.closing { database in
                var results: [Result<QuizAttempts.SaveOutcome, any Error>] = []
                for group in alone ? saves.map({ [$0] }) : [saves] {
                    results += await AnswerSaves.write(group, database: database)
                }
                // Each run has its own clock: times are told from its start.
                outcome.results = results.map { result in
                    guard case .success(let saved) = result else { return "\(result)" }
                    let after = saved.savedAt.timeIntervalSince(start).rounded()
                    return "changed \(saved.changed), \(saved.sequence) at +\(after) s, answered \(saved.answered)"
                }
                outcome.stored = try await database.read { sql in
                    let answers = try await sql.raw(
                        """
                        SELECT attempt_id, question_id, answer, sequence, answered FROM quiz_answers
                        ORDER BY attempt_id, question_id
                        """
                    ).all().map {
                        "\(try $0.decode(column: "question_id", as: String.self)) "
                            + "\(try $0.decode(column: "answer", as: String.self)) "
                            + "\(try $0.decode(column: "sequence", as: Int64.self)) "
                            + "\(try $0.decode(column: "answered", as: Bool.self))"
                    }
                    let counts = try await sql.raw("SELECT answered FROM quiz_attempts ORDER BY id").all()
                        .map { "answered \(try $0.decode(column: "answered", as: Int.self))" }
                    let events = try await sql.raw(
                        "SELECT payload FROM quiz_events WHERE kind = 'answered' ORDER BY id"
                    ).all().map { row in
                        let event = try JSONDecoder().decode(
                            AnsweredEvent.self, from: Data(try row.decode(column: "payload", as: String.self).utf8))
                        return "event: attempt \(event.attemptId) answered \(event.answered)"
                    }
                    return answers + counts + events
                }
            }
        }
        return outcome
    }

    private struct AnsweredEvent: Decodable {
        var attemptId: Int64
        var answered: Int
    }
}
