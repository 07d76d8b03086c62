import Foundation
import RollcallCore
import RollcallStorage
import RollcallWords
import SQLKit

/// What the check-in adds to the record beside the status: where and from what it came. Ages out after retention.
package struct CheckInEvidence: Sendable {
    package var reading: LocationReading?
    package var distance: Double?
    package var deviceID: String?
    package var clientAddress: String?
    package var via: RecordSource

    package init(
        reading: LocationReading? = nil, distance: Double? = nil, deviceID: String? = nil, clientAddress: String? = nil,
        via: RecordSource
    ) {
        self.reading = reading
        self.distance = distance
        self.deviceID = deviceID
        self.clientAddress = clientAddress
        self.via = via
    }
}

/// What storing a check-in came to.
package enum CheckInOutcome: Sendable, Equatable {
    case recorded(AttendanceStatus, Date)
    /// A record existed already (a retry, or a second tab): it stands unchanged.
    case existing(AttendanceStatus, Date)
    /// Another student checked in from this device in this session first.
    case deviceTaken
    /// Another student checked in first with this ticket, scanned signed out.
    case ticketTaken
    /// A walk-in who may no longer join: the course was archived, or the account erased, since the check-in was
    /// decided.
    case joinRefused(EnrolmentRefusal)
}

/// What check-ins read and write beside the attendance rows: the student's standing, the group commit, device
/// bindings and flags for the teacher.
package struct CheckInStore: Sendable {
    package let database: Database
    /// One per server, so that every check-in joins the same group commit.
    package let batcher: CheckInBatcher
    /// One per server too, so that a room's check-ins read their standings together.
    private let standings: CheckInStandings

    package init(database: Database) {
        self.database = database
        self.batcher = CheckInBatcher(database: database)
        self.standings = CheckInStandings(database: database)
    }

    /// What the policy needs to know about this student in this session, with the session's times as they are
    /// now, read in one statement; `nil` when the session no longer exists.
    package func standing(sessionID: Int64, studentID: Int64, deviceID: String?, ticketHash: String?) async throws
        -> Standing?
    {
        try await standings.standing(
            .init(sessionID: sessionID, studentID: studentID, deviceID: deviceID ?? "", ticketHash: ticketHash ?? ""))
    }

    /// A student's place in a session before checking in.
    package struct Standing: Sendable {
        /// The session's times now.
        package var moment: SessionMoment
        package var enrolled: Bool
        /// The course lets a student not on its roster join from a scan.
        package var joinFromScan: Bool
        /// The course is archived: read-only, it takes no check-ins and no one joins.
        package var archived: Bool
        package var existing: (status: AttendanceStatus, at: Date)?
        package var deviceUsedByOther: Bool
        /// Another student already checked in with the ticket presented, which was scanned signed out.
        package var ticketUsedByOther: Bool
    }

    /// Raises a flag the teacher sees on the session (one phone checking in two students), with its live event, in
    /// the caller's transaction. Its details are kept as a phrase, said in each reader's language when read. A kind
    /// kept once per student (`FlagKind.refusedCheckIns`, by a unique index) writes nothing when the student has it
    /// already.
    package static func flag(
        sessionID: Int64, studentID: Int64?, otherStudentID: Int64? = nil, kind: FlagKind, detail words: Phrase,
        in sql: Transaction
    ) async throws {
        let detail = try words.storedText()
        var insert = sql.insert(into: "flags")
            .columns("session_id", "student_id", "other_student_id", "kind", "detail", "created_at")
            .values(
                SQLBind(sessionID), SQLBind(studentID), SQLBind(otherStudentID), SQLBind(kind.rawValue),
                SQLBind(detail), SQLBind(Date())
            )
        if FlagKind.refusedCheckIns.contains(kind) { insert = insert.ignoringConflicts() }
        let id = try await insert.returning("id").first(decodingColumn: "id", as: Int64.self)
        if FlagKind.refusedCheckIns.contains(kind) && id == nil { return }
        let flagged = SessionChange.Flagged(
            flagId: id, studentId: studentID, otherStudentId: otherStudentID, kind: kind, detail: detail)
        try await SessionEvents.append(.flagged(flagged), sessionID: sessionID, in: sql)
    }

    /// Whether the student already has a flag of `kind` in the session: a student retrying from afar is told
    /// again without a write.
    package func hasFlag(sessionID: Int64, studentID: Int64, kind: FlagKind) async throws -> Bool {
        try await database.read { sql in
            try await sql.select().column("id").from("flags").where("session_id", .equal, sessionID)
                .where("student_id", .equal, studentID).where("kind", .equal, kind.rawValue).first() != nil
        }
    }

    /// The student who checked in to the session from this device, and their name.
    package static func deviceOwner(sessionID: Int64, deviceID: String, in sql: any SQLDatabase) async throws
        -> (id: Int64, name: String)?
    {
        guard
            let row = try await sql.raw(
                """
                SELECT users.id, users.name FROM device_bindings JOIN users ON users.id = device_bindings.student_id
                WHERE device_bindings.session_id = \(bind: sessionID) AND device_bindings.device_id = \(bind: deviceID)
                """
            ).first()
        else { return nil }
        return (try row.decode(column: "id", as: Int64.self), try row.decode(column: "name", as: String.self))
    }

    /// The flags of a session, newest first.
    package func flags(sessionID: Int64) async throws -> [Flag] {
        try await database.read { sql in
            try await sql.select().column("*").from("flags").where("session_id", .equal, sessionID)
                .orderBy("id", .descending).all(decoding: Flag.self, with: .rollcall)
        }
    }

    /// What the projector shows of a session beside its fixed parts: its times now, the students counted in the room
    /// (present or late) and the students on the roster; `nil` when the session no longer exists. One statement, since
    /// every check-in in the room asks again.
    package func projected(sessionID: Int64) async throws -> Projected? {
        try await database.read { sql in
            guard
                let row = try await sql.raw(
                    """
                    SELECT sessions.opened_at, sessions.closes_at, sessions.closed_at, courses.name AS course_name,
                      (SELECT COUNT(*) FROM attendance WHERE attendance.session_id = sessions.id
                        AND attendance.status IN (\(bind: AttendanceStatus.present.rawValue), \(bind: AttendanceStatus.late.rawValue)))
                        AS checked_in,
                      (SELECT COUNT(*) FROM enrollments WHERE enrollments.course_id = sessions.course_id) AS enrolled
                    FROM sessions JOIN courses ON courses.id = sessions.course_id WHERE sessions.id = \(bind: sessionID)
                    """
                ).first()
            else { return nil }
            return Projected(
                moment: try SessionMoment(row), checkedIn: try row.decode(column: "checked_in", as: Int.self),
                enrolled: try row.decode(column: "enrolled", as: Int.self))
        }
    }

    /// A session's times now, and its room's counts, as the projector shows them.
    package struct Projected: Sendable {
        package var moment: SessionMoment
        package var checkedIn: Int
        package var enrolled: Int
    }
}

