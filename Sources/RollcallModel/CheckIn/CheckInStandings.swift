import Foundation
import RollcallCore
import RollcallStorage
import SQLKit

/// Reads check-ins' standings in groups (`StatementGroups`) on PostgreSQL, one statement per group. A room checking
/// in at once asked one statement each before the group commit, and on PostgreSQL each costs the server more than
/// the reading. A standing asked for alone is read at once, as before; one asked for after a write sees it, since a
/// group starts only after its callers asked. SQLite reads each at once, in parallel: its statements cost no
/// protocol, and one group at a time would only queue them.
struct CheckInStandings: Sendable {
    /// One check-in's question: this student, on this device, with this ticket, in this session.
    struct Ask: Sendable, Hashable {
        var sessionID: Int64
        var studentID: Int64
        var deviceID: String
        var ticketHash: String
    }

    private let groups: StatementGroups<Ask, CheckInStore.Standing?>?
    private let database: Database
    /// A group's list of questions is padded to one of these lengths, so that four statements serve every group and
    /// each stays prepared on PostgreSQL.
    static let listLengths = [1, 4, 16, 64]

    init(database: Database) {
        self.database = database
        guard database.engine == .postgres else {
            groups = nil
            return
        }
        groups = StatementGroups(largest: Self.listLengths.last!) { asks in
            do {
                let unique = Array(Set(asks))
                let found = try await Self.read(unique, database: database)
                let byAsk = Dictionary(uniqueKeysWithValues: zip(unique, unique.indices.map { found[$0] }))
                return asks.map { .success(byAsk[$0] ?? nil) }
            } catch {
                return asks.map { _ in .failure(error) }
            }
        }
    }

    /// The standing `ask` is about, with whatever else is asked meanwhile; `nil` when the session no longer exists.
    func standing(_ ask: Ask) async throws -> CheckInStore.Standing? {
        guard let groups else { return try await Self.read([ask], database: database)[0] }
        return try await groups.submit(ask)
    }

    /// The standings of `asks`, by their place in it. The attendance row is read by two subqueries rather than
    /// joined: PostgreSQL's prepared plan for the join scanned the session's whole attendance for each question, or
    /// the whole table, where a subquery probes the key.
    private static func read(_ asks: [Ask], database: Database) async throws -> [Int: CheckInStore.Standing] {
        let length = listLengths.first { $0 >= asks.count } ?? asks.count
        let padded = asks + Array(repeating: asks[0], count: length - asks.count)
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
        var found: [Int: CheckInStore.Standing] = [:]
        for row in rows {
            let index = try row.decode(column: "n", as: Int.self)
            guard index < asks.count else { continue }
            found[index] = try standing(row, studentID: asks[index].studentID)
        }
        return found
    }

    private static func standing(_ row: any SQLRow, studentID: Int64) throws -> CheckInStore.Standing {
        func optional<T: Decodable>(_ column: String, _ type: T.Type) throws -> T? {
            try row.decodeNil(column: column) ? nil : try row.decode(column: column, as: type)
        }
        let existing = try optional("status", String.self).flatMap(AttendanceStatus.init(rawValue:)).map { status in
            (status: status, at: try row.decode(column: "recorded_at", as: Date.self))
        }
        let owner = try optional("device_owner", Int64.self)
        let ticketOwner = try optional("ticket_owner", Int64.self)
        return CheckInStore.Standing(
            moment: try SessionMoment(row), enrolled: try row.decode(column: "enrolled", as: Int.self) > 0,
            joinFromScan: try row.decode(column: "join_from_scan", as: Bool.self),
            archived: try !row.decodeNil(column: "archived_at"),
            existing: existing, deviceUsedByOther: owner.map { $0 != studentID } ?? false,
            ticketUsedByOther: ticketOwner.map { $0 != studentID } ?? false
        )
    }
}
