import Foundation
import RollcallCore
import RollcallStorage
import RollcallWords
import SQLKit

/// A session's room as its teacher sees it live: every enrolled student with their status, the counts, the flags,
/// and the id of the last event this picture already includes.
package struct Room: Codable, Sendable, Equatable {
    package struct Student: Codable, Sendable, Equatable {
        package var id: Int64
        package var name: String
        package var studentNumber: String?
        /// `nil` while the student has not checked in and nobody has marked them.
        package var status: AttendanceStatus?
        package var at: Date?
        /// How the record came to be.
        package var via: RecordSource?
        /// The teacher's own note on the record, never shown to the student.
        package var note: String?
        /// How many classmates' phones heard this student's, in a session that counts them; absent elsewhere.
        package var heardBy: Int?
    }

    package var sessionId: Int64
    package var lastEventId: Int64
    package var counts: RoomCounts
    package var students: [Student]
    package var flags: [Flag]

    package init(sessionId: Int64, lastEventId: Int64, counts: RoomCounts, students: [Student], flags: [Flag]) {
        self.sessionId = sessionId
        self.lastEventId = lastEventId
        self.counts = counts
        self.students = students
        self.flags = flags
    }
}

/// Reads a session's room: the picture a live view starts from, and the counts it refreshes.
package struct RoomStore: Sendable {
    package let database: Database

    package init(database: Database) {
        self.database = database
    }

    fileprivate struct Row {
        var lastEventId: Int64?
        var lastFlagId: Int64?
        var id: Int64?
        var name: String?
        var studentNumber: String?
        var status: String?
        var recordedAt: Date?
        var source: String?
        var note: String?
        var heardBy: Int?
        var joinedAt: Date?
        /// When the session ended, if it has: then a student on its roster with no record counts as absent.
        var endedAt: Date?
    }

    /// The roster with each student's record, and the last event and flag ids, in one statement: one statement
    /// reads one moment of the database on either engine, so `lastEventId` matches exactly what the rows show.
    private func rows(sessionID: Int64, courseID: Int64, now: Date) async throws -> [Row] {
        try await database.read { sql in
            try await sql.raw(
                """
                SELECT
                  (SELECT MAX(id) FROM session_events WHERE session_id = \(bind: sessionID)) AS last_event_id,
                  (SELECT MAX(id) FROM flags WHERE session_id = \(bind: sessionID)) AS last_flag_id,
                  users.id AS id, users.name AS name, users.student_number AS student_number,
                  attendance.status AS status, attendance.recorded_at AS recorded_at, attendance.source AS source,
                  attendance.note AS note,
                  (SELECT COUNT(*) FROM session_proximity WHERE session_proximity.session_id = \(bind: sessionID)
                    AND session_proximity.student_id = users.id AND session_proximity.announced = \(bind: true))
                    AS heard_by,
                  enrollments.joined_at AS joined_at, ended.at AS ended_at
                FROM (SELECT 1 AS one) AS one_row
                \(Self.ended(sessionID: sessionID, now: now))
                LEFT JOIN enrollments ON enrollments.course_id = \(bind: courseID)
                LEFT JOIN users ON users.id = enrollments.student_id
                LEFT JOIN attendance ON attendance.session_id = \(bind: sessionID) AND attendance.student_id = users.id
                ORDER BY users.name, users.id
                """
            ).all().map(Row.init(row:))
        }
    }

    /// The room now; flags written after its last event are left to the events that follow.
    /// `proximity`: the session counts classmates' phones, and each student says by how many.
    package func room(
        sessionID: Int64, courseID: Int64, proximity: Bool = false, in reader: Reader, now: Date = Date()
    ) async throws -> Room {
        let rows = try await rows(sessionID: sessionID, courseID: courseID, now: now)
        let listed = rows.compactMap { row -> Room.Student? in
            guard let id = row.id, let name = row.name else { return nil }
            return Room.Student(
                id: id, name: name, studentNumber: row.studentNumber,
                status: row.status.flatMap(AttendanceStatus.init(rawValue:)), at: row.recordedAt,
                via: row.source.flatMap(RecordSource.init(rawValue:)),
                note: row.note.flatMap { $0.isEmpty ? nil : $0 }, heardBy: proximity ? row.heardBy ?? 0 : nil
            )
        }
        let students = reader.collation.sorted(listed, name: \.name, id: \.id)
        let lastFlagId = rows.first?.lastFlagId ?? 0
        let flags = try await database.read { sql in
            try await sql.select().column("*").from("flags").where("session_id", .equal, sessionID)
                .where("id", .lessThanOrEqual, lastFlagId)
                .orderBy("id", .descending).all(decoding: Flag.self, with: .rollcall)
        }
        return Room(
            sessionId: sessionID, lastEventId: rows.first?.lastEventId ?? 0,
            counts: RoomCounts(statuses: rows.filter { $0.id != nil }.map(\.countedStatus)), students: students,
            flags: flags
        )
    }

    /// The counts alone, and the last event they include, summed by the database in one statement.
    package func counts(sessionID: Int64, courseID: Int64, now: Date = Date()) async throws
        -> (counts: RoomCounts, lastEventId: Int64)
    {
        try await database.read { sql in
            let row = try await sql.raw(
                """
                SELECT
                  (SELECT MAX(id) FROM session_events WHERE session_id = \(bind: sessionID)) AS last_event_id,
                  COUNT(enrollments.student_id) AS enrolled,
                  SUM(CASE WHEN attendance.status = 'present' THEN 1 ELSE 0 END) AS present,
                  SUM(CASE WHEN attendance.status = 'late' THEN 1 ELSE 0 END) AS late,
                  SUM(CASE WHEN attendance.status = 'excused' THEN 1 ELSE 0 END) AS excused,
                  SUM(CASE WHEN attendance.status = 'absent' THEN 1 ELSE 0 END) AS absent,
                  SUM(CASE WHEN attendance.status IS NULL AND enrollments.joined_at <= ended.at THEN 1 ELSE 0 END)
                    AS absent_unrecorded
                FROM (SELECT 1 AS one) AS one_row
                \(Self.ended(sessionID: sessionID, now: now))
                LEFT JOIN enrollments ON enrollments.course_id = \(bind: courseID)
                LEFT JOIN attendance
                  ON attendance.session_id = \(bind: sessionID) AND attendance.student_id = enrollments.student_id
                """
            ).first()
            guard let row else { return (RoomCounts(statuses: []), 0) }
            func number(_ column: String) throws -> Int {
                try row.decodeNil(column: column) ? 0 : try row.decode(column: column, as: Int.self)
            }
            let counts = RoomCounts(
                enrolled: try number("enrolled"), present: try number("present"), late: try number("late"),
                excused: try number("excused"), absent: try number("absent") + number("absent_unrecorded"))
            return (counts, Int64(try number("last_event_id")))
        }
    }

    /// Joins the session's end as `ended.at`, once it has ended; before then `ended.at` is NULL, so nobody without
    /// a record counts as absent yet.
    private static func ended(sessionID: Int64, now: Date) -> SQLQueryString {
        """
        LEFT JOIN (SELECT COALESCE(closed_at, closes_at) AS at FROM sessions
                   WHERE id = \(bind: sessionID) AND COALESCE(closed_at, closes_at) <= \(bind: now)) AS ended ON 1 = 1
        """
    }
}

