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
    var source: RecordSource
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

/// Everything a course's attendance figures are made from, read at one moment; the figures themselves come from
/// the core's `AttendanceSheet`.
struct CourseRecords: Sendable {
    var course: Course
    /// Sessions that have opened, oldest first; scheduled ones do not count yet.
    var sessions: [ClassSession]
    var students: [CourseStudent]
    var records: [Int64: [Int64: AttendanceRecord]]
    var sheet: AttendanceSheet

    init(
        course: Course, sessions: [ClassSession], students: [CourseStudent],
        records: [Int64: [Int64: AttendanceRecord]], now: Date
    ) {
        self.course = course
        self.sessions = sessions
        self.students = students
        self.records = records
        sheet = AttendanceSheet(
            sessions: sessions.map(\.sheetSession),
            students: students.map { AttendanceSheet.Student(id: $0.id, name: $0.name, joinedAt: $0.joinedAt) },
            statuses: records.mapValues { $0.mapValues(\.status) }, points: course.points, now: now
        )
    }

    /// The status a session counts with for a student, or `nil` while it does not count.
    func countedStatus(session: ClassSession, studentID: Int64) -> AttendanceStatus? {
        sheet.countedStatus(session: session.sheetSession, studentID: studentID)
    }

    /// Students on the roster attending less than `threshold` percent, lowest first, with their figures.
    func absentees(below threshold: Double) -> [(student: CourseStudent, summary: AttendanceSummary)] {
        let byID = Dictionary(students.map { ($0.id, $0) }, uniquingKeysWith: { $1 })
        return sheet.absentees(below: threshold).compactMap { entry in
            byID[entry.student.id].map { ($0, entry.summary) }
        }
    }

    func summary(studentID: Int64) -> AttendanceSummary {
        sheet.summary(studentID: studentID)
    }
}

extension RecordStore {
    /// The records with the course's quiz points and grade weights; one student's points only when `studentID` is
    /// given.
    func gradebook(_ records: CourseRecords, studentID: Int64? = nil) async throws -> Gradebook {
        let quiz = try await quizzes.gradebookResults(courseID: records.course.id, studentID: studentID)
        return Gradebook(
            sheet: records.sheet, runs: quiz.runs, results: quiz.results, weights: records.course.gradeWeights)
    }
}

extension ClassSession {
    /// The session's times, as the attendance figures see it.
    var sheetSession: AttendanceSheet.Session {
        AttendanceSheet.Session(id: id, openedAt: openedAt, closesAt: closesAt, closedAt: closedAt)
    }
}

/// Attendance records beyond the check-in itself: manual changes and their audit log, whole-course records for
/// reports, and roster imports.
struct RecordStore: Sendable {
    let database: Database
    /// Quiz points, which the gradebook weighs next to attendance.
    let quizzes: QuizStore

    static let reasonLength = 0...500

    /// Sets a student's status in a session by hand, with the audit entry written in the same transaction.
    func setStatus(
        session: ClassSession, studentID: Int64, status: AttendanceStatus, reason: String, by teacher: User,
        now: Date = Date()
    ) async throws -> StatusChange {
        try await database.transaction { sql in
            let seat = AttendanceLedger.Seat(sessionID: session.id, studentID: studentID)
            let (record, auditID) = try await AttendanceLedger.setStatus(
                status, of: seat, reason: reason, by: teacher.id, at: now, in: sql)
            guard let auditID else { return StatusChange(record: record, audit: nil) }
            let entry = try await Self.audit(sql).where(
                SQLColumn("id", table: "attendance_audit"), .equal, SQLBind(auditID)
            ).first(decoding: AuditEntry.self, with: .rollcall)
            return StatusChange(record: record, audit: entry)
        }
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
            .all(decoding: AuditEntry.self, with: .rollcall)
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
                .all(decoding: AuditEntry.self, with: .rollcall)
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
        let sessions = allSessions.filter { $0.openedAt != nil }.sorted {
            ($0.openedAt!, $0.id) < ($1.openedAt!, $1.id)
        }
        return try await database.read { sql in
            // The given sessions' records only: one session's page does not read the whole term's.
            let rows =
                sessions.isEmpty
                ? []
                : try await sql.select().column("*").from("attendance")
                    .where("session_id", .in, SQLBind.group(sessions.map(\.id)))
                    .all(decoding: AttendanceRecord.self, with: .rollcall)
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
            ).all(decoding: CourseStudent.self, with: .rollcall)
            return CourseRecords(course: course, sessions: sessions, students: students, records: records, now: now)
        }
    }
}

extension CourseStudent: Decodable {}
extension AttendanceRecord: Decodable {}
