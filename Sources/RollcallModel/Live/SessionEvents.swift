import Foundation
import RollcallCore
import RollcallProtocol
import RollcallStorage
import RollcallWords
import SQLKit

/// One entry of a session's event log, as stored in `session_events`.
package struct SessionEvent: Sendable, Equatable {
    /// Increases with every event; within a session, in the order the changes committed.
    package var id: Int64
    package var sessionId: Int64
    package var kind: SessionEventKind
    /// The change's details as JSON text.
    package var payload: String
    /// When the event was written, inside the transaction of its change, just before that committed.
    package var createdAt: Date
}

/// The sessions' feed of the event log (`EventLog`), typed: what a session's room replays to catch up.
package enum SessionEvents {
    /// Appends one change to a session's event log, inside the caller's transaction, beside the change itself.
    /// Once the transaction has committed, `Database.transaction` wakes the session's live views.
    ///
    /// - Parameters:
    ///   - change: what happened.
    ///   - sessionID: the session it happened in.
    ///   - sql: the transaction.
    /// - Returns: the new event's id.
    @discardableResult
    package static func append(_ change: SessionChange, sessionID: Int64, in sql: Transaction) async throws -> Int64 {
        try await append([(sessionID, change)], in: sql).last ?? 0
    }

    /// Appends several changes in one statement, in the given order; answers their ids in that order.
    @discardableResult
    package static func append(
        _ changes: [(sessionID: Int64, change: SessionChange)], at now: Date = Date(), in sql: Transaction
    ) async throws -> [Int64] {
        try await EventLog.append(
            try changes.map { ($0.sessionID, $0.change.kind.rawValue, try $0.change.payload()) }, to: .sessions,
            at: now,
            in: sql)
    }

    /// The session's events after `id`, oldest first, at most `limit`.
    package static func after(
        _ id: Int64, sessionID: Int64, limit: Int = 500, in sql: any SQLDatabase
    ) async throws -> [SessionEvent] {
        try await EventLog.after(id, key: sessionID, in: .sessions, limit: limit, sql: sql).compactMap { event in
            SessionEventKind(rawValue: event.kind).map {
                SessionEvent(
                    id: event.id, sessionId: event.key, kind: $0, payload: event.payload, createdAt: event.createdAt)
            }
        }
    }

    /// An event as a live view sends it, with the phrases it stores (a flag's details, an undo's reason) said in the
    /// language of whoever the view is for.
    package static func said(_ event: LoggedEvent, to reader: Reader) throws -> String {
        var said = event
        switch SessionEventKind(rawValue: event.kind) {
        case .flagged:
            var flagged = try JSONCoding.decoder.decode(SessionChange.Flagged.self, from: Data(event.payload.utf8))
            flagged.detail = reader.say(FlagWords.reading(flagged.detail))
            said.payload = try SessionChange.flagged(flagged).payload()
        case .statusChanged where event.payload.contains(#"\u0001"#):
            var changed = try JSONCoding.decoder.decode(
                SessionChange.StatusChanged.self, from: Data(event.payload.utf8))
            changed.reason = changed.reason.map { reader.say(Phrase.stored($0)) }
            said.payload = try SessionChange.statusChanged(changed).payload()
        default: break
        }
        return said.message
    }

    /// The id of the session's latest event, or 0 when it has none.
    package static func lastID(sessionID: Int64, in sql: any SQLDatabase) async throws -> Int64 {
        try await EventLog.lastID(key: sessionID, in: .sessions, sql: sql)
    }
}
