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
        /// The student the attempt must be of, enrolled in its course, when the request's access was not read
        /// beforehand (`QuizAttempts.known`); `nil` once it was.
        package var verifying: Int64? = nil
    }

    /// A save whose attempt is not `verifying`'s, or whose student is no longer enrolled: nothing was written, and
    /// the request's access is read as it is for a save not yet verified, which says why.
    package struct Unverified: Error {}

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

    /// One transaction for the group, unless it is one save that `replacing` writes alone. A save refused by the rules
    /// fails alone; a failure of the database fails the transaction, and then each save is written alone, so that one
    /// bad save fails only itself. Not when the database is out of reach: each save alone would wait for a connection
    /// in turn, and hold the saves queued behind them.
    static func write(_ group: [Save], database: Database) async -> [Result<
        QuizAttempts.SaveOutcome, any Error
    >] {
        if group.count == 1 && database.engine == .postgres {
            do {
                if let replaced = try await replacing(group[0], database: database) { return [.success(replaced)] }
            } catch {
                return [.failure(error)]
            }
        }
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

    /// A save alone in its group that replaces a stored answer with a newer one, and leaves it answered or blank as
    /// it was, in one statement on PostgreSQL: most autosaves of a class at its own pace are that, where a group's
    /// transaction is five round trips. The attempt is held shared, so that it is read as it is once any change of it
    /// (an ending, another process's save) has committed; the answer's row is checked as it is when updated, so that a
    /// newer save committed meanwhile wins. `nil` when the save is another (a first answer, one that moves the count,
    /// a stale or repeated sequence, a closed attempt, a deadline within a millisecond, a stored answer whose
    /// `answered` was not kept for its sequence): nothing was written, and the group's transaction decides it as it
    /// decides every save.
    static func replacing(_ save: Save, database: Database) async throws -> QuizAttempts.SaveOutcome? {
        // A millisecond's margin leaves the deadline's edge to `QuizAttempts.requireOpen`, whatever the rounding.
        let accepted = save.now.addingTimeInterval(0.001 - AttemptRules.transitGrace)
        let verified: SQLQueryString =
            save.verifying.map { student in
                "AND student_id = \(bind: student) AND \(QuizAttempts.enrolled)"
            } ?? ""
        let row = try await database.write { sql in
            try await sql.raw(
                """
                WITH attempt AS MATERIALIZED (
                  SELECT answered, deadline FROM quiz_attempts
                  WHERE id = \(bind: save.attemptID) AND closed_at IS NULL AND ending IS NULL
                    AND deadline >= \(bind: accepted) \(verified)
                  FOR SHARE)
                UPDATE quiz_answers SET answer = \(bind: save.text), sequence = \(bind: save.sequence),
                  saved_at = \(bind: save.now), answered_sequence = \(bind: save.sequence)
                FROM attempt
                WHERE quiz_answers.attempt_id = \(bind: save.attemptID)
                  AND quiz_answers.question_id = \(bind: save.questionID)
                  AND quiz_answers.sequence < \(bind: save.sequence)
                  AND quiz_answers.answered = \(bind: !save.answer.isBlank)
                  AND quiz_answers.answered_sequence = quiz_answers.sequence
                RETURNING attempt.answered, attempt.deadline
                """
            ).first()
        }
        guard let row else { return nil }
        return .init(
            changed: true, sequence: save.sequence, savedAt: save.now,
            answered: try row.decode(column: "answered", as: Int.self),
            deadline: try row.decode(column: "deadline", as: Date.self))
    }

    /// The group is read in two statements, decided in memory save by save, and written in a few whatever its size:
    /// its answers, the attempts whose count of answered questions moved, and their runs' events. On PostgreSQL every
    /// statement is a round trip, and a class's saves are most of a morning's requests.
    private static func apply(_ group: [Save], in sql: Transaction) async throws
        -> [Result<QuizAttempts.SaveOutcome, any Error>]
    {
        var state = try await GroupWrite.read(group, in: sql)
        var results: [Result<QuizAttempts.SaveOutcome, any Error>] = []
        for save in group {
            do {
                results.append(.success(try state.apply(save)))
            } catch let refusal as QuizRefusal {
                results.append(.failure(refusal))
            } catch let missing as NotStored {
                results.append(.failure(missing))
            } catch let unverified as AnswerSaves.Unverified {
                results.append(.failure(unverified))
            }
        }
        try await state.write(in: sql)
        return results
    }
}

/// A group's attempts and stored answers as its saves leave them, and what is to be written.
struct GroupWrite {
    struct Key: Hashable {
        var attemptID: Int64
        var questionID: String
    }
    var attempts: [Int64: QuizAttempt] = [:]
    var stored: [Key: QuizAttempts.AnswerRow] = [:]
    /// The answers to write, each once, as the group's last save of it left it.
    var written: [Key] = []
    /// The attempts whose count of answered questions moved, in the order they first moved.
    var moved: [Int64] = []
    var events: [(runID: Int64, change: QuizChange)] = []
    var latest: Date?
    /// The attempts whose students are enrolled in their courses, read only for a group with saves `verifying`.
    var enrolled: Set<Int64> = []

