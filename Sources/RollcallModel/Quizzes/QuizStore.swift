import Foundation
import NIOConcurrencyHelpers
import RollcallCore
import RollcallStorage
import SQLKit

/// A course's quiz, as its teacher defined it.
package struct Quiz: Sendable, Equatable {
    package var id: Int64
    package var courseId: Int64
    package var definition: QuizDefinition
    package var archivedAt: Date?
    package var createdAt: Date
    package var updatedAt: Date
}

/// Why a quiz change or an attempt is refused; `ErrorMapping` gives each its code and sentence.
package enum QuizRefusal: Error, Equatable {
    /// The student has not checked in to the session the quiz runs in, and was not let in by hand.
    case notCheckedIn
    /// The teacher stopped this quiz.
    case runStopped
    /// The attempt has ended (submitted, time limit, ended by the teacher).
    case attemptClosed(AttemptEnding)
    /// A save arrived after the attempt's deadline.
    case timeLimitPassed
    /// A save older than the one stored for this question.
    case staleSequence(current: Int64)
    /// This quiz is running in this session already.
    case alreadyRunning
    /// Quizzes start only in an open session.
    case sessionNotOpen
    /// An archived quiz is kept for its results; it cannot be edited or started.
    case archived
    /// The student already has an attempt, or is already admitted.
    case alreadyAdmitted
    /// An answer that does not fit its question.
    case answer(AnswerRefusal)
}

/// Quizzes as their teachers write them; their runs, attempts and marks are stores of their own, reached from here.
package struct QuizStore: Sendable {
    package let database: Database

    package init(database: Database) {
        self.database = database
    }

    package struct QuizRow: Decodable {
        package var id: Int64
        package var courseId: Int64
        package var definition: String
        package var archivedAt: Date?
        package var createdAt: Date
        package var updatedAt: Date

        package func quiz() throws -> Quiz {
            Quiz(
                id: id, courseId: courseId, definition: try QuizJSON.decode(definition), archivedAt: archivedAt,
                createdAt: createdAt, updatedAt: updatedAt)
        }
    }

    // MARK: Quizzes

    package func create(courseID: Int64, definition: QuizDefinition, now: Date = Date()) async throws -> Quiz {
        let text = try QuizJSON.encode(definition)
        let id = try await database.write { sql in
            try await sql.insert(into: "quizzes")
                .columns("course_id", "title", "definition", "created_at", "updated_at")
                .values(SQLBind(courseID), SQLBind(definition.title), SQLBind(text), SQLBind(now), SQLBind(now))
                .returning("id").first(decodingColumn: "id", as: Int64.self)
        }
        guard let id else { throw NotSaved(what: "quiz") }
        return Quiz(
            id: id, courseId: courseID, definition: definition, archivedAt: nil, createdAt: now, updatedAt: now)
    }

    package func find(id: Int64) async throws -> Quiz? {
        try await database.read { sql in
            try await sql.select().column("*").from("quizzes").where("id", .equal, id)
                .first(decoding: QuizRow.self, with: .rollcall)?.quiz()
        }
    }

    /// The course's quizzes, newest first; archived ones only when asked.
    package func list(courseID: Int64, archived: Bool = false) async throws -> [Quiz] {
        try await database.read { sql in
            var query = sql.select().column("*").from("quizzes").where("course_id", .equal, courseID)
            if !archived { query = query.where("archived_at", .is, SQLLiteral.null) }
            return try await query.orderBy("id", .descending).all(decoding: QuizRow.self, with: .rollcall)
                .map { try $0.quiz() }
        }
    }

    package func update(_ quiz: Quiz, definition: QuizDefinition, now: Date = Date()) async throws -> Quiz {
        guard quiz.archivedAt == nil else { throw QuizRefusal.archived }
        let text = try QuizJSON.encode(definition)
        try await database.write { sql in
            try await sql.update("quizzes").set("title", to: definition.title).set("definition", to: text)
                .set("updated_at", to: now).where("id", .equal, quiz.id).run()
        }
        var updated = quiz
        updated.definition = definition
        updated.updatedAt = now
        return updated
    }

    /// Deletes a quiz nobody has answered; one with attempts is archived instead, so its results stay.
    /// Answers whether it was deleted (`false`: archived).
    package func delete(_ quiz: Quiz, now: Date = Date()) async throws -> Bool {
        try await database.transaction { sql in
            // The quiz's runs held before counting: an attempt starting now either waits and finds its run gone, or
            // is counted here and keeps the quiz (archived).
            try await QuizRuns.hold(where: "quiz_id = \(bind: quiz.id)", in: sql)
            let answered = try await sql.raw(
                """
                SELECT quiz_attempts.id FROM quiz_attempts JOIN quiz_runs ON quiz_runs.id = quiz_attempts.run_id
                WHERE quiz_runs.quiz_id = \(bind: quiz.id) LIMIT 1
                """
            ).first()
            if answered == nil {
                try await sql.delete(from: "quizzes").where("id", .equal, quiz.id).run()
                return true
            }
            try await sql.update("quizzes").set("archived_at", to: now).where("id", .equal, quiz.id).run()
            return false
        }
    }

    /// The quiz's runs in sessions.
    package var runs: QuizRuns { QuizRuns(database: database) }
    /// The students' attempts and answers.
    package var attempts: QuizAttempts { QuizAttempts(database: database) }
    /// Integrity flags, hand marks and the gradebook's results.
    package var marks: QuizMarks { QuizMarks(database: database) }
}
