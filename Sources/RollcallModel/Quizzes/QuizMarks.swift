import Foundation
import RollcallCore
import RollcallStorage
import SQLKit

/// Integrity flags, hand marks and the gradebook's quiz results.
package struct QuizMarks: Sendable {
    package let database: Database

    // MARK: Flags

    /// Records flags reported for an attempt; a flag whose client id is stored already is skipped. Answers the
    /// flags stored or changed (a repeat folded into one already there).
    package func record(_ reports: [IntegrityFlagReport], attemptID: Int64, now: Date = Date()) async throws
        -> [StoredFlag]
    {
        try await database.transaction { sql in
            let attempt = try await QuizAttempts.locked(attemptID, in: sql)
            return try await Self.record(reports, attempt: attempt, now: now, in: sql)
        }
    }

    /// Stores the reports, a flag each, until the attempt's flags flood (`FlagFlood`): then a report is folded into
    /// the latest flag of its kind, whose count grows. Answers the flags stored or changed, each once.
    package static func record(
        _ reports: [IntegrityFlagReport], attempt: QuizAttempt, now: Date, in sql: Transaction
    ) async throws -> [StoredFlag] {
        let rows = try await sql.select().columns("id", "report", "received_at").from("quiz_flags")
            .where("attempt_id", .equal, attempt.id).orderBy("id").all()
        var kept = rows.count
        var lastMinute = 0
        var latest: [IntegrityFlagKind: (id: Int64, report: IntegrityFlagReport)] = [:]
        for row in rows {
            let report = try QuizJSON.decode(
                try row.decode(column: "report", as: String.self), as: IntegrityFlagReport.self)
            latest[report.kind] = (try row.decode(column: "id", as: Int64.self), report)
            if try row.decode(column: "received_at", as: Date.self) > now.addingTimeInterval(-60) { lastMinute += 1 }
        }
        var order: [Int64] = []
        var flags: [Int64: StoredFlag] = [:]
        func note(_ id: Int64, _ report: IntegrityFlagReport) {
            if flags[id] == nil { order.append(id) }
            flags[id] = StoredFlag(
                id: id, report: report, attemptId: attempt.id, studentId: attempt.studentId,
                name: attempt.studentName, receivedAt: now)
        }
        for report in reports {
            if let clientId = report.clientId, try await Self.knows(clientId, attemptID: attempt.id, in: sql) {
                continue
            }
            switch FlagFlood.decide(kept: kept, lastMinute: lastMinute, kindKept: latest[report.kind] != nil) {
            case .keep:
                let id = try await sql.insert(into: "quiz_flags")
                    .columns("attempt_id", "kind", "report", "client_id", "occurred_at", "received_at")
                    .values(
                        SQLBind(attempt.id), SQLBind(report.kind.rawValue), SQLBind(try QuizJSON.encode(report)),
                        SQLBind(report.clientId), SQLBind(report.occurredAt), SQLBind(now)
                    )
                    .returning("id").first(decodingColumn: "id", as: Int64.self)
                guard let id else { throw NotSaved(what: "quiz flag") }
                kept += 1
                lastMinute += 1
                latest[report.kind] = (id, report)
                note(id, report)
            case .fold:
                guard let into = latest[report.kind] else { continue }
                let folded = try await fold(report, into: into, attemptID: attempt.id, in: sql)
                latest[report.kind] = folded
                note(folded.id, folded.report)
            }
        }
        let stored = order.compactMap { flags[$0] }
        try await QuizEvents.append(
            stored.map { QuizChange(kind: .flagged, payload: $0) }, runID: attempt.runId, at: now, in: sql)
        return stored
    }

    /// Folds a report into the latest flag of its kind, whose count grows; its client id is kept beside that flag,
    /// so that the same report sent again is known.
    private static func fold(
        _ report: IntegrityFlagReport, into flag: (id: Int64, report: IntegrityFlagReport), attemptID: Int64,
        in sql: Transaction
    ) async throws -> (id: Int64, report: IntegrityFlagReport) {
        var folded = flag
        folded.report.repeats = (folded.report.repeats ?? 0) + 1
        try await sql.update("quiz_flags").set("report", to: try QuizJSON.encode(folded.report))
            .where("id", .equal, folded.id).run()
        if let clientId = report.clientId {
            try await sql.insert(into: "quiz_flag_repeats").columns("flag_id", "attempt_id", "client_id")
                .values(SQLBind(folded.id), SQLBind(attemptID), SQLBind(clientId))
                .ignoringConflicts(with: ["attempt_id", "client_id"]).run()
        }
        return folded
    }

    /// Whether a report with this client id was received for the attempt already: kept as a flag of its own, or
    /// folded into one.
    package static func knows(_ clientId: String, attemptID: Int64, in sql: Transaction) async throws -> Bool {
        try await sql.raw(
            """
            SELECT 1 AS known FROM quiz_flags WHERE attempt_id = \(bind: attemptID) AND client_id = \(bind: clientId)
            UNION ALL
            SELECT 1 AS known FROM quiz_flag_repeats WHERE attempt_id = \(bind: attemptID) AND client_id = \(bind: clientId)
            """
        ).first() != nil
    }

    /// The flags of a run's attempts, oldest first.
    package func flags(runID: Int64) async throws -> [StoredFlag] {
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
                let report = try QuizJSON.decode(row.report, as: IntegrityFlagReport.self)
                return StoredFlag(
                    id: row.id, report: report, attemptId: row.attemptId, studentId: row.studentId, name: row.name,
                    receivedAt: row.receivedAt)
            }
        }
    }

    package struct FlagRow: Decodable {
        package var id: Int64
        package var attemptId: Int64
        package var report: String
        package var receivedAt: Date
        package var studentId: Int64
        package var name: String
    }

    // MARK: Marks

    package func mark(
        attemptID: Int64, questionID: String, points: Double, comment: String, by teacherID: Int64, now: Date = Date()
    ) async throws {
        // One statement: the teacher and an assistant marking the same answer at once leave the later mark.
        try await database.write { sql in
            try await sql.insert(into: "quiz_marks")
                .columns("attempt_id", "question_id", "points", "comment", "marked_by", "marked_at")
                .values(
                    SQLBind(attemptID), SQLBind(questionID), SQLBind(points), SQLBind(comment), SQLBind(teacherID),
                    SQLBind(now)
                )
                .onConflict(with: ["attempt_id", "question_id"]) {
                    $0.set(excludedValueOf: "points").set(excludedValueOf: "comment")
                        .set(excludedValueOf: "marked_by").set(excludedValueOf: "marked_at")
                }.run()
        }
    }

    /// A course's quiz runs and each attempt's points, as the gradebook weighs them; one student's attempts only
    /// when `studentID` is given, so that a student's page does not read the whole class's answers.
    package func gradebookResults(courseID: Int64, studentID: Int64? = nil) async throws
        -> (runs: [Gradebook.QuizRun], results: [Int64: [Int64: Gradebook.QuizResult]])
    {
        try await database.read { sql in
            let runs = try await QuizRuns.select(sql, where: "quizzes.course_id = \(bind: courseID)")
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
            for row in try await sql.raw("SELECT * FROM quiz_answers WHERE \(within)").all().map(
                QuizAttempts.AnswerRow.init)
            {
                answers[row.attemptId, default: [:]][row.questionId] = try QuizJSON.decode(row.answer)
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

    package struct GradedAttempt: Decodable {
        package var id: Int64
        package var runId: Int64
        package var studentId: Int64
    }

    /// Teachers' marks by attempt and question.
    package func handMarks(attemptIDs: [Int64]) async throws -> [Int64: [String: HandMark]] {
        guard !attemptIDs.isEmpty else { return [:] }
        let rows = try await database.read { sql in
            try await sql.select().column("*").from("quiz_marks").where("attempt_id", .in, attemptIDs)
                .all(decoding: HandMark.self, with: .rollcall)
        }
        return rows.reduce(into: [:]) { $0[$1.attemptId, default: [:]][$1.questionId] = $1 }
    }
}

/// A flag as stored, with the student it concerns.
package struct StoredFlag: Codable, Sendable, Equatable {
    package var id: Int64
    package var attemptId: Int64
    package var studentId: Int64
    package var name: String
    package var kind: IntegrityFlagKind
    package var label: String
    package var detail: String
    package var occurredAt: Date
    package var receivedAt: Date
    package var secondsAway: Double?
    package var characters: Int?
    package var width: Int?
    package var height: Int?
    package var questionId: String?
    package var repeats: Int?
}

extension StoredFlag {

    /// A flag as the teacher sees it, its label and details read from the stored report.
    package init(
        id: Int64, report: IntegrityFlagReport, attemptId: Int64, studentId: Int64, name: String, receivedAt: Date
    ) {
        self.init(
            id: id, attemptId: attemptId, studentId: studentId, name: name, kind: report.kind,
            label: report.kind.label, detail: report.detail, occurredAt: report.occurredAt, receivedAt: receivedAt,
            secondsAway: report.secondsAway, characters: report.characters, width: report.width,
            height: report.height, questionId: report.questionId, repeats: report.repeats)
    }
}

/// A teacher's mark of one answer.
package struct HandMark: Codable, Sendable, Equatable {
    package var attemptId: Int64
    package var questionId: String
    package var points: Double
    package var comment: String
    package var markedBy: Int64
    package var markedAt: Date
}