/// Something the teacher should look at, raised during a session.
package struct Flag: Codable, Sendable, Equatable {
    package var id: Int64
    package var sessionId: Int64
    package var studentId: Int64?
    /// The second student the flag names, if any.
    package var otherStudentId: Int64?
    package var kind: FlagKind
    /// The details, said in the reader's language (`said(to:)`): `detail` in JSON.
    package var words: Phrase
    package var createdAt: Date

    private enum CodingKeys: String, CodingKey {
        case id, sessionId, studentId, otherStudentId, kind, detail, createdAt
    }

    /// Reads a row, or an answer, whose `detail` is the stored phrase or text.
    package init(from decoder: any Decoder) throws {
        let row = try decoder.container(keyedBy: CodingKeys.self)
        id = try row.decode(Int64.self, forKey: .id)
        sessionId = try row.decode(Int64.self, forKey: .sessionId)
        studentId = try row.decodeIfPresent(Int64.self, forKey: .studentId)
        otherStudentId = try row.decodeIfPresent(Int64.self, forKey: .otherStudentId)
        kind = try row.decode(FlagKind.self, forKey: .kind)
        words = FlagWords.reading(try row.decode(String.self, forKey: .detail))
        createdAt = try row.decode(Date.self, forKey: .createdAt)
    }

    /// The flag with its details said to `reader`, as it is written for them.
    package func said(to reader: Reader) -> Flag {
        var said = self
        said.words = .verbatim(reader.say(words))
        return said
    }

    /// Writes the flag with its details as `said(to:)` left them; a flag nobody said reads in English.
    package func encode(to encoder: any Encoder) throws {
        var fields = encoder.container(keyedBy: CodingKeys.self)
        try fields.encode(id, forKey: .id)
        try fields.encode(sessionId, forKey: .sessionId)
        try fields.encodeIfPresent(studentId, forKey: .studentId)
        try fields.encodeIfPresent(otherStudentId, forKey: .otherStudentId)
        try fields.encode(kind, forKey: .kind)
        try fields.encode(words.description, forKey: .detail)
        try fields.encode(createdAt, forKey: .createdAt)
    }
}
