import Foundation
import RollcallCore
import RollcallStorage
import SQLKit

/// Reads check-ins' standings in groups on PostgreSQL (`GroupedReads`). A room checking in at once asked one statement
/// each before the group commit. A standing asked for alone is read at once, as before; one asked for after a write
/// sees it, since a group starts only after its callers asked.
struct CheckInStandings: Sendable {
    /// One check-in's question: this student, on this device, with this ticket, in this session.
    struct Ask: Sendable, Hashable {
        var sessionID: Int64
        var studentID: Int64
        var deviceID: String
        var ticketHash: String
    }

    private let reads: GroupedReads<Ask, CheckInStore.Standing>

    init(database: Database) {
        reads = GroupedReads(database: database) { asks in try await Self.read(asks, database: database) }
    }

    /// The standing `ask` is about, with whatever else is asked meanwhile; `nil` when the session no longer exists.
    func standing(_ ask: Ask) async throws -> CheckInStore.Standing? {
        try await reads.value(of: ask)
    }

    /// The standings of `asks`, each by its question. The attendance row is read by two subqueries rather than
    /// joined: PostgreSQL's prepared plan for the join scanned the session's whole attendance for each question, or
    /// the whole table, where a subquery probes the key.
    private static func read(_ asks: [Ask], database: Database) async throws -> [Ask: CheckInStore.Standing] {
        let padded = GroupedReads<Ask, CheckInStore.Standing>.padded(asks)
        let values = SQLList(
            padded.enumerated().map { index, ask in
                SQLQueryString(
                    "(\(bind: index), \(bind: ask.sessionID), \(bind: ask.studentID), \(bind: ask.deviceID), \(bind: ask.ticketHash))"
                )
            })
        let rows = try await database.read { sql in
            try await sql.raw(
                """
                WITH ask(n, session_id, student_id, device_id, ticket_hash) AS (VALUES \(values))
                SELECT ask.n, sessions.opened_at, sessions.closes_at, sessions.closed_at,
                  courses.name AS course_name, courses.join_from_scan, courses.archived_at,
                  (SELECT COUNT(*) FROM enrollments
                    WHERE enrollments.course_id = sessions.course_id AND enrollments.student_id = ask.student_id)
                    AS enrolled,
                  (SELECT status FROM attendance
                    WHERE attendance.session_id = ask.session_id AND attendance.student_id = ask.student_id)
                    AS status,
                  (SELECT recorded_at FROM attendance
                    WHERE attendance.session_id = ask.session_id AND attendance.student_id = ask.student_id)
                    AS recorded_at,
                  (SELECT student_id FROM device_bindings
                    WHERE device_bindings.session_id = sessions.id AND device_bindings.device_id = ask.device_id)
                    AS device_owner,
                  (SELECT student_id FROM check_in_evidence WHERE ticket_hash = ask.ticket_hash) AS ticket_owner
                FROM ask JOIN sessions ON sessions.id = ask.session_id JOIN courses ON courses.id = sessions.course_id
                """
            ).all()
        }
        var found: [Ask: CheckInStore.Standing] = [:]
        for row in rows {
            let ask = padded[try row.decode(column: "n", as: Int.self)]
            found[ask] = try standing(row, studentID: ask.studentID)
        }
        return found
    }

    private static func standing(_ row: any SQLRow, studentID: Int64) throws -> CheckInStore.Standing {
        let status = try row.decodeIfPresent(column: "status", as: String.self)
        let existing = try status.flatMap(AttendanceStatus.init(rawValue:)).map { status in
            (status: status, at: try row.decode(column: "recorded_at", as: Date.self))
        }
        let owner = try row.decodeIfPresent(column: "device_owner", as: Int64.self)
        let ticketOwner = try row.decodeIfPresent(column: "ticket_owner", as: Int64.self)
        return CheckInStore.Standing(
            moment: try SessionMoment(row), enrolled: try row.decode(column: "enrolled", as: Int.self) > 0,
            joinFromScan: try row.decode(column: "join_from_scan", as: Bool.self),
            archived: try !row.decodeNil(column: "archived_at"),
            existing: existing, deviceUsedByOther: owner.map { $0 != studentID } ?? false,
            ticketUsedByOther: ticketOwner.map { $0 != studentID } ?? false
        )
    }
}
