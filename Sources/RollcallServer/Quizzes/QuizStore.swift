import Foundation
import NIOConcurrencyHelpers
import RollcallCore
import SQLKit

/// A course's quiz, as its teacher defined it.
struct Quiz: Sendable, Equatable {
    var id: Int64
    var courseId: Int64
    var definition: QuizDefinition
    var archivedAt: Date?
    var createdAt: Date
    var updatedAt: Date
}

/// Why a quiz change or an attempt is refused; `ErrorMapping` gives each its code and sentence.
enum QuizRefusal: Error, Equatable {
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

/// Quizzes, their runs in sessions, and the students' attempts, answers, flags and marks.
struct QuizStore: Sendable {
    let database: Database
    /// A run's questions and course never change once started; every save needs them, so they are read once.
    let fixedRuns = FixedRuns()

    private struct QuizRow: Decodable {
        var id: Int64
        var courseId: Int64
        var definition: String
        var archivedAt: Date?
        var createdAt: Date
        var updatedAt: Date

        func quiz() throws -> Quiz {
            Quiz(
                id: id, courseId: courseId, definition: try QuizStore.decode(definition), archivedAt: archivedAt,
                createdAt: createdAt, updatedAt: updatedAt)
        }
    }

    static func decode<T: Decodable>(_ text: String, as type: T.Type = T.self) throws -> T {
        do {
            return try JSONCoding.decoder.decode(T.self, from: Data(text.utf8))
        } catch {
            throw UnreadableRow(what: "\(T.self)")
        }
    }

    static func encode(_ value: some Encodable) throws -> String {
        String(decoding: try SessionChange.encoder.encode(value), as: UTF8.self)
    }

    // MARK: Quizzes

