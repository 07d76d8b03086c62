import Foundation
import Hummingbird
import HummingbirdWebSocket
import NIOCore
import RollcallCore
import SQLKit
import ServiceLifecycle

/// The teacher's live quiz dashboard over a WebSocket, built like the live room (`LiveController`): a snapshot,
/// then every event of the run's log as it commits, resumable with `?after=N`.
///
/// Messages, all JSON text:
/// - `{"type":"snapshot", "run":{…}, "lastEventId":N, "students":[…], "attempts":[…], "flags":[…]}` first, unless
///   resuming; `students` are those who may take the quiz (checked in, or let in by hand);
/// - `{"type":"event", "id":N, "kind":…, "createdAt":…, "data":{…}}` for each event, in id order, each once.
///
/// The snapshot is read after its `lastEventId`, so an event just after that id may already show in it: every
/// event describes a state (an attempt's count, a flag by its id), and applying it twice changes nothing.
struct QuizLiveController: Sendable {
    let quizzes: QuizStore
    let database: Database
    let access: AccessRule
    let pageOrigin: PageOrigin

    func addRoutes(to router: Router<AppRequestContext>) {
        router.ws(
            QuizRoutes.live,
            shouldUpgrade: { request, context in
                guard !pageOrigin.crossSite(request, context) else {
                    throw AppError.forbidden("The quiz dashboard opens only from Rollcall's own pages.")
                }
                let (run, _) = try await QuizzesController.run(
                    context, quizzes: quizzes, access: access, needing: .manage)
                _ = try await resumePoint(request, runID: run.id)
                try request.requireWebSocketUpgrade()
                return .upgrade([:])
            },
            onUpgrade: { inbound, outbound, context in
                let (run, _) = try await QuizzesController.run(
                    context.requestContext, quizzes: quizzes, access: access, needing: .manage)
                let after = try await resumePoint(context.request, runID: run.id)
                try await withThrowingTaskGroup(of: Void.self) { group in
                    group.addTask { for try await _ in inbound {} }
                    group.addTask { try await stream(run, after: after, to: outbound) }
                    try await group.next()
                    group.cancelAll()
                }
            }
        )
    }

    func resumePoint(_ request: Request, runID: Int64) async throws -> Int64? {
        guard let text = request.uri.queryParameters.get("after") else { return nil }
        guard let after = Int64(text), after >= 0 else {
            throw AppError(
                .badRequest, "invalid_after", "“after” must be the id of the last event received, such as 42.")
        }
        if after > 0 {
            let known = try await database.read { sql in try await QuizEvents.contains(after, runID: runID, in: sql) }
            guard known else {
                throw AppError(
                    .badRequest, "invalid_after",
                    "This quiz has no event \(after) to resume after. Reload the page for a fresh view.")
            }
        }
        return after
    }

    struct Student: Codable, Sendable {
        var id: Int64
        var name: String
        var studentNumber: String?
    }

    struct Snapshot: Encodable {
        var type = "snapshot"
        var run: QuizzesController.RunView
        var lastEventId: Int64
        var students: [Student]
        var attempts: [QuizStore.AttemptEvent]
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

    func snapshot(_ run: QuizRun) async throws -> (String, Int64) {
        let last = try await database.read { sql in try await QuizEvents.lastID(runID: run.id, in: sql) }
        let current = try await quizzes.run(id: run.id) ?? run
        let message = Snapshot(
            run: .init(current), lastEventId: last, students: try await eligible(run),
            attempts: try await quizzes.attempts(runID: run.id).map(QuizStore.AttemptEvent.init),
            flags: try await quizzes.flags(runID: run.id), serverTime: Date())
        return (String(decoding: try SessionChange.encoder.encode(message), as: UTF8.self), last)
    }

    func stream(_ run: QuizRun, after: Int64?, to outbound: WebSocketOutboundWriter) async throws {
        try await database.quizLive.subscribe(sessionID: run.id) { subscription in
            var last: Int64
            if let after {
                last = after
            } else {
                let (text, lastEventId) = try await snapshot(run)
                try await outbound.write(.text(text))
                last = lastEventId
            }
            while !Task.isCancelled {
                while true {
                    let events = try await database.read { [last] sql in
                        try await QuizEvents.after(last, runID: run.id, limit: LiveController.pageSize, in: sql)
                    }
                    for event in events where event.id > last {
                        try await outbound.write(
                            .text(
                                #"{"createdAt":"\#(event.createdAt.millisecondText)","data":\#(event.payload),"id":\#(event.id),"kind":"\#(event.kind)","type":"event"}"#
                            ))
                        last = event.id
                    }
                    if events.count < LiveController.pageSize { break }
                }
                await subscription.next(timeout: LiveController.catchUpInterval)
            }
        }
    }
}

/// Closes attempts whose time is up every few seconds, so that the dashboard sees them close even when no one
/// reads them.
struct QuizSweep: Service {
    let quizzes: QuizStore
    let interval: Duration
    let ready: AsyncStream<Void>

    func run() async throws {
        try await Periodically(interval: interval, ready: ready) { _ = try await quizzes.closeOverdue() }.run()
    }
}
