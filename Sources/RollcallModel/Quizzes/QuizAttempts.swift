import Foundation
import RollcallCore
import RollcallStorage
import RollcallWords
import SQLKit

/// The students' attempts at a run: starting, saving answers, closing on time, adding time.
package struct QuizAttempts: Sendable {
    package let database: Database

    /// An attempt's row, read column by column: every save reads its attempt, and Codable's key conversion cost more
    /// than the query.
    package struct AttemptRow {
        package var id: Int64
        package var runId: Int64
        package var studentId: Int64
        package var studentName: String
        package var seed: Int64
        package var deviceId: String?
        package var startedAt: Date
        package var addedSeconds: Int
        package var deadline: Date
        package var closedAt: Date?
        package var ending: String?
        package var answered: Int

        package init(_ row: any SQLRow) throws {
            id = try row.decode(column: "id", as: Int64.self)
            runId = try row.decode(column: "run_id", as: Int64.self)
            studentId = try row.decode(column: "student_id", as: Int64.self)
            studentName = try row.decode(column: "student_name", as: String.self)
            seed = try row.decode(column: "seed", as: Int64.self)
            deviceId = try row.decodeIfPresent(column: "device_id", as: String.self)
            startedAt = try row.decode(column: "started_at", as: Date.self)
            addedSeconds = try row.decode(column: "added_seconds", as: Int.self)
            deadline = try row.decode(column: "deadline", as: Date.self)
            closedAt = try row.decodeIfPresent(column: "closed_at", as: Date.self)
            ending = try row.decodeIfPresent(column: "ending", as: String.self)
            answered = try row.decode(column: "answered", as: Int.self)
        }

        package var attempt: QuizAttempt {
            QuizAttempt(
                id: id, runId: runId, studentId: studentId, studentName: studentName,
                seed: UInt64(bitPattern: seed), deviceId: deviceId, startedAt: startedAt, addedSeconds: addedSeconds,
                deadline: deadline, closedAt: closedAt, ending: ending.flatMap(AttemptEnding.init(rawValue:)),
                answered: answered)
        }
    }

    /// The attempts `condition` finds, by their students' names; locked (`locking`), in the order `condition` says:
    /// a locked read decides rather than lists, and a group of saves locks its attempts in the order of their ids.
    package static func select(_ sql: any SQLDatabase, where condition: SQLQueryString, locking: Bool = false)
        async throws -> [QuizAttempt]
    {
        // SQLite's one writer needs no lock; on PostgreSQL the attempts' rows, not their students'.
        let lock = locking && sql.dialect.name == "postgresql" ? " FOR UPDATE OF quiz_attempts" : ""
        let attempts = try await sql.raw(
            """
            SELECT \(unsafeRaw: columns)
            FROM quiz_attempts JOIN users ON users.id = quiz_attempts.student_id
            WHERE \(condition)\(unsafeRaw: lock)
            """
        ).all().map { try AttemptRow($0).attempt }
        guard !locking else { return attempts }
        // A list is never in the database's order; a reader's own order is `list(runID:in:)`'s.
        return Collation.english.sorted(attempts, name: \.studentName, id: \.id)
    }

    /// An attempt's columns, as `AttemptRow` reads them.
    private static let columns = """
        quiz_attempts.id, quiz_attempts.run_id, quiz_attempts.student_id, users.name AS student_name,
          quiz_attempts.seed, quiz_attempts.device_id, quiz_attempts.started_at, quiz_attempts.added_seconds,
          quiz_attempts.deadline, quiz_attempts.closed_at, quiz_attempts.ending, quiz_attempts.answered
        """

    /// The attempt, and whether its student is enrolled in its quiz's course, in one statement: what a save, the
    /// busiest request of a quiz, needs to know before it is let through. One found past its deadline is closed
    /// first, as `find` does.
    package func findWithEnrolment(id: Int64, now: Date = Date()) async throws -> (QuizAttempt, enrolled: Bool)? {
        let read = { @Sendable in
            try await database.read { sql in
                try await sql.raw(
                    """
                    SELECT \(unsafeRaw: Self.columns), CASE WHEN \(Self.enrolled) THEN 1 ELSE 0 END AS enrolled
                    FROM quiz_attempts JOIN users ON users.id = quiz_attempts.student_id
                    WHERE quiz_attempts.id = \(bind: id)
                    """
                ).first().map { row in
                    (try AttemptRow(row).attempt, enrolled: try row.decode(column: "enrolled", as: Int.self) == 1)
                }
            }
        }
        guard let found = try await read() else { return nil }
        known.keep(KnownAttempt(found.0), id: found.0.id)
        guard Self.overdue(found.0, now: now) else { return found }
        try await closeOverdue(now: now)
        return try await read()
    }

    /// Whether the attempt's student (of `quiz_attempts` in the statement) is enrolled in its quiz's course.
    static let enrolled: SQLQueryString = """
        EXISTS (
          SELECT 1 FROM quiz_runs JOIN quizzes ON quizzes.id = quiz_runs.quiz_id
          JOIN enrollments ON enrollments.course_id = quizzes.course_id
            AND enrollments.student_id = quiz_attempts.student_id
          WHERE quiz_runs.id = quiz_attempts.run_id)
        """

    /// The attempts this process has read: whose they are and of which run.
    package var known: FixedValues<KnownAttempt> { database.caches.attempts }

    package static func selectOpen(_ sql: any SQLDatabase, where condition: SQLQueryString) async throws
        -> [QuizAttempt]
    {
        try await select(sql, where: "quiz_attempts.closed_at IS NULL AND \(condition)")
    }

    /// The attempt; one found past its deadline is closed first, so that nobody reads it as still open.
    package func find(id: Int64, now: Date = Date()) async throws -> QuizAttempt? {
        let read = { @Sendable in
            try await database.read { sql in
                try await Self.select(sql, where: "quiz_attempts.id = \(bind: id)").first
            }
        }
        guard let attempt = try await read() else { return nil }
        guard Self.overdue(attempt, now: now) else { return attempt }
        try await closeOverdue(now: now)
        return try await read()
    }

    /// The run's attempts, those past their deadline closed first, as the reader's language sorts names.
    package func list(runID: Int64, in reader: Reader, now: Date = Date()) async throws -> [QuizAttempt] {
        reader.collation.sorted(try await list(runID: runID, now: now), name: \.studentName, id: \.id)
    }

    private func list(runID: Int64, now: Date) async throws -> [QuizAttempt] {
        let read = { @Sendable in
            try await database.read { sql in
                try await Self.select(sql, where: "quiz_attempts.run_id = \(bind: runID)")
            }
        }
        let attempts = try await read()
        guard attempts.contains(where: { Self.overdue($0, now: now) }) else { return attempts }
        try await closeOverdue(now: now)
        return try await read()
    }

    /// Whether the attempt is still open although its time (with the transit grace) is up.
    package static func overdue(_ attempt: QuizAttempt, now: Date) -> Bool {
        attempt.closedAt == nil && !AttemptRules.acceptsSave(at: now, deadline: attempt.deadline)
    }

    /// Starts the student's attempt, or answers the one they have (a reload, a second device). A different device
    /// than the first is recorded as a `second_device` flag.
    package func start(
        _ run: QuizRun, studentID: Int64, deviceID: String?, now: Date = Date()
    ) async throws -> (attempt: QuizAttempt, created: Bool) {
        try await closeOverdue(now: now)
        return try await database.transaction { sql in
            if let existing = try await Self.select(
                sql, where: "quiz_attempts.run_id = \(bind: run.id) AND quiz_attempts.student_id = \(bind: studentID)"
            ).first {
                try await Self.resumed(existing, deviceID: deviceID, now: now, in: sql)
                return (existing, false)
            }
            // Read again, shared, in this transaction: a stop that committed a moment ago refuses the start, and a
            // stop arriving now waits for it, then closes it with the rest. A quiz or session deleted meanwhile took
            // the run with it: its deletion holds the run's row while it counts the attempts, so an attempt is either
            // counted there or refused here.
            guard let stopped = try await Self.runIsStopped(run.id, in: sql) else {
                throw NotStored(.quizRunNotFound, what: "quiz run")
            }
            guard !stopped else { throw QuizRefusal.runStopped }
            guard try await QuizRuns.mayTake(run, studentID: studentID, in: sql) else { throw QuizRefusal.notCheckedIn }
            let seed = Int64(bitPattern: UInt64.random(in: 0...UInt64.max))
            let deadline = AttemptRules.deadline(
                startedAt: now, timeLimitSeconds: run.definition.timeLimitSeconds, addedSeconds: 0)
            // Another process may start the same attempt at this very moment: the unique (run, student) decides, and
            // the loser answers with the winner's attempt, as a retry would.
            let id = try await sql.insert(into: "quiz_attempts")
                .columns("run_id", "student_id", "seed", "device_id", "started_at", "deadline")
                .values(
                    SQLBind(run.id), SQLBind(studentID), SQLBind(seed), SQLBind(deviceID), SQLBind(now),
                    SQLBind(deadline)
                )
                .ignoringConflicts(with: ["run_id", "student_id"])
                .returning("id").first(decodingColumn: "id", as: Int64.self)
            guard let id else {
                guard
                    let existing = try await Self.select(
                        sql,
                        where:
                            "quiz_attempts.run_id = \(bind: run.id) AND quiz_attempts.student_id = \(bind: studentID)"
                    ).first
                else { throw NotSaved(what: "quiz attempt") }
                return (existing, false)
            }
            guard let attempt = try await Self.select(sql, where: "quiz_attempts.id = \(bind: id)").first
            else { throw NotSaved(what: "quiz attempt") }
            try await QuizEvents.append(
                [QuizChange(kind: .attemptStarted, payload: AttemptEvent(attempt))], runID: run.id, at: now, in: sql)
            return (attempt, true)
        }
    }

    /// An attempt opened again: from a device other than its first while open, a `second_device` flag, counted
    /// under the attempt's lock as every report is, so that two reports at once cannot both find room for one more.
    private static func resumed(
        _ attempt: QuizAttempt, deviceID: String?, now: Date, in sql: Transaction
    ) async throws {
        guard let deviceID, let first = attempt.deviceId, first != deviceID, attempt.closedAt == nil else { return }
        let report = IntegrityFlagReport(kind: .secondDevice, occurredAt: now)
        _ = try await QuizMarks.record([report], attempt: try await locked(attempt.id, in: sql), now: now, in: sql)
    }

    /// What the dashboard is told of an attempt.
    package struct AttemptEvent: Codable, Sendable {
        package var attemptId: Int64
        package var studentId: Int64
        package var name: String
        package var startedAt: Date
        package var deadline: Date
        package var answered: Int
        package var closedAt: Date?
        package var ending: AttemptEnding?

        package init(_ attempt: QuizAttempt) {
            attemptId = attempt.id
            studentId = attempt.studentId
            name = attempt.studentName
            startedAt = attempt.startedAt
            deadline = attempt.deadline
            answered = attempt.answered
            closedAt = attempt.closedAt
            ending = attempt.ending
        }
    }

    /// Whether the run has stopped (`nil`: it is gone), read under a shared lock of its row, so that `stop` and the
    /// deletion of its quiz or session (which lock it for update) come wholly before or wholly after the caller's
    /// transaction.
    package static func runIsStopped(_ runID: Int64, in sql: Transaction) async throws -> Bool? {
        guard
            let row = try await sql.select().column("stopped_at").from("quiz_runs").where("id", .equal, runID)
                .for(.share).first()
        else { return nil }
        return try !row.decodeNil(column: "stopped_at")
    }

    /// Closes attempts with their saved answers, telling the dashboards. Each closes only if still open (and, with
    /// `overdueBefore`, still past its deadline): another process's sweep, a submit or more time given a moment ago
    /// wins, and no event is written for an attempt this call did not close.
    package static func close(
        _ attempts: [QuizAttempt], ending: AttemptEnding, at now: Date, overdueBefore limit: Date? = nil,
        in sql: Transaction
    ) async throws {
        var byRun: [Int64: [QuizChange]] = [:]
        for attempt in attempts {
            // An attempt closed by time closes at its deadline, however late the sweep noticed.
            let at = ending == .timeLimit ? min(attempt.deadline, now) : now
            var update = sql.update("quiz_attempts").set("closed_at", to: at).set("ending", to: ending.rawValue)
                .where("id", .equal, attempt.id).where("closed_at", .is, SQLLiteral.null)
            if let limit { update = update.where("deadline", .lessThan, limit) }
            guard try await update.returning("id").first() != nil else { continue }
            var closed = attempt
            closed.closedAt = at
            closed.ending = ending
            byRun[attempt.runId, default: []].append(QuizChange(kind: .attemptClosed, payload: AttemptEvent(closed)))
        }
        for (runID, changes) in byRun.sorted(by: { $0.key < $1.key }) {
            try await QuizEvents.append(changes, runID: runID, at: now, in: sql)
        }
    }

    /// Closes every attempt whose deadline (with the transit grace) has passed: called by the sweep and before
    /// reads, so that an attempt is closed by time whether or not anyone is watching.
    @discardableResult
    package func closeOverdue(now: Date = Date()) async throws -> Int {
        let limit = now.addingTimeInterval(-AttemptRules.transitGrace)
        let due = try await database.read { sql in
            try await sql.select().column("id").from("quiz_attempts").where("closed_at", .is, SQLLiteral.null)
                .where("deadline", .lessThan, limit).limit(1).first()
        }
        guard due != nil else { return 0 }
        return try await database.transaction { sql in
            let overdue = try await Self.selectOpen(sql, where: "quiz_attempts.deadline < \(bind: limit)")
            try await Self.close(overdue, ending: .timeLimit, at: now, overdueBefore: limit, in: sql)
            return overdue.count
        }
    }

    /// The attempt, locked against concurrent changes until the transaction ends (PostgreSQL; SQLite's one writer
    /// already excludes them).
    package static func locked(_ attemptID: Int64, in sql: Transaction) async throws -> QuizAttempt {
        guard let attempt = try await select(sql, where: "quiz_attempts.id = \(bind: attemptID)", locking: true).first
        else {
            throw NotStored(.attemptNotFound, what: "attempt")
        }
        return attempt
    }

    /// Refuses a change to an attempt that has ended, or whose time is up.
    package static func requireOpen(_ attempt: QuizAttempt, now: Date) throws {
        if attempt.ending == .timeLimit { throw QuizRefusal.timeLimitPassed }
        if let ending = attempt.ending { throw QuizRefusal.attemptClosed(ending) }
        guard AttemptRules.acceptsSave(at: now, deadline: attempt.deadline) else { throw QuizRefusal.timeLimitPassed }
    }

    /// What a save did.
    package struct SaveOutcome: Sendable, Equatable {
        /// `false` when the same save was stored already (a retry).
        package var changed: Bool
        package var sequence: Int64
        package var savedAt: Date
        package var answered: Int
        /// The attempt's deadline as the save found it.
        package var deadline: Date
    }

    /// Saves one answer under the sequence rule: a newer save replaces the stored one, the same one again is
    /// acknowledged, an older one is refused. Saves arriving together are written together (`AnswerSaves`).
    /// `verifying`: the student the attempt must be of, enrolled, when its access was not read before the save
    /// (`AnswerSaves.Unverified` if not).
    package func save(
        attemptID: Int64, questionID: String, answer: QuizAnswer, sequence: Int64, verifying: Int64? = nil,
        now: Date = Date()
    ) async throws -> SaveOutcome {
        try await database.answerSaves.save(
            .init(
                attemptID: attemptID, questionID: questionID, answer: answer, text: try QuizJSON.encode(answer),
                sequence: sequence, now: now, verifying: verifying))
    }

    /// The attempt's saved answers by question id.
    package func answers(attemptIDs: [Int64]) async throws -> [Int64: [String: SavedAnswer]] {
        guard !attemptIDs.isEmpty else { return [:] }
        let rows = try await database.read { sql in
            try await sql.select().column("*").from("quiz_answers").where("attempt_id", .in, attemptIDs)
                .all().map(AnswerRow.init)
        }
        var result: [Int64: [String: SavedAnswer]] = [:]
        for row in rows {
            result[row.attemptId, default: [:]][row.questionId] = SavedAnswer(
                questionId: row.questionId, answer: try QuizJSON.decode(row.answer), sequence: row.sequence,
                savedAt: row.savedAt)
        }
        return result
    }

    package struct AnswerRow {
        package var attemptId: Int64
        package var questionId: String
        package var answer: String
        package var sequence: Int64
        package var savedAt: Date
        /// Whether the answer of save `answeredSequence` counts as answered (not blank).
        package var answered: Bool?
        package var answeredSequence: Int64?

        /// Whether the stored answer counts as answered, when that was kept for it; `nil` for one stored before it
        /// was, or changed since by a process that does not keep it.
        package var knownAnswered: Bool? { answeredSequence == sequence ? answered : nil }
    }

    /// Ends the attempt for good: submitted by the student, or ended by the teacher. Submitting again answers the
    /// attempt as it is.
    package func close(attemptID: Int64, ending: AttemptEnding, now: Date = Date()) async throws -> QuizAttempt {
        try await closeOverdue(now: now)
        return try await database.transaction { sql in
            let attempt = try await Self.locked(attemptID, in: sql)
            if attempt.closedAt != nil {
                // The same ending again is a retry and answers as the first did; any other finds the attempt closed
                // (a submit after the time ran out, or after the teacher ended it).
                guard attempt.ending == ending else { throw QuizRefusal.attemptClosed(attempt.ending ?? .timeLimit) }
                return attempt
            }
            try await Self.close([attempt], ending: ending, at: now, in: sql)
            var closed = attempt
            closed.closedAt = now
            closed.ending = ending
            return closed
        }
    }

    /// Gives the student more time; their deadline moves on from the one they had.
    package func addTime(attemptID: Int64, seconds: Int, now: Date = Date()) async throws -> QuizAttempt {
        try await closeOverdue(now: now)
        return try await database.transaction { sql in
            let attempt = try await Self.locked(attemptID, in: sql)
            if let ending = attempt.ending { throw QuizRefusal.attemptClosed(ending) }
            let stopped = try await QuizRuns.select(sql, where: "quiz_runs.id = \(bind: attempt.runId)").first?
                .stoppedAt
            guard stopped == nil else { throw QuizRefusal.runStopped }
            var changed = attempt
            changed.addedSeconds += seconds
            changed.deadline = attempt.deadline.addingTimeInterval(TimeInterval(seconds))
            try await sql.update("quiz_attempts").set("added_seconds", to: changed.addedSeconds)
                .set("deadline", to: changed.deadline).where("id", .equal, attemptID).run()
            try await QuizEvents.append(
                [QuizChange(kind: .timeAdded, payload: AttemptEvent(changed))], runID: attempt.runId, at: now,
                in: sql)
            return changed
        }
    }
}

