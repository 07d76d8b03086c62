import Foundation
import RollcallCore
import SQLKit

/// Something that happened in a session, as the teacher's live view is told of it.
enum SessionChange: Sendable, Equatable {
    /// A student checked in (QR, typed code, spot or API): a new attendance record.
    case checkedIn(CheckedIn)
    /// A teacher set a student's status by hand.
    case statusChanged(StatusChanged)
    /// Something for the teacher to look at, such as one phone used by two students.
    case flagged(Flagged)
    /// The session opened or closed.
    case phaseChanged(PhaseChanged)

    struct CheckedIn: Codable, Sendable, Equatable {
        var studentId: Int64
        var status: AttendanceStatus
        /// When the check-in was decided, by the server's clock.
        var at: Date
        /// `qr`, `typed`, `spot` or `api`.
        var via: String
    }

    struct StatusChanged: Codable, Sendable, Equatable {
        var studentId: Int64
        /// `nil` when the student had no record yet.
        var previous: AttendanceStatus?
        /// `nil` when the record was removed, so the student is "not yet" again.
        var status: AttendanceStatus?
        var reason: String?
        /// The teacher (or admin) who made the change.
        var changedBy: Int64
        var at: Date
    }

    struct Flagged: Codable, Sendable, Equatable {
        var flagId: Int64?
        var studentId: Int64?
        var kind: String
        var detail: String
    }

    struct PhaseChanged: Codable, Sendable, Equatable {
        var phase: SessionPhase
    }

    /// The stable name clients switch on.
    var kind: String {
        switch self {
        case .checkedIn: "checked_in"
        case .statusChanged: "status_changed"
        case .flagged: "flagged"
        case .phaseChanged(let change): change.phase == .closed ? "session_closed" : "session_opened"
        }
    }

    /// The details as JSON text, as stored and as sent in an event's `data`.
    func payload() throws -> String {
        let encoder = SessionEvents.encoder
        let data: Data
        switch self {
        case .checkedIn(let change): data = try encoder.encode(change)
        case .statusChanged(let change): data = try encoder.encode(change)
        case .flagged(let change): data = try encoder.encode(change)
        case .phaseChanged(let change): data = try encoder.encode(change)
        }
        return String(decoding: data, as: UTF8.self)
    }
}

/// One entry of a session's event log, as stored in `session_events`.
struct SessionEvent: Sendable, Equatable, Decodable {
    /// Increases with every event; within a session, in the order the changes committed.
    var id: Int64
    var sessionId: Int64
    var kind: String
    /// The change's details as JSON text.
    var payload: String
    /// When the event was written, inside the transaction of its change, just before that committed.
    var createdAt: Date
}

/// The event log of every session: what a live view replays to catch up, without losing or repeating anything.
///
/// An event is written in the same transaction as the change it describes, so it exists exactly when the change
/// committed. Within one session, events become visible in the order of their ids (SQLite has one writer; on
/// PostgreSQL, `append` takes a per-session lock held to the commit), so a reader that saw event `n` will never
/// later find an event below `n`: "everything after my last id" is always complete.
enum SessionEvents {
    /// Appends one change to a session's event log, inside the caller's transaction.
    ///
    /// Call it within `database.transaction { sql in … }` beside the change itself, and once the transaction has
    /// returned (committed), wake the live views with `database.live.published(sessionID:)`:
    ///
    /// ```swift
    /// try await database.transaction { sql in
    ///     // … update attendance …
    ///     try await SessionEvents.append(.statusChanged(change), sessionID: sessionID, in: sql)
    /// }
    /// database.live.published(sessionID: sessionID)
    /// ```
    ///
    /// - Parameters:
    ///   - change: what happened.
    ///   - sessionID: the session it happened in.
    ///   - sql: the transaction's connection.
    /// - Returns: the new event's id.
    @discardableResult
    static func append(_ change: SessionChange, sessionID: Int64, in sql: any SQLDatabase) async throws -> Int64 {
        try await append([(sessionID, change)], in: sql).last ?? 0
    }

