import Foundation
import RollcallCore
import RollcallStorage
import RollcallWords
import SQLKit

/// A teacher's change of one student's status in one session, as the audit log keeps it.
package struct AuditEntry: Codable, Sendable, Equatable {
    package var id: Int64
    package var sessionId: Int64
    package var sessionTitle: String
    package var studentId: Int64
    package var studentName: String
    package var changedBy: Int64
    package var changedByName: String
    package var changedAt: Date
    /// `nil` when the student had no record before.
    package var oldStatus: AttendanceStatus?
    /// `nil` when the change removed the record (an undo), so the student was "not yet" again.
    package var newStatus: AttendanceStatus?
    package var reason: String
    /// The bulk change it was part of, if any.
    package var batchId: Int64?

    /// The entry with the reason said to `reader`: typed by a teacher, or words Rollcall stored as a phrase.
    func said(to reader: Reader) -> AuditEntry {
        var said = self
        said.reason = reader.say(Phrase.stored(reason))
        return said
    }
}

extension AuditEntry {
    private enum CodingKeys: String, CodingKey {
        case id, sessionId, sessionTitle, studentId, studentName, changedBy, changedByName, changedAt, oldStatus
        case newStatus, reason, batchId
    }

    /// Reads a row, where a removed record's new status is stored empty.
    package init(from decoder: any Decoder) throws {
        let row = try decoder.container(keyedBy: CodingKeys.self)
        id = try row.decode(Int64.self, forKey: .id)
        sessionId = try row.decode(Int64.self, forKey: .sessionId)
        sessionTitle = try row.decode(String.self, forKey: .sessionTitle)
        studentId = try row.decode(Int64.self, forKey: .studentId)
        studentName = try row.decode(String.self, forKey: .studentName)
        changedBy = try row.decode(Int64.self, forKey: .changedBy)
        changedByName = try row.decode(String.self, forKey: .changedByName)
        changedAt = try row.decode(Date.self, forKey: .changedAt)
        oldStatus = try row.decodeIfPresent(String.self, forKey: .oldStatus).flatMap(AttendanceStatus.init(rawValue:))
        newStatus = try row.decodeIfPresent(String.self, forKey: .newStatus).flatMap(AttendanceStatus.init(rawValue:))
        // Typed by a teacher, or words Rollcall stored as a phrase (an undo's): said to the reader by the store.
        reason = try row.decode(String.self, forKey: .reason)
        batchId = try row.decodeIfPresent(Int64.self, forKey: .batchId)
    }
}

/// A student's attendance record in one session.
package struct AttendanceRecord: Sendable, Equatable {
    package var sessionId: Int64
    package var studentId: Int64
    package var status: AttendanceStatus
    package var recordedAt: Date
    package var source: RecordSource

    package init(sessionId: Int64, studentId: Int64, status: AttendanceStatus, recordedAt: Date, source: RecordSource) {
        self.sessionId = sessionId
        self.studentId = studentId
        self.status = status
        self.recordedAt = recordedAt
        self.source = source
    }
}

/// Many students' status set at once by a teacher, undone as one.
package struct AttendanceBatch: Codable, Sendable, Equatable {
    package var id: Int64
    package var sessionId: Int64
    package var createdBy: Int64
    package var createdAt: Date
    package var status: AttendanceStatus
    package var reason: String
    /// Records the batch changed; students who already had the status are not counted.
    package var changed: Int
    package var undoneBy: Int64?
    package var undoneAt: Date?
}

/// What a manual status change came to.
package struct StatusChange: Sendable, Equatable {
    package var record: AttendanceRecord
    /// The audit entry written, or `nil` when the status was already the one asked for.
    package var audit: AuditEntry?
}

/// A student who appears in a course's records: on the roster now, or with a record from before they left it.
package struct CourseStudent: Sendable, Equatable {
    package var id: Int64
    package var name: String
    package var email: String
    package var studentNumber: String?
    /// When the student joined the course; `nil` once they have left it.
    package var joinedAt: Date?

    package var enrolled: Bool { joinedAt != nil }
}

