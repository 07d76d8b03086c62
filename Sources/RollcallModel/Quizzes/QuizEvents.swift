import Foundation
import RollcallCore
import RollcallStorage
import SQLKit

/// The stable names of a quiz run's events, which the dashboard switches on.
package enum QuizEventKind: String, Codable, Sendable, CaseIterable {
    case runStopped = "run_stopped"
    case admitted
    case attemptStarted = "attempt_started"
    case answered
    case attemptClosed = "attempt_closed"
    case timeAdded = "time_added"
    case flagged
}

/// Something that happened in a quiz run, as its dashboard is told of it.
package struct QuizChange: Sendable {
    package var kind: QuizEventKind
    /// The details, encoded as the event's JSON payload.
    package var payload: any Encodable & Sendable

    package func payloadText() throws -> String {
        String(decoding: try SessionChange.encoder.encode(payload), as: UTF8.self)
    }
}

/// The quiz runs' feed of the event log (`EventLog`): written like a session's, inside the change's transaction,
/// so that a dashboard resuming after its last id misses nothing and repeats nothing.
package enum QuizEvents {
    /// Appends changes to a run's log inside the caller's transaction; the commit wakes the run's dashboards.
    @discardableResult
    package static func append(_ changes: [QuizChange], runID: Int64, at now: Date = Date(), in sql: Transaction)
        async throws -> [Int64]
    {
        try await append(changes.map { (runID, $0) }, at: now, in: sql)
    }

    /// Appends changes to several runs' logs at once, in one statement however many runs.
    @discardableResult
    package static func append(_ changes: [(runID: Int64, change: QuizChange)], at now: Date, in sql: Transaction)
        async throws -> [Int64]
    {
        try await EventLog.append(
            try changes.map { ($0.runID, $0.change.kind.rawValue, try $0.change.payloadText()) }, to: .quizRuns,
            at: now, in: sql)
    }
}
