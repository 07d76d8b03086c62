import Foundation
import Logging
import RollcallStorage
import SQLKit
import ServerTestSupport
import Testing

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
}