    /// Appends several changes in one statement, in the given order; answers their ids in that order.
    ///
    /// One transaction should append once (or in increasing session order): on PostgreSQL each session's log is
    /// locked until the commit.
    @discardableResult
    static func append(
        _ changes: [(sessionID: Int64, change: SessionChange)], at now: Date = Date(), in sql: any SQLDatabase
    ) async throws -> [Int64] {
        guard !changes.isEmpty else { return [] }
        if sql.dialect.name == "postgresql" {
            // Holding the session's lock until the commit keeps a later id from becoming visible before an earlier
            // one: PostgreSQL hands out identity values before commit, in no particular commit order.
            // The notification goes out at the commit, and only then, to every process (`LiveNotifications`).
            for sessionID in Set(changes.map(\.sessionID)).sorted() {
                try await sql.raw(
                    """
                    SELECT pg_advisory_xact_lock(CAST(\(bind: Self.lockClass) AS INTEGER),
                      CAST(\(bind: sessionID % 2_147_483_647) AS INTEGER)),
                      pg_notify(\(bind: LiveNotifications.channel), \(bind: String(sessionID)))
                    """
                ).run()
            }
        }
        var ids: [Int64] = []
        // Rows per statement stay well under SQLite's limit of bound parameters.
        for part in stride(from: 0, to: changes.count, by: 500) {
            var insert = sql.insert(into: "session_events").columns("session_id", "kind", "payload", "created_at")
            for (sessionID, change) in changes[part..<min(part + 500, changes.count)] {
                insert = insert.values(
                    SQLBind(sessionID), SQLBind(change.kind), SQLBind(try change.payload()), SQLBind(now))
            }
            ids += try await insert.returning("id").all(decodingColumn: "id", as: Int64.self)
        }
        return ids.sorted()
    }

    /// The advisory lock class of event logs, apart from any other advisory lock.
    static let lockClass: Int64 = 0x5256_4c45

    /// The session's events after `id`, oldest first, at most `limit`.
    static func after(
        _ id: Int64, sessionID: Int64, limit: Int = 500, in sql: any SQLDatabase
    ) async throws -> [SessionEvent] {
        try await sql.select().column("*").from("session_events").where("session_id", .equal, sessionID)
            .where("id", .greaterThan, id).orderBy("id").limit(limit)
            .all(decoding: SessionEvent.self, with: UserStore.decoder)
    }

    /// The id of the session's latest event, or 0 when it has none.
    static func lastID(sessionID: Int64, in sql: any SQLDatabase) async throws -> Int64 {
        let row = try await sql.select().column(SQLFunction("MAX", args: SQLColumn("id")), as: "last")
            .from("session_events").where("session_id", .equal, sessionID).first()
        guard let row, try !row.decodeNil(column: "last") else { return 0 }
        return try row.decode(column: "last", as: Int64.self)
    }

    /// Whether `id` is one of the session's events: the only ids a client may resume after.
    static func contains(_ id: Int64, sessionID: Int64, in sql: any SQLDatabase) async throws -> Bool {
        try await sql.select().column("id").from("session_events").where("id", .equal, id)
            .where("session_id", .equal, sessionID).first() != nil
    }

    /// Dates with milliseconds: a live view measures and orders by them.
    static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .custom { date, encoder in
            var container = encoder.singleValueContainer()
            try container.encode(date.millisecondText)
        }
        encoder.outputFormatting = .sortedKeys
        return encoder
    }()
}

extension Date {
    /// ISO 8601 with milliseconds, in UTC: `2026-09-01T09:00:00.123Z`.
    var millisecondText: String {
        formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true))
    }
}

extension SessionEvents {
    /// Appends a `checked_in` event for each new record of a group commit, in the group's transaction.
    static func append(checkIns group: [PendingCheckIn], outcomes: [CheckInOutcome], in sql: any SQLDatabase)
        async throws
    {
        let changes = zip(group, outcomes).compactMap {
            (checkIn, outcome) -> (sessionID: Int64, change: SessionChange)? in
            guard case .recorded(let status, let at) = outcome else { return nil }
            let change = SessionChange.CheckedIn(
                studentId: checkIn.studentID, status: status, at: at, via: checkIn.evidence.via)
            return (checkIn.sessionID, .checkedIn(change))
        }
        try await append(changes, in: sql)
    }
}