/// One student's attempt at a run.
package struct QuizAttempt: Sendable, Equatable {
    package var id: Int64
    package var runId: Int64
    package var studentId: Int64
    package var studentName: String
    package var seed: UInt64
    package var deviceId: String?
    package var startedAt: Date
    package var addedSeconds: Int
    package var deadline: Date
    package var closedAt: Date?
    package var ending: AttemptEnding?
    package var answered: Int
}

/// An answer as stored.
package struct SavedAnswer: Codable, Sendable, Equatable {
    package var questionId: String
    package var answer: QuizAnswer
    package var sequence: Int64
    package var savedAt: Date
}

extension QuizAttempts.AnswerRow {
    /// Read column by column: a save's group reads its stored answers, and Codable's row decoding converted every
    /// column's name to snake case on every row (3 % of a server's CPU in a quiz on SQLite).
    package init(_ row: any SQLRow) throws {
        self.init(
            attemptId: try row.decode(column: "attempt_id", as: Int64.self),
            questionId: try row.decode(column: "question_id", as: String.self),
            answer: try row.decode(column: "answer", as: String.self),
            sequence: try row.decode(column: "sequence", as: Int64.self),
            savedAt: try row.decode(column: "saved_at", as: Date.self),
            answered: try row.decodeIfPresent(column: "answered", as: Bool.self),
            answeredSequence: try row.decodeIfPresent(column: "answered_sequence", as: Int64.self))
    }
}
