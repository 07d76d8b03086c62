import Foundation
import RollcallCore
import SQLKit

/// A teacher's change of one student's status in one session, as the audit log keeps it.
struct AuditEntry: Codable, Sendable, Equatable {
    var id: Int64
    var sessionId: Int64
    var sessionTitle: String
    var studentId: Int64
    var studentName: String
    var changedBy: Int64
    var changedByName: String
    var changedAt: Date
    /// `nil` when the student had no record before.
    var oldStatus: AttendanceStatus?
    var newStatus: AttendanceStatus
    var reason: String
}

/// A student's attendance record in one session.
struct AttendanceRecord: Sendable, Equatable {
    var sessionId: Int64
    var studentId: Int64
    var status: AttendanceStatus
    var recordedAt: Date
    /// How the record came to be: `qr`, `typed`, `spot`, `api`, `manual`, `closed` or `demo`.
    var source: String
}

/// What a manual status change came to.
struct StatusChange: Sendable, Equatable {
    var record: AttendanceRecord
    /// The audit entry written, or `nil` when the status was already the one asked for.
    var audit: AuditEntry?
}

/// A student who appears in a course's records: on the roster now, or with a record from before they left it.
struct CourseStudent: Sendable, Equatable {
    var id: Int64
    var name: String
    var email: String
    var studentNumber: String?
    /// When the student joined the course; `nil` once they have left it.
    var joinedAt: Date?

    var enrolled: Bool { joinedAt != nil }
}

/// Everything a course's attendance figures are made from, read at one moment.
struct CourseRecords: Sendable {
    var course: Course
    /// Sessions that have opened, oldest first; scheduled ones do not count yet.
    var sessions: [ClassSession]
    var students: [CourseStudent]
    var records: [Int64: [Int64: AttendanceRecord]]
    var now: Date
    /// When each student on the roster joined, by student id.
    var joinedAt: [Int64: Date]

    init(
        course: Course, sessions: [ClassSession], students: [CourseStudent],
        records: [Int64: [Int64: AttendanceRecord]], now: Date
    ) {
        self.course = course
        self.sessions = sessions
        self.students = students
        self.records = records
        self.now = now
        joinedAt = Dictionary(
            uniqueKeysWithValues: students.compactMap { student in student.joinedAt.map { (student.id, $0) } })
    }

    /// The status a session counts with for a student, or `nil` while it does not count.
    func countedStatus(session: ClassSession, studentID: Int64) -> AttendanceStatus? {
        let end = session.closedAt ?? session.closesAt ?? now
        return AttendanceSummary.countedStatus(
            record: records[session.id]?[studentID]?.status, closed: session.phase(at: now) == .closed,
            onRoster: joinedAt[studentID].map { $0 <= end } ?? false
        )
    }

    /// Students on the roster attending less than `threshold` percent, lowest first, with their figures.
    func absentees(below threshold: Double) -> [(student: CourseStudent, summary: AttendanceSummary)] {
        students.filter(\.enrolled).compactMap { student in
            let summary = summary(studentID: student.id)
            return summary.isBelow(threshold) ? (student, summary) : nil
        }
        .sorted { ($0.summary.percentage ?? 0, $0.student.name) < ($1.summary.percentage ?? 0, $1.student.name) }
    }

    func summary(studentID: Int64) -> AttendanceSummary {
        AttendanceSummary(
            statuses: sessions.compactMap { countedStatus(session: $0, studentID: studentID) }, points: course.points
        )
    }
}

/// Attendance records beyond the check-in itself: manual changes and their audit log, whole-course records for
/// reports, and roster imports.
struct RecordStore: Sendable {
    let database: Database

    static let reasonLength = 0...500

    /// Sets a student's status in a session by hand, with the audit entry written in the same transaction.
    func setStatus(
        session: ClassSession, studentID: Int64, status: AttendanceStatus, reason: String, by teacher: User,
        now: Date = Date()
    ) async throws -> StatusChange {
        let change = try await database.transaction { sql in
            let old = try await Self.record(sessionID: session.id, studentID: studentID, sql: sql)
            if let old, old.status == status { return StatusChange(record: old, audit: nil) }
            let record: AttendanceRecord
            if let old {
                // The time of the original check-in stays: it is still when the student arrived.
                try await sql.update("attendance").set("status", to: status.rawValue).set("source", to: "manual")
                    .where("session_id", .equal, session.id).where("student_id", .equal, studentID).run()
                record = AttendanceRecord(
                    sessionId: session.id, studentId: studentID, status: status, recordedAt: old.recordedAt,
                    source: "manual")
            } else {
                try await sql.insert(into: "attendance")
                    .columns("session_id", "student_id", "status", "recorded_at", "source")
                    .values(
                        SQLBind(session.id), SQLBind(studentID), SQLBind(status.rawValue), SQLBind(now),
                        SQLBind("manual")
                    ).run()
                record = AttendanceRecord(
                    sessionId: session.id, studentId: studentID, status: status, recordedAt: now, source: "manual")
            }
            let id = try await sql.insert(into: "attendance_audit")
                .columns(
                    "session_id", "student_id", "changed_by", "changed_at", "old_status", "new_status", "reason"
                )
                .values(
                    SQLBind(session.id), SQLBind(studentID), SQLBind(teacher.id), SQLBind(now),
                    SQLBind(old?.status.rawValue), SQLBind(status.rawValue), SQLBind(reason)
                )
                .returning("id").first(decodingColumn: "id", as: Int64.self)
            let entry = try await Self.audit(sql).where(SQLColumn("id", table: "attendance_audit"), .equal, SQLBind(id))
                .first(decoding: AuditEntry.self, with: UserStore.decoder)
            let event = SessionChange.StatusChanged(
                studentId: studentID, previous: old?.status, status: status, reason: reason.isEmpty ? nil : reason,
                changedBy: teacher.id, at: now)
            try await SessionEvents.append(.statusChanged(event), sessionID: session.id, in: sql)
            return StatusChange(record: record, audit: entry)
        }
        if change.audit != nil { database.live.published(sessionID: session.id) }
        return change
    }

