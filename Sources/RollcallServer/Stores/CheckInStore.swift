import Foundation
import RollcallCore
import SQLKit

/// A scan of the projected code, pinned so that signing in or a slow phone cannot make a fresh scan expire.
struct CheckInTicket: Sendable, Equatable {
    var tokenHash: String
    var sessionId: Int64
    /// The code step that was scanned; the ticket carries its freshness.
    var step: Int64
    var scannedAt: Date
    var expiresAt: Date
    /// The first student to use the ticket; nobody else can.
    var studentId: Int64?
}

/// What the check-in adds to the record beside the status: where and from what it came. Ages out after retention.
struct CheckInEvidence: Sendable {
    var reading: LocationReading?
    var distance: Double?
    var deviceID: String?
    var clientAddress: String?
    /// `qr`, `typed`, `spot` or `api`.
    var via: String
}

/// What storing a check-in came to.
enum CheckInOutcome: Sendable, Equatable {
    case recorded(AttendanceStatus, Date)
    /// A record existed already (a retry, or a second tab): it stands unchanged.
    case existing(AttendanceStatus, Date)
    /// Another student checked in from this device in this session first.
    case deviceTaken
}

/// Tickets, the attendance rows check-ins write, device bindings and flags for the teacher.
struct CheckInStore: Sendable {
    let database: Database
    let batcher: CheckInBatcher

    init(database: Database) {
        self.database = database
        self.batcher = CheckInBatcher(database: database)
    }

    static let ticketLifetime: TimeInterval = 120

    func issueTicket(sessionID: Int64, step: Int64, scannedAt: Date, studentID: Int64?) async throws -> String {
        let token = OpaqueToken.make()
        try await database.write { sql in
            try await sql.insert(into: "check_in_tickets")
                .columns("token_hash", "session_id", "step", "scanned_at", "expires_at", "student_id")
                .values(
                    SQLBind(OpaqueToken.digest(token)), SQLBind(sessionID), SQLBind(step), SQLBind(scannedAt),
                    SQLBind(scannedAt.addingTimeInterval(Self.ticketLifetime)), SQLBind(studentID)
                ).run()
        }
        return token
    }

    func ticket(_ token: String) async throws -> CheckInTicket? {
        try await database.read { sql in
            try await sql.select().column("*").from("check_in_tickets")
                .where("token_hash", .equal, OpaqueToken.digest(token))
                .first(decoding: CheckInTicket.self, with: UserStore.decoder)
        }
    }

    /// What the policy needs to know about this student in this session, read in one statement.
    func standing(sessionID: Int64, courseID: Int64, studentID: Int64, deviceID: String?) async throws -> Standing {
        try await database.read { sql in
            let row = try await sql.raw(
                """
                SELECT
                  (SELECT COUNT(*) FROM enrollments WHERE course_id = \(bind: courseID) AND student_id = \(bind: studentID))
                    AS enrolled,
                  (SELECT status FROM attendance WHERE session_id = \(bind: sessionID) AND student_id = \(bind: studentID))
                    AS status,
                  (SELECT recorded_at FROM attendance WHERE session_id = \(bind: sessionID) AND student_id = \(bind: studentID))
                    AS recorded_at,
                  (SELECT student_id FROM device_bindings WHERE session_id = \(bind: sessionID) AND device_id = \(bind: deviceID ?? ""))
                    AS device_owner
                """
            ).first()
            guard let row else { return Standing(enrolled: false, existing: nil, deviceUsedByOther: false) }
            let status = try row.decodeNil(column: "status") ? nil : try row.decode(column: "status", as: String.self)
            let existing = try status.flatMap(AttendanceStatus.init(rawValue:)).map { status in
                (status: status, at: try row.decode(column: "recorded_at", as: Date.self))
            }
            let owner =
                try row.decodeNil(column: "device_owner") ? nil : try row.decode(column: "device_owner", as: Int64.self)
            return Standing(
                enrolled: try row.decode(column: "enrolled", as: Int.self) > 0, existing: existing,
                deviceUsedByOther: owner.map { $0 != studentID } ?? false
            )
        }
    }

    /// A student's place in a session before checking in.
    struct Standing: Sendable {
        var enrolled: Bool
        var existing: (status: AttendanceStatus, at: Date)?
        var deviceUsedByOther: Bool
    }

    static func existing(
        sessionID: Int64, studentID: Int64, sql: any SQLDatabase
    ) async throws -> (status: AttendanceStatus, at: Date)? {
        guard
            let row = try await sql.select().columns("status", "recorded_at").from("attendance")
                .where("session_id", .equal, sessionID).where("student_id", .equal, studentID).first(),
            let status = AttendanceStatus(rawValue: try row.decode(column: "status", as: String.self))
        else { return nil }
        return (status, try row.decode(column: "recorded_at", as: Date.self))
    }

    /// Writes the check-in, grouped with whatever else arrives at the same moment; see `CheckInBatcher`.
    func record(
        sessionID: Int64, studentID: Int64, status: AttendanceStatus, at date: Date, evidence: CheckInEvidence,
        unboundTicket ticketHash: String?
    ) async throws -> CheckInOutcome {
        try await batcher.record(
            PendingCheckIn(
                sessionID: sessionID, studentID: studentID, status: status, at: date, evidence: evidence,
                unboundTicket: ticketHash
            )
        )
    }

    /// Raises a flag the teacher sees on the session, such as one phone checking in two students.
    func flag(sessionID: Int64, studentID: Int64?, kind: String, detail: String) async throws {
        try await database.transaction { sql in
            let id = try await sql.insert(into: "flags")
                .columns("session_id", "student_id", "kind", "detail", "created_at")
                .values(SQLBind(sessionID), SQLBind(studentID), SQLBind(kind), SQLBind(detail), SQLBind(Date()))
                .returning("id").first(decodingColumn: "id", as: Int64.self)
            let flagged = SessionChange.Flagged(flagId: id, studentId: studentID, kind: kind, detail: detail)
            try await SessionEvents.append(.flagged(flagged), sessionID: sessionID, in: sql)
        }
        database.live.published(sessionID: sessionID)
    }

    /// The flags of a session, newest first.
    func flags(sessionID: Int64) async throws -> [Flag] {
        try await database.read { sql in
            try await sql.select().column("*").from("flags").where("session_id", .equal, sessionID)
                .orderBy("id", .descending).all(decoding: Flag.self, with: UserStore.decoder)
        }
    }

    /// Students counted in the room: present or late.
    func checkedInCount(sessionID: Int64) async throws -> Int {
        try await database.read { sql in
            try await sql.select().column(SQLFunction("COUNT", args: SQLLiteral.all), as: "n").from("attendance")
                .where("session_id", .equal, sessionID)
                .where("status", .in, [AttendanceStatus.present.rawValue, AttendanceStatus.late.rawValue])
                .first(decodingColumn: "n", as: Int.self) ?? 0
        }
    }
}

extension CheckInTicket: Decodable {}

/// Something the teacher should look at, raised during a session.
struct Flag: Codable, Sendable, Equatable {
    var id: Int64
    var sessionId: Int64
    var studentId: Int64?
    var kind: String
    var detail: String
    var createdAt: Date
}
