import Foundation
import Hummingbird
import HummingbirdWebSocket
import NIOCore
import RollcallCore
import RollcallModel
import RollcallParts
import RollcallStorage
import RollcallWeb
import RollcallWords
import SQLKit

/// The teacher's live quiz dashboard over a WebSocket, built like the live room (`LiveController`): a snapshot,
/// then every event of the run's log as it commits, resumable with `?after=N`.
///
/// Messages, all JSON text:
/// - `{"type":"snapshot", "run":{…}, "lastEventId":N, "students":[…], "others":[…], "attempts":[…], "flags":[…]}`
///   first, unless resuming; `students` are those who may take the quiz (checked in, or let in by hand), `others`
///   the course's other students, whom the teacher may let in;
/// - `{"type":"event", "id":N, "kind":…, "createdAt":…, "data":{…}}` for each event, in id order, each once.
///
/// The snapshot is read after its `lastEventId`, so an event just after that id may already show in it: every
/// event describes a state (an attempt's count, a flag by its id), and applying it twice changes nothing.
struct QuizLiveController: Sendable {
    let quizzes: QuizStore
    let database: Database
    let access: AccessRule
    let pageOrigin: PageOrigin

    func addRoutes(to router: AppRouter) {
        let socket = LiveSocket(
            database: database, feed: .quizRuns,
            unknownEvent: "This quiz has no event {0} to resume after. Reload the page for a fresh view.")
        socket.addRoute(
            to: router, path: QuizRoutes.live, pageOrigin: pageOrigin,
            crossSiteRefusal: "The quiz dashboard opens only from Rollcall's own pages.",
            authorize: { context in
                let (run, _) = try await access.run(in: context, needing: .manage)
                return (run.id, run)
            },
            stream: { run, reader, after, outbound in
                try await socket.stream(
                    key: run.id, after: after, to: outbound, for: reader,
                    snapshot: { try await snapshot(run, for: reader) })
            })
    }

    struct Student: Codable, Sendable {
        var id: Int64
        var name: String
        var studentNumber: String?
    }

    struct Snapshot: Encodable {
        var type = "snapshot"
        var run: QuizRunView
        var lastEventId: Int64
        var students: [Student]
        var others: [Student]
        var attempts: [QuizAttempts.AttemptEvent]
        var flags: [StoredFlag]
        var serverTime: Date
    }

    /// Those who may take the run's quiz: checked in to its session, or let in.
    func eligible(_ run: QuizRun) async throws -> [Student] {
        try await database.read { sql in
            try await sql.raw(
                """
                SELECT users.id, users.name, users.student_number FROM users
                WHERE users.id IN (
                  SELECT student_id FROM attendance
                  WHERE session_id = \(bind: run.sessionId) AND status IN ('present', 'late')
                  UNION SELECT student_id FROM quiz_admissions WHERE run_id = \(bind: run.id))
                ORDER BY users.name, users.id
                """
            ).all(decoding: Student.self, with: .rollcall)
        }
    }

    /// The course's students who may not take the quiz yet: not checked in, not let in. "Let in" is for them only;
    /// offered to a student in the room it would do nothing.
    func others(_ run: QuizRun) async throws -> [Student] {
        try await database.read { sql in
            try await sql.raw(
                """
                SELECT users.id, users.name, users.student_number FROM users
                WHERE users.id IN (SELECT student_id FROM enrollments WHERE course_id = \(bind: run.courseId))
                  AND users.id NOT IN (
                    SELECT student_id FROM attendance
                    WHERE session_id = \(bind: run.sessionId) AND status IN ('present', 'late')
                    UNION SELECT student_id FROM quiz_admissions WHERE run_id = \(bind: run.id))
                ORDER BY users.name, users.id
                """
            ).all(decoding: Student.self, with: .rollcall)
        }
    }

    func snapshot(_ run: QuizRun, for reader: Reader) async throws -> (String, Int64) {
        let last = try await database.read { sql in try await EventLog.lastID(key: run.id, in: .quizRuns, sql: sql) }
        let current = try await quizzes.runs.run(id: run.id) ?? run
        let message = Snapshot(
            run: .init(current), lastEventId: last, students: try await eligible(run), others: try await others(run),
            attempts: try await quizzes.attempts.list(runID: run.id, in: reader).map(QuizAttempts.AttemptEvent.init),
            flags: try await quizzes.marks.flags(runID: run.id), serverTime: Date())
        return (String(decoding: try SessionChange.encoder.encode(message), as: UTF8.self), last)
    }
}