/// Everything a course's attendance figures are made from, read at one moment; the figures themselves come from
/// the core's `AttendanceSheet`.
package struct CourseRecords: Sendable {
    package var course: Course
    /// Sessions that have opened, oldest first; scheduled ones do not count yet.
    package var sessions: [ClassSession]
    package var students: [CourseStudent]
    package var records: [Int64: [Int64: AttendanceRecord]]
    package var sheet: AttendanceSheet

    package init(
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
    package func countedStatus(session: ClassSession, studentID: Int64) -> AttendanceStatus? {
        sheet.countedStatus(session: session.sheetSession, studentID: studentID)
    }

    /// Students on the roster attending less than `threshold` percent, lowest first, with their figures.
    package func absentees(below threshold: Double) -> [(student: CourseStudent, summary: AttendanceSummary)] {
        let byID = Dictionary(students.map { ($0.id, $0) }, uniquingKeysWith: { $1 })
        return sheet.absentees(below: threshold).compactMap { entry in
            byID[entry.student.id].map { ($0, entry.summary) }
        }
    }

    package func summary(studentID: Int64) -> AttendanceSummary {
        sheet.summary(studentID: studentID)
    }
}

extension RecordStore {
    /// The records with the course's quiz points and grade weights; one student's points only when `studentID` is
    /// given.
    package func gradebook(_ records: CourseRecords, studentID: Int64? = nil) async throws -> Gradebook {
        let quiz = try await quizzes.marks.gradebookResults(courseID: records.course.id, studentID: studentID)
        return Gradebook(
            sheet: records.sheet, runs: quiz.runs, results: quiz.results, weights: records.course.gradeWeights)
    }
}

extension ClassSession {
    /// The session's times, as the attendance figures see it.
    package var sheetSession: AttendanceSheet.Session {
        AttendanceSheet.Session(id: id, openedAt: openedAt, closesAt: closesAt, closedAt: closedAt)
    }
}

/// Attendance records beyond the check-in itself: manual changes and their audit log, whole-course records for
/// reports, and roster imports.
package struct RecordStore: Sendable {
    package let database: Database
    /// Quiz points, which the gradebook weighs next to attendance.
    package let quizzes: QuizStore

    package init(database: Database, quizzes: QuizStore) {
        self.database = database
        self.quizzes = quizzes
    }

    package static let reasonLength = 0...500

    /// Sets a student's status in a session by hand, with the audit entry written in the same transaction.
    package func setStatus(
        session: ClassSession, studentID: Int64, status: AttendanceStatus, reason: String, note: String = "",
        by teacher: User, in reader: Reader, now: Date = Date()
    ) async throws -> StatusChange {
        try await database.transaction { sql in
            try await SessionStore.lock(id: session.id, in: sql)
            let seat = AttendanceLedger.Seat(sessionID: session.id, studentID: studentID)
            let (record, auditID) = try await AttendanceLedger.setStatus(
                status, of: seat, reason: reason, note: note, by: teacher.id, at: now, in: sql)
            guard let auditID else { return StatusChange(record: record, audit: nil) }
            let entry = try await Self.audit(sql).where(
                SQLColumn("id", table: "attendance_audit"), .equal, SQLBind(auditID)
            ).first(decoding: AuditEntry.self, with: .rollcall)
            return StatusChange(record: record, audit: entry?.said(to: reader))
        }
    }

    /// Sets many students' status in one transaction, as one batch that can be undone; students who already have
    /// the status are left as they are, and with `unrecordedOnly` so is everyone who has any record by the time the
    /// batch holds the session (a check-in that committed a moment ago stands). Answers the batch with how many
    /// records changed.
    package func setStatus(
        session: ClassSession, studentIDs: [Int64], status: AttendanceStatus, reason: String, note: String,
        unrecordedOnly: Bool = false, by teacher: User, now: Date = Date()
    ) async throws -> AttendanceBatch {
        try await database.transaction { sql in
            try await SessionStore.lock(id: session.id, in: sql)
            guard
                let batchID = try await sql.insert(into: "attendance_batches")
                    .columns("session_id", "created_by", "created_at", "status", "reason")
                    .values(
                        SQLBind(session.id), SQLBind(teacher.id), SQLBind(now), SQLBind(status.rawValue),
                        SQLBind(reason)
                    )
                    .returning("id").first(decodingColumn: "id", as: Int64.self)
            else { throw NotSaved(what: "batch") }
            var changed = 0
            // Read once, under the lock, for the whole batch.
            let recorded: Set<Int64> =
                unrecordedOnly
                ? Set(
                    try await sql.select().column("student_id").from("attendance").where(
                        "session_id", .equal, session.id
                    )
                    .all(decodingColumn: "student_id", as: Int64.self)) : []
            for studentID in studentIDs where !recorded.contains(studentID) {
                let seat = AttendanceLedger.Seat(sessionID: session.id, studentID: studentID)
                let (_, auditID) = try await AttendanceLedger.setStatus(
                    status, of: seat, reason: reason, note: note, batchID: batchID, by: teacher.id, at: now, in: sql)
                if auditID != nil { changed += 1 }
            }
            try await sql.update("attendance_batches").set("changed", to: changed).where("id", .equal, batchID).run()
            return try await Self.batch(id: batchID, in: sql)!
        }
    }

    /// Why undoing a batch is refused.
    package enum UndoRefusal: Error, Equatable {
        case alreadyUndone
        /// A later batch in the session must be undone first.
        case notLatest
        /// Records of the batch were changed again since, by these many changes.
        case changedSince(Int)
    }

    /// Puts every record a batch changed back as it was before, in one transaction, with audit entries; only the
    /// session's latest batch that changed anything, and only while nobody has changed those records since.
    /// `time`: the course's, for the audit entry's words.
    package func undo(batchID: Int64, by teacher: User, time: TimeText, now: Date = Date()) async throws
        -> AttendanceBatch
    {
        try await database.transaction { sql in
            guard let found = try await Self.batch(id: batchID, in: sql) else {
                throw NotStored(.batchNotFound, what: "batch")
            }
            // Read again under the session's lock: an undo or a new change that held it first is seen here.
            try await SessionStore.lock(id: found.sessionId, in: sql)
            guard let batch = try await Self.batch(id: batchID, in: sql) else {
                throw NotStored(.batchNotFound, what: "batch")
            }
            guard batch.undoneAt == nil else { throw UndoRefusal.alreadyUndone }
            // A later change that changed nothing (everyone already had the status) stands in nobody's way.
            let later = try await sql.select().column("id").from("attendance_batches")
                .where("session_id", .equal, batch.sessionId).where("id", .greaterThan, batchID)
                .where(SQLColumn("undone_at"), .is, SQLLiteral.null).where("changed", .greaterThan, 0).first()
            guard later == nil else { throw UndoRefusal.notLatest }
            let entries = try await sql.raw(
                """
                SELECT id, student_id, old_status FROM attendance_audit
                WHERE batch_id = \(bind: batchID) ORDER BY id
                """
            ).all(decoding: BatchEntry.self, with: .rollcall)
            let since =
                try await sql.raw(
                    """
                    SELECT COUNT(*) AS n FROM attendance_audit later
                    JOIN attendance_audit mine ON mine.batch_id = \(bind: batchID)
                      AND later.session_id = mine.session_id AND later.student_id = mine.student_id AND later.id > mine.id
                    """
                ).first(decodingColumn: "n", as: Int.self) ?? 0
            guard since == 0 else { throw UndoRefusal.changedSince(since) }
            let reason = try RecordWords.undone(batch, zone: time.zone).storedText()
            for entry in entries {
                let seat = AttendanceLedger.Seat(sessionID: batch.sessionId, studentID: entry.studentId)
                if let old = entry.oldStatus.flatMap(AttendanceStatus.init(rawValue:)) {
                    _ = try await AttendanceLedger.setStatus(
                        old, of: seat, reason: reason, by: teacher.id, at: now, in: sql)
                } else {
                    try await AttendanceLedger.clear(
                        seat, reason: reason, batchID: nil, by: teacher.id, at: now, in: sql)
                }
            }
            try await sql.update("attendance_batches").set("undone_by", to: teacher.id).set("undone_at", to: now)
                .where("id", .equal, batchID).run()
            return try await Self.batch(id: batchID, in: sql)!
        }
    }

    private struct BatchEntry: Decodable {
        package var id: Int64
        package var studentId: Int64
        package var oldStatus: String?
    }

    /// A session's latest batches that changed anything, newest first, with who made each.
    package func batches(sessionID: Int64, limit: Int = 5) async throws -> [(batch: AttendanceBatch, by: String)] {
        try await database.read { sql in
            let rows = try await sql.select().column(SQLColumn("*", table: "attendance_batches"))
                .column(SQLColumn("name", table: "users"), as: "created_by_name")
                .from("attendance_batches")
                .join(
                    "users", on: SQLColumn("id", table: "users"), .equal,
                    SQLColumn("created_by", table: "attendance_batches")
                )
                .where(SQLColumn("session_id", table: "attendance_batches"), .equal, SQLBind(sessionID))
                .where(SQLColumn("changed", table: "attendance_batches"), .greaterThan, SQLBind(0))
                .orderBy(
                    SQLOrderBy(
                        expression: SQLColumn("id", table: "attendance_batches"), direction: SQLDirection.descending)
                ).limit(limit).all()
            return try rows.map { row in
                (
                    try row.decode(model: AttendanceBatch.self, with: .rollcall),
                    try row.decode(column: "created_by_name", as: String.self)
                )
            }
        }
    }

    package func batch(id: Int64) async throws -> AttendanceBatch? {
        try await database.read { sql in try await Self.batch(id: id, in: sql) }
    }

    private static func batch(id: Int64, in sql: any SQLDatabase) async throws -> AttendanceBatch? {
        try await sql.select().column("*").from("attendance_batches").where("id", .equal, id)
            .first(decoding: AttendanceBatch.self, with: .rollcall)
    }

    /// A session's audit log, newest first.
    package func audit(sessionID: Int64, in reader: Reader) async throws -> [AuditEntry] {
        try await database.read { sql in
            try await Self.audit(sql).where(
                SQLColumn("session_id", table: "attendance_audit"), .equal, SQLBind(sessionID)
            )
            .orderBy(
                SQLOrderBy(expression: SQLColumn("id", table: "attendance_audit"), direction: SQLDirection.descending)
            )
            .all(decoding: AuditEntry.self, with: .rollcall).map { $0.said(to: reader) }
        }
    }

    /// A student's audit log within one course, newest first.
    package func audit(courseID: Int64, studentID: Int64, in reader: Reader) async throws -> [AuditEntry] {
        try await database.read { sql in
            try await Self.audit(sql).where(SQLColumn("course_id", table: "sessions"), .equal, SQLBind(courseID))
                .where(SQLColumn("student_id", table: "attendance_audit"), .equal, SQLBind(studentID))
                .orderBy(
                    SQLOrderBy(
                        expression: SQLColumn("id", table: "attendance_audit"), direction: SQLDirection.descending)
                )
                .all(decoding: AuditEntry.self, with: .rollcall).map { $0.said(to: reader) }
        }
    }

    private static func audit(_ sql: any SQLDatabase) -> SQLSelectBuilder {
        sql.select().column(SQLColumn("*", table: "attendance_audit"))
            .column(SQLColumn("title", table: "sessions"), as: "session_title")
            .column(SQLColumn("name", table: "students"), as: "student_name")
            .column(SQLColumn("name", table: "teachers"), as: "changed_by_name")
            .from("attendance_audit")
            .join(
                "sessions", on: SQLColumn("id", table: "sessions"), .equal,
                SQLColumn("session_id", table: "attendance_audit")
            )
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
    package func courseRecords(
        _ course: Course, sessions allSessions: [ClassSession], in reader: Reader, now: Date = Date()
    ) async throws -> CourseRecords {
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
                """
            ).all(decoding: CourseStudent.self, with: .rollcall)
            // The grid, the records and the exports list students as the language sorts names.
            return CourseRecords(
                course: course, sessions: sessions,
                students: reader.collation.sorted(students, name: \.name, id: \.id),
                records: records, now: now)
        }
    }
}

extension CourseStudent: Decodable {}
extension AttendanceRecord: Decodable {}
