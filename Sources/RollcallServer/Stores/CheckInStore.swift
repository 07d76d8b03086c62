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

    static let ticketLifetime: TimeInterval = 120

    func issueTicket(sessionID: Int64, step: Int64, scannedAt: Date, studentID: Int64?) async throws -> String {
        let token = OpaqueToken.make()
        try await database.read { sql in
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

    /// What the policy needs to know about this student in this session, read in one go.
    func standing(sessionID: Int64, courseID: Int64, studentID: Int64, deviceID: String?) async throws -> Standing {
        try await database.read { sql in
            let enrolled = try await CourseStore.isEnrolled(courseID: courseID, studentID: studentID, sql: sql)
            let existing = try await Self.existing(sessionID: sessionID, studentID: studentID, sql: sql)
            var deviceOwner: Int64?
            if let deviceID {
                deviceOwner = try await Self.deviceOwner(sessionID: sessionID, deviceID: deviceID, sql: sql)
            }
            return Standing(
                enrolled: enrolled, existing: existing,
                deviceUsedByOther: deviceOwner.map { $0 != studentID } ?? false
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

    static func deviceOwner(sessionID: Int64, deviceID: String, sql: any SQLDatabase) async throws -> Int64? {
        try await sql.select().column("student_id").from("device_bindings").where("session_id", .equal, sessionID)
            .where("device_id", .equal, deviceID).first(decodingColumn: "student_id", as: Int64.self)
    }

    /// Writes the check-in in one transaction, checking again inside it that nothing raced ahead of it.
    func record(
        sessionID: Int64, studentID: Int64, status: AttendanceStatus, at date: Date, evidence: CheckInEvidence,
        ticketHash: String?
    ) async throws -> CheckInOutcome {
        try await database.transaction { sql in
            if let existing = try await Self.existing(sessionID: sessionID, studentID: studentID, sql: sql) {
                return .existing(existing.status, existing.at)
            }
            if let device = evidence.deviceID {
                if let owner = try await Self.deviceOwner(sessionID: sessionID, deviceID: device, sql: sql) {
                    if owner != studentID { return .deviceTaken }
                } else {
                    try await sql.insert(into: "device_bindings")
                        .columns("session_id", "device_id", "student_id", "created_at")
                        .values(SQLBind(sessionID), SQLBind(device), SQLBind(studentID), SQLBind(date)).run()
                }
            }
            try await sql.insert(into: "attendance")
                .columns("session_id", "student_id", "status", "recorded_at", "source")
                .values(
                    SQLBind(sessionID), SQLBind(studentID), SQLBind(status.rawValue), SQLBind(date),
                    SQLBind(evidence.via)
                ).run()
            try await sql.insert(into: "check_in_evidence")
                .columns(
                    "session_id", "student_id", "latitude", "longitude", "accuracy", "distance", "device_id",
                    "client_address", "via", "created_at"
                )
                .values(
                    SQLBind(sessionID), SQLBind(studentID), SQLBind(evidence.reading?.point.latitude),
                    SQLBind(evidence.reading?.point.longitude), SQLBind(evidence.reading?.accuracy),
                    SQLBind(evidence.distance), SQLBind(evidence.deviceID), SQLBind(evidence.clientAddress),
                    SQLBind(evidence.via), SQLBind(date)
                ).run()
            if let ticketHash {
                try await sql.update("check_in_tickets").set("student_id", to: studentID)
                    .where("token_hash", .equal, ticketHash).run()
            }
            return .recorded(status, date)
        }
    }

    /// Raises a flag the teacher sees on the session, such as one phone checking in two students.
    func flag(sessionID: Int64, studentID: Int64?, kind: String, detail: String) async throws {
        try await database.read { sql in
            try await sql.insert(into: "flags").columns("session_id", "student_id", "kind", "detail", "created_at")
                .values(SQLBind(sessionID), SQLBind(studentID), SQLBind(kind), SQLBind(detail), SQLBind(Date())).run()
        }
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