    func create(courseID: Int64, definition: QuizDefinition, now: Date = Date()) async throws -> Quiz {
        let text = try Self.encode(definition)
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

    func find(id: Int64) async throws -> Quiz? {
        try await database.read { sql in
            try await sql.select().column("*").from("quizzes").where("id", .equal, id)
                .first(decoding: QuizRow.self, with: .rollcall)?.quiz()
        }
    }

    /// The course's quizzes, newest first; archived ones only when asked.
    func list(courseID: Int64, archived: Bool = false) async throws -> [Quiz] {
        try await database.read { sql in
            var query = sql.select().column("*").from("quizzes").where("course_id", .equal, courseID)
            if !archived { query = query.where("archived_at", .is, SQLLiteral.null) }
            return try await query.orderBy("id", .descending).all(decoding: QuizRow.self, with: .rollcall)
                .map { try $0.quiz() }
        }
    }

    func update(_ quiz: Quiz, definition: QuizDefinition, now: Date = Date()) async throws -> Quiz {
        guard quiz.archivedAt == nil else { throw QuizRefusal.archived }
        let text = try Self.encode(definition)
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
    func delete(_ quiz: Quiz, now: Date = Date()) async throws -> Bool {
        try await database.transaction { sql in
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

    // MARK: Runs

    private struct RunRow: Decodable {
        var id: Int64
        var quizId: Int64
        var sessionId: Int64
        var courseId: Int64
        var definition: String
        var startedBy: Int64
        var startedAt: Date
        var stoppedAt: Date?

        func run() throws -> QuizRun {
            QuizRun(
                id: id, quizId: quizId, sessionId: sessionId, courseId: courseId,
                definition: try QuizStore.decode(definition), startedBy: startedBy, startedAt: startedAt,
                stoppedAt: stoppedAt)
        }
    }

    private static func runs(_ sql: any SQLDatabase, where condition: SQLQueryString) async throws -> [QuizRun] {
        try await sql.raw(
            """
            SELECT quiz_runs.id, quiz_runs.quiz_id, quiz_runs.session_id, quizzes.course_id, quiz_runs.definition,
              quiz_runs.started_by, quiz_runs.started_at, quiz_runs.stopped_at
            FROM quiz_runs JOIN quizzes ON quizzes.id = quiz_runs.quiz_id
            WHERE \(condition) ORDER BY quiz_runs.id DESC
            """
        ).all(decoding: RunRow.self, with: .rollcall).map { try $0.run() }
    }

    func run(id: Int64) async throws -> QuizRun? {
        let run = try await database.read { sql in
            try await Self.runs(sql, where: "quiz_runs.id = \(bind: id)").first
        }
        if let run { fixedRuns.keep(run) }
        return run
    }

    /// The run as it started, from memory when read before: its `stoppedAt` may be out of date, so only for what
    /// does not depend on it, such as a save (stopping a run moves its attempts' deadlines, which a save checks).
    func fixedRun(id: Int64) async throws -> QuizRun? {
        if let run = fixedRuns.run(id: id) { return run }
        return try await run(id: id)
    }

    /// The session's quiz runs, newest first.
    func runs(sessionID: Int64) async throws -> [QuizRun] {
        try await database.read { sql in try await Self.runs(sql, where: "quiz_runs.session_id = \(bind: sessionID)") }
    }

    /// Starts the quiz in the session with the definition it has now.
    func start(_ quiz: Quiz, sessionID: Int64, by teacherID: Int64, now: Date = Date()) async throws -> QuizRun {
        guard quiz.archivedAt == nil else { throw QuizRefusal.archived }
        let text = try Self.encode(quiz.definition)
        let id = try await database.transaction { sql in
            let running = try await sql.select().column("id").from("quiz_runs").where("quiz_id", .equal, quiz.id)
                .where("session_id", .equal, sessionID).where("stopped_at", .is, SQLLiteral.null).first()
            guard running == nil else { throw QuizRefusal.alreadyRunning }
            return try await sql.insert(into: "quiz_runs")
                .columns("quiz_id", "session_id", "definition", "started_by", "started_at")
                .values(SQLBind(quiz.id), SQLBind(sessionID), SQLBind(text), SQLBind(teacherID), SQLBind(now))
                .returning("id").first(decodingColumn: "id", as: Int64.self)
        }
        guard let id else { throw NotSaved(what: "quiz run") }
        return QuizRun(
            id: id, quizId: quiz.id, sessionId: sessionID, courseId: quiz.courseId, definition: quiz.definition,
            startedBy: teacherID, startedAt: now, stoppedAt: nil)
    }

    /// Stops the run: every attempt still open closes now with its saved answers.
    func stop(_ run: QuizRun, now: Date = Date()) async throws -> QuizRun {
        var stopped = run
        stopped.stoppedAt = try await database.transaction { sql in
            let current = try await Self.runs(sql, where: "quiz_runs.id = \(bind: run.id)").first
            if let done = current?.stoppedAt { return done }
            try await sql.update("quiz_runs").set("stopped_at", to: now).where("id", .equal, run.id).run()
            let open = try await Self.openAttempts(sql, where: "quiz_attempts.run_id = \(bind: run.id)")
            try await Self.close(open, ending: .quizStopped, at: now, in: sql)
            try await sql.raw(
                "UPDATE quiz_attempts SET deadline = \(bind: now) WHERE run_id = \(bind: run.id) AND deadline > \(bind: now)"
            ).run()
            try await QuizEvents.append(
                [QuizChange(kind: .runStopped, payload: ["stoppedAt": now])], runID: run.id, at: now, in: sql)
            return now
        }
        return stopped
    }

    /// Lets a student in by hand, as if checked in.
    func admit(_ run: QuizRun, studentID: Int64, by teacherID: Int64, now: Date = Date()) async throws {
        try await database.transaction { sql in
            let already = try await sql.select().column("student_id").from("quiz_admissions")
                .where("run_id", .equal, run.id).where("student_id", .equal, studentID).first()
            guard already == nil else { throw QuizRefusal.alreadyAdmitted }
            try await sql.insert(into: "quiz_admissions")
                .columns("run_id", "student_id", "admitted_by", "admitted_at")
                .values(SQLBind(run.id), SQLBind(studentID), SQLBind(teacherID), SQLBind(now)).run()
            try await QuizEvents.append(
                [QuizChange(kind: .admitted, payload: Admitted(studentId: studentID, at: now))], runID: run.id,
                at: now, in: sql)
        }
    }

    struct Admitted: Codable, Sendable {
        var studentId: Int64
        var at: Date
    }

    /// Whether the student may take the run's quiz: checked in to its session (present or late), or let in.
    static func mayTake(_ run: QuizRun, studentID: Int64, in sql: any SQLDatabase) async throws -> Bool {
        let row = try await sql.raw(
            """
            SELECT 1 AS ok FROM attendance WHERE session_id = \(bind: run.sessionId)
              AND student_id = \(bind: studentID) AND status IN ('present', 'late')
            UNION ALL
            SELECT 1 AS ok FROM quiz_admissions WHERE run_id = \(bind: run.id) AND student_id = \(bind: studentID)
            """
        ).first()
        return row != nil
    }

    func mayTake(_ run: QuizRun, studentID: Int64) async throws -> Bool {
        try await database.read { sql in try await Self.mayTake(run, studentID: studentID, in: sql) }
    }

    // MARK: Attempts

    private struct AttemptRow: Decodable {
        var id: Int64
        var runId: Int64
        var studentId: Int64
        var studentName: String
        var seed: Int64
        var deviceId: String?
        var startedAt: Date
        var addedSeconds: Int
        var deadline: Date
        var closedAt: Date?
        var ending: String?
        var answered: Int

        var attempt: QuizAttempt {
            QuizAttempt(
                id: id, runId: runId, studentId: studentId, studentName: studentName,
                seed: UInt64(bitPattern: seed), deviceId: deviceId, startedAt: startedAt, addedSeconds: addedSeconds,
                deadline: deadline, closedAt: closedAt, ending: ending.flatMap(AttemptEnding.init(rawValue:)),
                answered: answered)
        }
    }

    private static func attempts(_ sql: any SQLDatabase, where condition: SQLQueryString) async throws
        -> [QuizAttempt]
    {
        try await sql.raw(
            """
            SELECT quiz_attempts.id, quiz_attempts.run_id, quiz_attempts.student_id, users.name AS student_name,
              quiz_attempts.seed, quiz_attempts.device_id, quiz_attempts.started_at, quiz_attempts.added_seconds,
              quiz_attempts.deadline, quiz_attempts.closed_at, quiz_attempts.ending, quiz_attempts.answered
            FROM quiz_attempts JOIN users ON users.id = quiz_attempts.student_id
            WHERE \(condition) ORDER BY users.name, quiz_attempts.id
            """
        ).all(decoding: AttemptRow.self, with: .rollcall).map(\.attempt)
    }

    private static func openAttempts(_ sql: any SQLDatabase, where condition: SQLQueryString) async throws
        -> [QuizAttempt]
    {
        try await attempts(sql, where: "quiz_attempts.closed_at IS NULL AND \(condition)")
    }

    /// The attempt; one found past its deadline is closed first, so that nobody reads it as still open.
    func attempt(id: Int64, now: Date = Date()) async throws -> QuizAttempt? {
        let read = { @Sendable in
            try await database.read { sql in
                try await Self.attempts(sql, where: "quiz_attempts.id = \(bind: id)").first
            }
        }
        guard let attempt = try await read() else { return nil }
        guard Self.overdue(attempt, now: now) else { return attempt }
        try await closeOverdue(now: now)
        return try await read()
    }

    /// The run's attempts, those past their deadline closed first.
    func attempts(runID: Int64, now: Date = Date()) async throws -> [QuizAttempt] {
        let read = { @Sendable in
            try await database.read { sql in
                try await Self.attempts(sql, where: "quiz_attempts.run_id = \(bind: runID)")
            }
        }
        let attempts = try await read()
        guard attempts.contains(where: { Self.overdue($0, now: now) }) else { return attempts }
        try await closeOverdue(now: now)
        return try await read()
    }

    /// Whether the attempt is still open although its time (with the transit grace) is up.
    static func overdue(_ attempt: QuizAttempt, now: Date) -> Bool {
        attempt.closedAt == nil && !AttemptRules.acceptsSave(at: now, deadline: attempt.deadline)
    }

    /// Starts the student's attempt, or answers the one they have (a reload, a second device). A different device
    /// than the first is recorded as a `second_device` flag.
    func startAttempt(
        _ run: QuizRun, studentID: Int64, deviceID: String?, now: Date = Date()
    ) async throws -> (attempt: QuizAttempt, created: Bool) {
        try await closeOverdue(now: now)
        return try await database.transaction { sql in
            if let existing = try await Self.attempts(
                sql, where: "quiz_attempts.run_id = \(bind: run.id) AND quiz_attempts.student_id = \(bind: studentID)"
            ).first {
                if let deviceID, let first = existing.deviceId, first != deviceID, existing.closedAt == nil {
                    let report = IntegrityFlagReport(kind: .secondDevice, occurredAt: now)
                    _ = try await Self.record([report], attempt: existing, now: now, in: sql)
                }
                return (existing, false)
            }
            guard run.stoppedAt == nil else { throw QuizRefusal.runStopped }
            guard try await Self.mayTake(run, studentID: studentID, in: sql) else { throw QuizRefusal.notCheckedIn }
            let seed = Int64(bitPattern: UInt64.random(in: 0...UInt64.max))
            let deadline = AttemptRules.deadline(
                startedAt: now, timeLimitSeconds: run.definition.timeLimitSeconds, addedSeconds: 0)
            let id = try await sql.insert(into: "quiz_attempts")
                .columns("run_id", "student_id", "seed", "device_id", "started_at", "deadline")
                .values(
                    SQLBind(run.id), SQLBind(studentID), SQLBind(seed), SQLBind(deviceID), SQLBind(now),
                    SQLBind(deadline)
                )
                .returning("id").first(decodingColumn: "id", as: Int64.self)
            guard let id, let attempt = try await Self.attempts(sql, where: "quiz_attempts.id = \(bind: id)").first
            else { throw NotSaved(what: "quiz attempt") }
            try await QuizEvents.append(
                [QuizChange(kind: .attemptStarted, payload: AttemptEvent(attempt))], runID: run.id, at: now, in: sql)
            return (attempt, true)
        }
    }

    /// What the dashboard is told of an attempt.
    struct AttemptEvent: Codable, Sendable {
        var attemptId: Int64
        var studentId: Int64
        var name: String
        var startedAt: Date
        var deadline: Date
        var answered: Int
        var closedAt: Date?
        var ending: AttemptEnding?

        init(_ attempt: QuizAttempt) {
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

    /// Closes attempts with their saved answers, telling the dashboards.
    private static func close(
        _ attempts: [QuizAttempt], ending: AttemptEnding, at now: Date, in sql: Transaction
    ) async throws {
        var byRun: [Int64: [QuizChange]] = [:]
        for attempt in attempts {
            // An attempt closed by time closes at its deadline, however late the sweep noticed.
            let at = ending == .timeLimit ? min(attempt.deadline, now) : now
            try await sql.update("quiz_attempts").set("closed_at", to: at).set("ending", to: ending.rawValue)
                .where("id", .equal, attempt.id).where("closed_at", .is, SQLLiteral.null).run()
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
    func closeOverdue(now: Date = Date()) async throws -> Int {
        let limit = now.addingTimeInterval(-AttemptRules.transitGrace)
        let due = try await database.read { sql in
            try await sql.select().column("id").from("quiz_attempts").where("closed_at", .is, SQLLiteral.null)
                .where("deadline", .lessThan, limit).limit(1).first()
        }
        guard due != nil else { return 0 }
        return try await database.transaction { sql in
            let overdue = try await Self.openAttempts(sql, where: "quiz_attempts.deadline < \(bind: limit)")
            try await Self.close(overdue, ending: .timeLimit, at: now, in: sql)
            return overdue.count
        }
    }

    /// The attempt, locked against concurrent changes until the transaction ends (PostgreSQL; SQLite's one writer
    /// already excludes them).
    private static func locked(_ attemptID: Int64, in sql: Transaction) async throws -> QuizAttempt {
        if sql.dialect.name == "postgresql" {
            try await sql.raw("SELECT id FROM quiz_attempts WHERE id = \(bind: attemptID) FOR UPDATE").run()
        }
        guard let attempt = try await attempts(sql, where: "quiz_attempts.id = \(bind: attemptID)").first else {
            throw NotStored(what: "attempt")
        }
        return attempt
    }

    /// Refuses a change to an attempt that has ended, or whose time is up.
    private static func requireOpen(_ attempt: QuizAttempt, now: Date) throws {
        if attempt.ending == .timeLimit { throw QuizRefusal.timeLimitPassed }
        if let ending = attempt.ending { throw QuizRefusal.attemptClosed(ending) }
        guard AttemptRules.acceptsSave(at: now, deadline: attempt.deadline) else { throw QuizRefusal.timeLimitPassed }
    }

    /// What a save did.
    struct SaveOutcome: Sendable, Equatable {
        /// `false` when the same save was stored already (a retry).
        var changed: Bool
        var sequence: Int64
        var savedAt: Date
        var answered: Int
    }

    /// Saves one answer under the sequence rule: a newer save replaces the stored one, the same one again is
    /// acknowledged, an older one is refused.
    func save(
        attemptID: Int64, questionID: String, answer: QuizAnswer, sequence: Int64, now: Date = Date()
    ) async throws -> SaveOutcome {
        let text = try Self.encode(answer)
        return try await database.transaction { sql in
            let attempt = try await Self.locked(attemptID, in: sql)
            let stored = try await sql.select().columns("sequence", "answer", "saved_at").from("quiz_answers")
                .where("attempt_id", .equal, attemptID).where("question_id", .equal, questionID)
                .first(decoding: StoredAnswerRow.self, with: .rollcall)
            switch AttemptRules.sequenceDecision(sequence, stored: stored?.sequence) {
            case .stale(let current): throw QuizRefusal.staleSequence(current: current)
            case .repeated:
                return SaveOutcome(
                    changed: false, sequence: sequence, savedAt: stored?.savedAt ?? now, answered: attempt.answered)
            case .apply: break
            }
            try Self.requireOpen(attempt, now: now)
            if stored == nil {
                try await sql.insert(into: "quiz_answers")
                    .columns("attempt_id", "question_id", "answer", "sequence", "saved_at")
                    .values(SQLBind(attemptID), SQLBind(questionID), SQLBind(text), SQLBind(sequence), SQLBind(now))
                    .run()
            } else {
                try await sql.update("quiz_answers").set("answer", to: text).set("sequence", to: sequence)
                    .set("saved_at", to: now).where("attempt_id", .equal, attemptID)
                    .where("question_id", .equal, questionID).run()
            }
            let wasAnswered = try stored.map { !(try Self.decode($0.answer, as: QuizAnswer.self)).isBlank } ?? false
            let change = (answer.isBlank ? 0 : 1) - (wasAnswered ? 1 : 0)
            var answered = attempt.answered
            if change != 0 {
                answered += change
                try await sql.update("quiz_attempts").set("answered", to: answered).where("id", .equal, attemptID)
                    .run()
                var event = AttemptEvent(attempt)
                event.answered = answered
                try await QuizEvents.append(
                    [QuizChange(kind: .answered, payload: event)], runID: attempt.runId, at: now, in: sql)
            }
            return SaveOutcome(changed: true, sequence: sequence, savedAt: now, answered: answered)
        }
    }

    private struct StoredAnswerRow: Decodable {
        var sequence: Int64
        var answer: String
        var savedAt: Date
    }

    /// The attempt's saved answers by question id.
    func answers(attemptIDs: [Int64]) async throws -> [Int64: [String: SavedAnswer]] {
        guard !attemptIDs.isEmpty else { return [:] }
        let rows = try await database.read { sql in
            try await sql.select().column("*").from("quiz_answers").where("attempt_id", .in, attemptIDs)
                .all(decoding: AnswerRow.self, with: .rollcall)
        }
        var result: [Int64: [String: SavedAnswer]] = [:]
        for row in rows {
            result[row.attemptId, default: [:]][row.questionId] = SavedAnswer(
                questionId: row.questionId, answer: try Self.decode(row.answer), sequence: row.sequence,
                savedAt: row.savedAt)
        }
        return result
    }

    private struct AnswerRow: Decodable {
        var attemptId: Int64
        var questionId: String
        var answer: String
        var sequence: Int64
        var savedAt: Date
    }

    /// Ends the attempt for good: submitted by the student, or ended by the teacher. Submitting again answers the
    /// attempt as it is.
    func close(attemptID: Int64, ending: AttemptEnding, now: Date = Date()) async throws -> QuizAttempt {
        try await closeOverdue(now: now)
        return try await database.transaction { sql in
            let attempt = try await Self.locked(attemptID, in: sql)
            if attempt.closedAt != nil {
                guard ending == .submitted || attempt.ending == ending else {
                    throw QuizRefusal.attemptClosed(attempt.ending ?? .timeLimit)
                }
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
    func addTime(attemptID: Int64, seconds: Int, now: Date = Date()) async throws -> QuizAttempt {
        try await closeOverdue(now: now)
        return try await database.transaction { sql in
            let attempt = try await Self.locked(attemptID, in: sql)
            if let ending = attempt.ending { throw QuizRefusal.attemptClosed(ending) }
            let stopped = try await Self.runs(sql, where: "quiz_runs.id = \(bind: attempt.runId)").first?.stoppedAt
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

    // MARK: Flags

    /// Records flags reported for an attempt; a flag whose client id is stored already is skipped. Answers the
    /// flags newly stored.
    func record(_ reports: [IntegrityFlagReport], attemptID: Int64, now: Date = Date()) async throws -> [StoredFlag] {
        try await database.transaction { sql in
            let attempt = try await Self.locked(attemptID, in: sql)
            return try await Self.record(reports, attempt: attempt, now: now, in: sql)
        }
    }

    private static func record(
        _ reports: [IntegrityFlagReport], attempt: QuizAttempt, now: Date, in sql: Transaction
    ) async throws -> [StoredFlag] {
        var stored: [StoredFlag] = []
        for report in reports {
            if let clientId = report.clientId {
                let known = try await sql.select().column("id").from("quiz_flags")
                    .where("attempt_id", .equal, attempt.id).where("client_id", .equal, clientId).first()
                if known != nil { continue }
            }
            let id = try await sql.insert(into: "quiz_flags")
                .columns("attempt_id", "kind", "report", "client_id", "occurred_at", "received_at")
                .values(
                    SQLBind(attempt.id), SQLBind(report.kind.rawValue), SQLBind(try encode(report)),
                    SQLBind(report.clientId), SQLBind(report.occurredAt), SQLBind(now)
                )
                .returning("id").first(decodingColumn: "id", as: Int64.self)
            guard let id else { throw NotSaved(what: "quiz flag") }
            stored.append(
                StoredFlag(
                    id: id, attemptId: attempt.id, studentId: attempt.studentId, name: attempt.studentName,
                    kind: report.kind, label: report.kind.label, detail: report.detail,
                    occurredAt: report.occurredAt, receivedAt: now, secondsAway: report.secondsAway))
        }
        try await QuizEvents.append(
            stored.map { QuizChange(kind: .flagged, payload: $0) }, runID: attempt.runId, at: now, in: sql)
        return stored
    }

    /// The flags of a run's attempts, oldest first.
    func flags(runID: Int64) async throws -> [StoredFlag] {
        try await database.read { sql in
            try await sql.raw(
                """
                SELECT quiz_flags.id, quiz_flags.attempt_id, quiz_flags.report, quiz_flags.received_at,
                  quiz_attempts.student_id, users.name
                FROM quiz_flags JOIN quiz_attempts ON quiz_attempts.id = quiz_flags.attempt_id
                JOIN users ON users.id = quiz_attempts.student_id
                WHERE quiz_attempts.run_id = \(bind: runID) ORDER BY quiz_flags.occurred_at, quiz_flags.id
                """
            ).all(decoding: FlagRow.self, with: .rollcall).map { row in
                let report = try Self.decode(row.report, as: IntegrityFlagReport.self)
                return StoredFlag(
                    id: row.id, attemptId: row.attemptId, studentId: row.studentId, name: row.name, kind: report.kind,
                    label: report.kind.label, detail: report.detail, occurredAt: report.occurredAt,
                    receivedAt: row.receivedAt, secondsAway: report.secondsAway)
            }
        }
    }

    private struct FlagRow: Decodable {
        var id: Int64
        var attemptId: Int64
        var report: String
        var receivedAt: Date
        var studentId: Int64
        var name: String
    }

    // MARK: Marks

    func mark(
        attemptID: Int64, questionID: String, points: Double, comment: String, by teacherID: Int64, now: Date = Date()
    ) async throws {
        try await database.transaction { sql in
            try await sql.delete(from: "quiz_marks").where("attempt_id", .equal, attemptID)
                .where("question_id", .equal, questionID).run()
            try await sql.insert(into: "quiz_marks")
                .columns("attempt_id", "question_id", "points", "comment", "marked_by", "marked_at")
                .values(
                    SQLBind(attemptID), SQLBind(questionID), SQLBind(points), SQLBind(comment), SQLBind(teacherID),
                    SQLBind(now)
                ).run()
        }
    }

    /// A course's quiz runs and each attempt's points, as the gradebook weighs them; one student's attempts only
    /// when `studentID` is given, so that a student's page does not read the whole class's answers.
    func gradebookResults(courseID: Int64, studentID: Int64? = nil) async throws
        -> (runs: [Gradebook.QuizRun], results: [Int64: [Int64: Gradebook.QuizResult]])
    {
        try await database.read { sql in
            let runs = try await Self.runs(sql, where: "quizzes.course_id = \(bind: courseID)")
            let attemptFilter: SQLQueryString =
                studentID.map { "AND quiz_attempts.student_id = \(bind: $0)" } ?? ""
            let attempts = try await sql.raw(
                """
                SELECT quiz_attempts.id, quiz_attempts.run_id, quiz_attempts.student_id
                FROM quiz_attempts JOIN quiz_runs ON quiz_runs.id = quiz_attempts.run_id
                  JOIN quizzes ON quizzes.id = quiz_runs.quiz_id
                WHERE quizzes.course_id = \(bind: courseID) \(attemptFilter)
                """
            ).all(decoding: GradedAttempt.self, with: .rollcall)
            let within: SQLQueryString = """
                attempt_id IN (SELECT quiz_attempts.id FROM quiz_attempts
                  JOIN quiz_runs ON quiz_runs.id = quiz_attempts.run_id JOIN quizzes ON quizzes.id = quiz_runs.quiz_id
                  WHERE quizzes.course_id = \(bind: courseID) \(attemptFilter))
                """
            var answers: [Int64: [String: QuizAnswer]] = [:]
            for row in try await sql.raw("SELECT * FROM quiz_answers WHERE \(within)").all(
                decoding: AnswerRow.self, with: .rollcall)
            {
                answers[row.attemptId, default: [:]][row.questionId] = try Self.decode(row.answer)
            }
            var marks: [Int64: [String: (points: Double, comment: String)]] = [:]
            for row in try await sql.raw("SELECT * FROM quiz_marks WHERE \(within)").all(
                decoding: HandMark.self, with: .rollcall)
            {
                marks[row.attemptId, default: [:]][row.questionId] = (row.points, row.comment)
            }
            let definitions = Dictionary(runs.map { ($0.id, $0.definition) }, uniquingKeysWith: { first, _ in first })
            var results: [Int64: [Int64: Gradebook.QuizResult]] = [:]
            for attempt in attempts {
                guard let definition = definitions[attempt.runId] else { continue }
                let total = QuizMarking.total(
                    of: definition, answers: answers[attempt.id] ?? [:], handMarks: marks[attempt.id] ?? [:])
                results[attempt.runId, default: [:]][attempt.studentId] = Gradebook.QuizResult(
                    points: total.points, pending: total.pending)
            }
            let graded = runs.reversed().map { run in
                Gradebook.QuizRun(
                    id: run.id, sessionID: run.sessionId, maxPoints: run.definition.maxPoints,
                    startedAt: run.startedAt, stopped: run.stoppedAt != nil)
            }
            return (graded, results)
        }
    }

    private struct GradedAttempt: Decodable {
        var id: Int64
        var runId: Int64
        var studentId: Int64
    }

    /// Teachers' marks by attempt and question.
    func marks(attemptIDs: [Int64]) async throws -> [Int64: [String: HandMark]] {
        guard !attemptIDs.isEmpty else { return [:] }
        let rows = try await database.read { sql in
            try await sql.select().column("*").from("quiz_marks").where("attempt_id", .in, attemptIDs)
                .all(decoding: HandMark.self, with: .rollcall)
        }
        return rows.reduce(into: [:]) { $0[$1.attemptId, default: [:]][$1.questionId] = $1 }
    }
}

/// A quiz started in a session, with the definition it started with.
struct QuizRun: Sendable, Equatable {
    var id: Int64
    var quizId: Int64
    var sessionId: Int64
    var courseId: Int64
    var definition: QuizDefinition
    var startedBy: Int64
    var startedAt: Date
    var stoppedAt: Date?
}

/// One student's attempt at a run.
struct QuizAttempt: Sendable, Equatable {
    var id: Int64
    var runId: Int64
    var studentId: Int64
    var studentName: String
    var seed: UInt64
    var deviceId: String?
    var startedAt: Date
    var addedSeconds: Int
    var deadline: Date
    var closedAt: Date?
    var ending: AttemptEnding?
    var answered: Int
}

/// An answer as stored.
struct SavedAnswer: Codable, Sendable, Equatable {
    var questionId: String
    var answer: QuizAnswer
    var sequence: Int64
    var savedAt: Date
}

/// A flag as stored, with the student it concerns.
struct StoredFlag: Codable, Sendable, Equatable {
    var id: Int64
    var attemptId: Int64
    var studentId: Int64
    var name: String
    var kind: IntegrityFlagKind
    var label: String
    var detail: String
    var occurredAt: Date
    var receivedAt: Date
    var secondsAway: Double?
}

/// A teacher's mark of one answer.
struct HandMark: Codable, Sendable, Equatable {
    var attemptId: Int64
    var questionId: String
    var points: Double
    var comment: String
    var markedBy: Int64
    var markedAt: Date
}

/// Runs kept in memory for their fixed parts (`QuizStore.fixedRun`).
final class FixedRuns: Sendable {
    private let runs = NIOLockedValueBox<[Int64: QuizRun]>([:])
    /// Past this many runs the memory starts afresh rather than grow without bound.
    let capacity = 10_000

    func run(id: Int64) -> QuizRun? {
        runs.withLockedValue { $0[id] }
    }

    func keep(_ run: QuizRun) {
        runs.withLockedValue { runs in
            if runs.count >= capacity { runs = [:] }
            runs[run.id] = run
        }
    }
}