extension RoomStore.Row {
    /// Reads a row column by column: Codable with snake-case keys spent most of a live view's opening converting
    /// the same twelve names again for each student (190 ms of the server's CPU for a room of 3,000).
    fileprivate init(row: any SQLRow) throws {
        lastEventId = try row.decodeIfPresent(column: "last_event_id", as: Int64.self)
        lastFlagId = try row.decodeIfPresent(column: "last_flag_id", as: Int64.self)
        id = try row.decodeIfPresent(column: "id", as: Int64.self)
        name = try row.decodeIfPresent(column: "name", as: String.self)
        studentNumber = try row.decodeIfPresent(column: "student_number", as: String.self)
        status = try row.decodeIfPresent(column: "status", as: String.self)
        recordedAt = try row.decodeIfPresent(column: "recorded_at", as: Date.self)
        source = try row.decodeIfPresent(column: "source", as: String.self)
        note = try row.decodeIfPresent(column: "note", as: String.self)
        heardBy = try row.decodeIfPresent(column: "heard_by", as: Int.self)
        joinedAt = try row.decodeIfPresent(column: "joined_at", as: Date.self)
        endedAt = try row.decodeIfPresent(column: "ended_at", as: Date.self)
    }

    /// The status the student counts with, as the records count it: the core's one definition of absent.
    fileprivate var countedStatus: AttendanceStatus? {
        AttendanceSummary.countedStatus(
            record: status.flatMap(AttendanceStatus.init(rawValue:)), closed: endedAt != nil,
            onRoster: joinedAt.flatMap { joined in endedAt.map { joined <= $0 } } ?? false)
    }
}
