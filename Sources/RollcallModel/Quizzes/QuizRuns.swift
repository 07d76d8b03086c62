import Foundation
import RollcallCore
import RollcallStorage
import SQLKit

/// A quiz's runs in sessions: starting, stopping, letting a student in.
package struct QuizRuns: Sendable {
    package let database: Database
    /// A run's questions and course never change once started; every save needs them, so they are read once.
    package var fixedRuns: FixedValues<QuizRun> { database.caches.quizRuns }

    /// Locks the runs that match, for update, until the transaction ends (PostgreSQL; SQLite's one writer already
    /// excludes a start), so that an attempt cannot start in them meanwhile.
    package static func hold(where condition: SQLQueryString, in sql: Transaction) async throws {
        guard sql.dialect.name == "postgresql" else { return }
        try await sql.raw("SELECT id FROM quiz_runs WHERE \(condition) ORDER BY id FOR UPDATE").run()
    }

    package struct RunRow: Decodable {
        package var id: Int64
        package var quizId: Int64
        package var sessionId: Int64
        package var courseId: Int64
        package var definition: String
        package var startedBy: Int64
        package var startedAt: Date
        package var stoppedAt: Date?

        package func run() throws -> QuizRun {
            QuizRun(
                id: id, quizId: quizId, sessionId: sessionId, courseId: courseId,
                definition: try QuizJSON.decode(definition), startedBy: startedBy, startedAt: startedAt,
                stoppedAt: stoppedAt)
        }
    }

    package static func select(_ sql: any SQLDatabase, where condition: SQLQueryString) async throws -> [QuizRun] {
        try await sql.raw(
            """
            SELECT quiz_runs.id, quiz_runs.quiz_id, quiz_runs.session_id, quizzes.course_id, quiz_runs.definition,
              quiz_runs.started_by, quiz_runs.started_at, quiz_runs.stopped_at
            FROM quiz_runs JOIN quizzes ON quizzes.id = quiz_runs.quiz_id
            WHERE \(condition) ORDER BY quiz_runs.id DESC
            """
        ).all(decoding: RunRow.self, with: .rollcall).map { try $0.run() }
    }

    package func run(id: Int64) async throws -> QuizRun? {
        let run = try await database.read { sql in
            try await Self.select(sql, where: "quiz_runs.id = \(bind: id)").first
        }
        if let run { fixedRuns.keep(run, id: run.id) }
        return run
    }

    /// The run as it started, from memory when read before: its `stoppedAt` may be out of date, so only for what
    /// does not depend on it, such as a save (stopping a run moves its attempts' deadlines, which a save checks).
    package func fixedRun(id: Int64) async throws -> QuizRun? {
        if let run = fixedRuns.value(id: id) { return run }
        return try await run(id: id)
    }

    /// The session's quiz runs, newest first.
    package func list(sessionID: Int64) async throws -> [QuizRun] {
        try await database.read { sql in try await Self.select(sql, where: "quiz_runs.session_id = \(bind: sessionID)")
        }
    }

    /// Starts the quiz in the session with the definition it has now.
    package func start(_ quiz: Quiz, sessionID: Int64, by teacherID: Int64, now: Date = Date()) async throws -> QuizRun
    {
        guard quiz.archivedAt == nil else { throw QuizRefusal.archived }
        let text = try QuizJSON.encode(quiz.definition)
        let id = try await database.transaction { sql in
            // Held so that two starts at once, in any processes, see each other's run.
            try await SessionStore.lock(id: sessionID, in: sql)
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
    package func stop(_ run: QuizRun, now: Date = Date()) async throws -> QuizRun {
        var stopped = run
        stopped.stoppedAt = try await database.transaction { sql in
            // Held until the commit: a second stop waits and finds this one's time; a start waits (`runIsStopped`).
            try await sql.lockRow(of: "quiz_runs", id: run.id)
            let current = try await Self.select(sql, where: "quiz_runs.id = \(bind: run.id)").first
            if let done = current?.stoppedAt { return done }
            try await sql.update("quiz_runs").set("stopped_at", to: now).where("id", .equal, run.id).run()
            let open = try await QuizAttempts.selectOpen(sql, where: "quiz_attempts.run_id = \(bind: run.id)")
            try await QuizAttempts.close(open, ending: .quizStopped, at: now, in: sql)
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
    package func admit(_ run: QuizRun, studentID: Int64, by teacherID: Int64, now: Date = Date()) async throws {
        try await database.transaction { sql in
            let admitted = try await sql.insert(into: "quiz_admissions")
                .columns("run_id", "student_id", "admitted_by", "admitted_at")
                .values(SQLBind(run.id), SQLBind(studentID), SQLBind(teacherID), SQLBind(now))
                .ignoringConflicts(with: ["run_id", "student_id"]).returning("student_id").first()
            guard admitted != nil else { throw QuizRefusal.alreadyAdmitted }
            try await QuizEvents.append(
                [QuizChange(kind: .admitted, payload: Admitted(studentId: studentID, at: now))], runID: run.id,
                at: now, in: sql)
        }
    }

    package struct Admitted: Codable, Sendable {
        package var studentId: Int64
        package var at: Date
    }

    /// Whether the student may take the run's quiz: checked in to its session (present or late), or let in.
    package static func mayTake(_ run: QuizRun, studentID: Int64, in sql: any SQLDatabase) async throws -> Bool {
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

    package func mayTake(_ run: QuizRun, studentID: Int64) async throws -> Bool {
        try await database.read { sql in try await Self.mayTake(run, studentID: studentID, in: sql) }
    }
}

/// A quiz started in a session, with the definition it started with.
package struct QuizRun: Sendable, Equatable {
    package var id: Int64
    package var quizId: Int64
    package var sessionId: Int64
    package var courseId: Int64
    package var definition: QuizDefinition
    package var startedBy: Int64
    package var startedAt: Date
    package var stoppedAt: Date?
}