    /// The group's attempts, locked in the order of their ids so that two processes' groups never wait for each
    /// other's rows in turn, then the answers stored for any of its questions.
    static func read(_ group: [AnswerSaves.Save], in sql: Transaction) async throws -> GroupWrite {
        let ids = Array(Set(group.map(\.attemptID))).sorted()
        let questions = Array(Set(group.map(\.questionID))).sorted()
        var state = GroupWrite()
        for attempt in try await QuizAttempts.select(
            sql, where: "quiz_attempts.id IN (\(binds: ids)) ORDER BY quiz_attempts.id", locking: true)
        {
            state.attempts[attempt.id] = attempt
        }
        // Read once the locks are held, in a statement of its own: a statement sees what was committed when it began,
        // so answers read beside the lock could miss a save another process committed while this one waited for it.
        for row in try await sql.select()
            .columns("attempt_id", "question_id", "answer", "sequence", "saved_at", "answered", "answered_sequence")
            .from("quiz_answers").where("attempt_id", .in, ids).where("question_id", .in, questions)
            .all().map(QuizAttempts.AnswerRow.init)
        {
            state.stored[Key(attemptID: row.attemptId, questionID: row.questionId)] = row
        }
        let verifying = Array(Set(group.filter { $0.verifying != nil }.map(\.attemptID))).sorted()
        if !verifying.isEmpty {
            state.enrolled = Set(
                try await sql.raw(
                    """
                    SELECT id FROM quiz_attempts WHERE id IN (\(binds: verifying)) AND \(QuizAttempts.enrolled)
                    """
                ).all(decodingColumn: "id", as: Int64.self))
        }
        return state
    }

    /// A newer save replaces the stored one, the same one again is acknowledged, an older one is refused. A refusal
    /// leaves the state as it was.
    mutating func apply(_ save: AnswerSaves.Save) throws -> QuizAttempts.SaveOutcome {
        guard let attempt = attempts[save.attemptID] else { throw NotStored(.attemptNotFound, what: "attempt") }
        if let student = save.verifying, attempt.studentId != student || !enrolled.contains(attempt.id) {
            throw AnswerSaves.Unverified()
        }
        let key = Key(attemptID: save.attemptID, questionID: save.questionID)
        let stored = stored[key]
        switch AttemptRules.sequenceDecision(save.sequence, stored: stored?.sequence) {
        case .stale(let current): throw QuizRefusal.staleSequence(current: current)
        case .repeated:
            return .init(
                changed: false, sequence: save.sequence, savedAt: stored?.savedAt ?? save.now,
                answered: attempt.answered, deadline: attempt.deadline)
        case .apply: break
        }
        try QuizAttempts.requireOpen(attempt, now: save.now)
        let wasAnswered =
            try stored.map { row in
                if let answered = row.knownAnswered { return answered }
                return !(try QuizJSON.decode(row.answer, as: QuizAnswer.self)).isBlank
            } ?? false
        self.stored[key] = .init(
            attemptId: save.attemptID, questionId: save.questionID, answer: save.text, sequence: save.sequence,
            savedAt: save.now, answered: !save.answer.isBlank, answeredSequence: save.sequence)
        if !written.contains(key) { written.append(key) }
        var answered = attempt.answered
        let change = (save.answer.isBlank ? 0 : 1) - (wasAnswered ? 1 : 0)
        if change != 0 {
            answered += change
            attempts[save.attemptID]?.answered = answered
            if !moved.contains(save.attemptID) { moved.append(save.attemptID) }
            var event = QuizAttempts.AttemptEvent(attempt)
            event.answered = answered
            events.append((attempt.runId, QuizChange(kind: .answered, payload: event)))
            latest = max(latest ?? save.now, save.now)
        }
        return .init(
            changed: true, sequence: save.sequence, savedAt: save.now, answered: answered, deadline: attempt.deadline)
    }

    /// The answers in one upsert, the moved counts in one update, the events in the runs' log.
    func write(in sql: Transaction) async throws {
        guard !written.isEmpty else { return }
        var insert = sql.insert(into: "quiz_answers")
            .columns("attempt_id", "question_id", "answer", "sequence", "saved_at", "answered", "answered_sequence")
        for answer in written.compactMap({ stored[$0] }) {
            insert = insert.values(
                SQLBind(answer.attemptId), SQLBind(answer.questionId), SQLBind(answer.answer),
                SQLBind(answer.sequence), SQLBind(answer.savedAt), SQLBind(answer.answered),
                SQLBind(answer.answeredSequence))
        }
        try await insert.onConflict(with: ["attempt_id", "question_id"]) { conflict in
            conflict.set(excludedValueOf: "answer").set(excludedValueOf: "sequence").set(excludedValueOf: "saved_at")
                .set(excludedValueOf: "answered").set(excludedValueOf: "answered_sequence")
        }.run()
        guard !moved.isEmpty else { return }
        let cases = moved.map { id in "WHEN \(bind: id) THEN \(bind: attempts[id]?.answered ?? 0)" as SQLQueryString }
        try await sql.raw(
            """
            UPDATE quiz_attempts SET answered = CASE id \(SQLList(cases, separator: SQLRaw(" "))) END
            WHERE id IN (\(binds: moved))
            """
        ).run()
        try await QuizEvents.append(events, at: latest ?? Date(), in: sql)
    }
}
