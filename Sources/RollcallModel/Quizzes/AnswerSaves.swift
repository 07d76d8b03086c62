import Foundation
import RollcallCore
import RollcallStorage
import SQLKit

extension Database {
    /// This process's writer of quiz answers (`AnswerSaves`).
    package var answerSaves: AnswerSaves { companion(AnswerSaves.self) { AnswerSaves(database: $0) } }
}

/// Writes quiz answers in groups (`StatementGroups`), a transaction per group. A quiz's autosaves are most of a morning's
/// requests; each in a transaction of its own, every save waited for its own flush of the log.
package struct AnswerSaves: Sendable {
    /// One answer to save.
    package struct Save: Sendable {
        package var attemptID: Int64
        package var questionID: String
        package var answer: QuizAnswer
        /// The answer as stored.
        package var text: String
        package var sequence: Int64
        package var now: Date
    }

    private let groups: StatementGroups<Save, QuizAttempts.SaveOutcome>
    /// Saves per transaction: enough for a hall's autosaves in one flush, and a short hold on their attempts.
    static let largestGroup = 200

    init(database: Database) {
        groups = StatementGroups(largest: Self.largestGroup) { group in await Self.write(group, database: database) }
    }

    /// Saves one answer under the sequence rule (`QuizAttempts.save`).
    package func save(_ save: Save) async throws -> QuizAttempts.SaveOutcome {
        try await groups.submit(save)
    }

    /// One transaction for the group. A save refused by the rules fails alone; a failure of the database fails the
    /// transaction, and then each save is written alone, so that one bad save fails only itself. Not when the database
    /// is out of reach: each save alone would wait for a connection in turn, and hold the saves queued behind them.
    static func write(_ group: [Save], database: Database) async -> [Result<
        QuizAttempts.SaveOutcome, any Error
    >] {
        do {
            return try await database.transaction { sql in try await apply(group, in: sql) }
        } catch  where group.count > 1 && !(error is DatabaseUnavailable) {
            var results: [Result<QuizAttempts.SaveOutcome, any Error>] = []
            for save in group { results += await write([save], database: database) }
            return results
        } catch {
            return group.map { _ in .failure(error) }
        }
    }

    /// The group's attempts are locked first, in one statement and in the order of their ids, so that two
    /// processes' groups never wait for each other's rows in turn.
    private static func apply(_ group: [Save], in sql: Transaction) async throws
        -> [Result<QuizAttempts.SaveOutcome, any Error>]
    {
        let ids = Array(Set(group.map(\.attemptID))).sorted()
        var attempts: [Int64: QuizAttempt] = [:]
        for attempt in try await QuizAttempts.select(
            sql, where: "quiz_attempts.id IN (\(binds: ids)) ORDER BY quiz_attempts.id", locking: true)
        {
            attempts[attempt.id] = attempt
        }
        var results: [Result<QuizAttempts.SaveOutcome, any Error>] = []
        for save in group {
            do {
                guard let attempt = attempts[save.attemptID] else { throw NotStored(.attemptNotFound, what: "attempt") }
                let outcome = try await apply(save, to: attempt, in: sql)
                attempts[save.attemptID]?.answered = outcome.answered
                results.append(.success(outcome))
            } catch let refusal as QuizRefusal {
                results.append(.failure(refusal))
            } catch let missing as NotStored {
                results.append(.failure(missing))
            }
        }
        return results
    }

    /// A newer save replaces the stored one, the same one again is acknowledged, an older one is refused. A refusal
    /// comes before anything is written.
    private static func apply(_ save: Save, to attempt: QuizAttempt, in sql: Transaction) async throws
        -> QuizAttempts.SaveOutcome
    {
        let stored = try await sql.select().columns("sequence", "answer", "saved_at").from("quiz_answers")
            .where("attempt_id", .equal, save.attemptID).where("question_id", .equal, save.questionID)
            .first(decoding: QuizAttempts.StoredAnswerRow.self, with: .rollcall)
        switch AttemptRules.sequenceDecision(save.sequence, stored: stored?.sequence) {
        case .stale(let current): throw QuizRefusal.staleSequence(current: current)
        case .repeated:
            return .init(
                changed: false, sequence: save.sequence, savedAt: stored?.savedAt ?? save.now,
                answered: attempt.answered)
        case .apply: break
        }
        try QuizAttempts.requireOpen(attempt, now: save.now)
        if stored == nil {
            try await sql.insert(into: "quiz_answers")
                .columns("attempt_id", "question_id", "answer", "sequence", "saved_at")
                .values(
                    SQLBind(save.attemptID), SQLBind(save.questionID), SQLBind(save.text), SQLBind(save.sequence),
                    SQLBind(save.now)
                )
                .run()
        } else {
            try await sql.update("quiz_answers").set("answer", to: save.text).set("sequence", to: save.sequence)
                .set("saved_at", to: save.now).where("attempt_id", .equal, save.attemptID)
                .where("question_id", .equal, save.questionID).run()
        }
        let wasAnswered = try stored.map { !(try QuizJSON.decode($0.answer, as: QuizAnswer.self)).isBlank } ?? false
        let change = (save.answer.isBlank ? 0 : 1) - (wasAnswered ? 1 : 0)
        var answered = attempt.answered
        if change != 0 {
            answered += change
            try await sql.update("quiz_attempts").set("answered", to: answered).where("id", .equal, save.attemptID)
                .run()
            var event = QuizAttempts.AttemptEvent(attempt)
            event.answered = answered
            try await QuizEvents.append(
                [QuizChange(kind: .answered, payload: event)], runID: attempt.runId, at: save.now, in: sql)
        }
        return .init(changed: true, sequence: save.sequence, savedAt: save.now, answered: answered)
    }
}