    /// The reason the live view shows for absences written by closing a session.
    static let absentOnClose = "Not checked in when the session closed."

    /// Marks every student on the roster without a record absent, as a course may ask when a session closes, and
    /// answers who they were. Runs inside the closing transaction, so a session is never closed with half its
    /// absences written.
    static func markAbsent(sessionID: Int64, courseID: Int64, at now: Date, sql: any SQLDatabase) async throws
        -> [Int64]
    {
        try await sql.raw(
            """
            INSERT INTO attendance (session_id, student_id, status, recorded_at, source)
            SELECT \(bind: sessionID), e.student_id, 'absent', \(bind: now), 'closed' FROM enrollments e
            WHERE e.course_id = \(bind: courseID)
              AND NOT EXISTS (SELECT 1 FROM attendance a
                              WHERE a.session_id = \(bind: sessionID) AND a.student_id = e.student_id)
            RETURNING student_id
            """
        ).all(decodingColumn: "student_id", as: Int64.self)
    }

    static func record(sessionID: Int64, studentID: Int64, sql: any SQLDatabase) async throws -> AttendanceRecord? {
        try await sql.select().column("*").from("attendance").where("session_id", .equal, sessionID)
            .where("student_id", .equal, studentID).first(decoding: AttendanceRecord.self, with: UserStore.decoder)
    }

    /// A session's audit log, newest first.
    func audit(sessionID: Int64) async throws -> [AuditEntry] {
        try await database.read { sql in
            try await Self.audit(sql).where(
                SQLColumn("session_id", table: "attendance_audit"), .equal, SQLBind(sessionID)
            )
            .orderBy(
                SQLOrderBy(expression: SQLColumn("id", table: "attendance_audit"), direction: SQLDirection.descending)
            )
            .all(decoding: AuditEntry.self, with: UserStore.decoder)
        }
    }

    /// A student's audit log within one course, newest first.
    func audit(courseID: Int64, studentID: Int64) async throws -> [AuditEntry] {
        try await database.read { sql in
            try await Self.audit(sql).where(SQLColumn("course_id", table: "sessions"), .equal, SQLBind(courseID))
                .where(SQLColumn("student_id", table: "attendance_audit"), .equal, SQLBind(studentID))
                .orderBy(
                    SQLOrderBy(
                        expression: SQLColumn("id", table: "attendance_audit"), direction: SQLDirection.descending)
                )
                .all(decoding: AuditEntry.self, with: UserStore.decoder)
        }
    }

    private static func audit(_ sql: any SQLDatabase) -> SQLSelectBuilder {
        sql.select().column(SQLColumn("*", table: "attendance_audit"))
            .column(SQLColumn("title", table: "sessions"), as: "session_title")
            .column(SQLColumn("name", table: "students"), as: "student_name")
            .column(SQLColumn("name", table: "teachers"), as: "changed_by_name")
            .from("attendance_audit")
            .join("sessions", on: "sessions.id = attendance_audit.session_id")
            .join(
                SQLAlias(SQLIdentifier("users"), as: SQLIdentifier("students")),
                on: SQLRaw("students.id = attendance_audit.student_id")
            )
            .join(
                SQLAlias(SQLIdentifier("users"), as: SQLIdentifier("teachers")),
                on: SQLRaw("teachers.id = attendance_audit.changed_by")
            )
    }

    /// A course's sessions, students and records, for the student pages, the reports and the absentee list.
    func courseRecords(_ course: Course, sessions allSessions: [ClassSession], now: Date = Date()) async throws
        -> CourseRecords
    {
        try await database.read { sql in
            let rows = try await sql.select().column(SQLColumn("*", table: "attendance")).from("attendance")
                .join("sessions", on: "sessions.id = attendance.session_id")
                .where(SQLColumn("course_id", table: "sessions"), .equal, SQLBind(course.id))
                .all(decoding: AttendanceRecord.self, with: UserStore.decoder)
            var records: [Int64: [Int64: AttendanceRecord]] = [:]
            for row in rows { records[row.sessionId, default: [:]][row.studentId] = row }
            let students = try await sql.raw(
                """
                SELECT u.id, u.name, u.email, u.student_number,
                       (SELECT e.joined_at FROM enrollments e WHERE e.course_id = \(bind: course.id) AND e.student_id = u.id)
                         AS joined_at
                FROM users u
                WHERE u.id IN (SELECT student_id FROM enrollments WHERE course_id = \(bind: course.id))
                   OR u.id IN (SELECT a.student_id FROM attendance a JOIN sessions s ON s.id = a.session_id
                               WHERE s.course_id = \(bind: course.id))
                ORDER BY u.name, u.id
                """
            ).all(decoding: CourseStudent.self, with: UserStore.decoder)
            let sessions = allSessions.filter { $0.openedAt != nil }.sorted {
                ($0.openedAt!, $0.id) < ($1.openedAt!, $1.id)
            }
            return CourseRecords(course: course, sessions: sessions, students: students, records: records, now: now)
        }
    }
}

extension CourseStudent: Decodable {}
extension AttendanceRecord: Decodable {}
