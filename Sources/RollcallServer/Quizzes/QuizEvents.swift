import Foundation
import RollcallCore
import SQLKit

/// The stable names of a quiz run's events, which the dashboard switches on.
enum QuizEventKind: String, Codable, Sendable, CaseIterable {
    case runStopped = "run_stopped"
    case admitted
    case attemptStarted = "attempt_started"
    case answered
    case attemptClosed = "attempt_closed"
    case timeAdded = "time_added"
    case flagged
}

/// Something that happened in a quiz run, as its dashboard is told of it.
struct QuizChange: Sendable {
    var kind: QuizEventKind
    /// The details, encoded as the event's JSON payload.
    var payload: any Encodable & Sendable

    func payloadText() throws -> String {
        String(decoding: try SessionChange.encoder.encode(payload), as: UTF8.self)
    }
}

/// One entry of a quiz run's event log, as stored in `quiz_events`.
struct QuizEvent: Sendable, Equatable, Decodable {
    var id: Int64
    var runId: Int64
    var kind: String
    var payload: String
    var createdAt: Date
}

/// The event log of every quiz run, written like a session's (`SessionEvents`): inside the change's transaction,
/// visible in id order, so that a dashboard resuming after its last id misses nothing and repeats nothing.
enum QuizEvents {
    /// The advisory lock class of quiz logs, apart from the sessions' (`SessionEvents.lockClass`).
    static let lockClass: Int64 = 0x5256_5155

    /// Appends changes to a run's log inside the caller's transaction; the commit wakes the run's dashboards.
    @discardableResult
    static func append(_ changes: [QuizChange], runID: Int64, at now: Date = Date(), in sql: Transaction)
        async throws -> [Int64]
    {
        guard !changes.isEmpty else { return [] }
        sql.touched(quizRunID: runID)
        if sql.dialect.name == "postgresql" {
            try await sql.raw(
                """
                SELECT pg_advisory_xact_lock(CAST(\(bind: Self.lockClass) AS INTEGER),
                  CAST(\(bind: runID % 2_147_483_647) AS INTEGER)),
                  pg_notify(\(bind: LiveNotifications.channel), \(bind: LiveNotifications.quizPrefix + String(runID)))
                """
            ).run()
        }
        var insert = sql.insert(into: "quiz_events").columns("run_id", "kind", "payload", "created_at")
        for change in changes {
            insert = insert.values(
                SQLBind(runID), SQLBind(change.kind.rawValue), SQLBind(try change.payloadText()), SQLBind(now))
        }
        return try await insert.returning("id").all(decodingColumn: "id", as: Int64.self).sorted()
    }

    /// The run's events after `id`, oldest first, at most `limit`.
    static func after(_ id: Int64, runID: Int64, limit: Int = 500, in sql: any SQLDatabase) async throws
        -> [QuizEvent]
    {
        try await sql.select().column("*").from("quiz_events").where("run_id", .equal, runID)
            .where("id", .greaterThan, id).orderBy("id").limit(limit)
            .all(decoding: QuizEvent.self, with: .rollcall)
    }

    /// Whether `id` is one of the run's events: the only ids a dashboard may resume after.
    static func contains(_ id: Int64, runID: Int64, in sql: any SQLDatabase) async throws -> Bool {
        try await sql.select().column("id").from("quiz_events").where("id", .equal, id)
            .where("run_id", .equal, runID).first() != nil
    }

    /// The id of the run's latest event, or 0.
    static func lastID(runID: Int64, in sql: any SQLDatabase) async throws -> Int64 {
        let row = try await sql.select().column(SQLFunction("MAX", args: SQLColumn("id")), as: "last")
            .from("quiz_events").where("run_id", .equal, runID).first()
        guard let row, try !row.decodeNil(column: "last") else { return 0 }
        return try row.decode(column: "last", as: Int64.self)
    }
}
