import Foundation
import RollcallCore
import RollcallStorage
import SQLKit

/// The one place that writes attendance rows: a check-in, a teacher's change, the absences written when a session
/// closes, and the demo's history. Each writes, in the caller's transaction, the row with its session event (and
/// for a teacher's change, its audit entry), so a record never exists without the event that tells the live views.
package enum AttendanceLedger {
    /// A student in a session: the key of an attendance row.
    package struct Seat: Hashable, Sendable {
        package var sessionID: Int64
        package var studentID: Int64

        package init(sessionID: Int64, studentID: Int64) {
            self.sessionID = sessionID
            self.studentID = studentID
        }
    }

    /// A check-in's row, as the group commit hands it over.
    package struct CheckInRow: Sendable {
        package var seat: Seat
        package var status: AttendanceStatus
        package var at: Date
        package var via: RecordSource
    }

    /// Inserts check-ins that have no row yet, with one `checked_in` event each; answers the seats written. A seat
    /// that already has a row keeps it: a retry or a second tab never changes a record.
    package static func checkIn(_ rows: [CheckInRow], in sql: Transaction) async throws -> Set<Seat> {
        guard !rows.isEmpty else { return [] }
        var insert = sql.insert(into: "attendance")
            .columns("session_id", "student_id", "status", "recorded_at", "source")
        for row in rows {
            insert = insert.values(
                SQLBind(row.seat.sessionID), SQLBind(row.seat.studentID), SQLBind(row.status.rawValue),
                SQLBind(row.at), SQLBind(row.via.rawValue)
            )
        }
        var written: Set<Seat> = []
        for row in try await insert.ignoringConflicts(with: ["session_id", "student_id"])
            .returning("session_id", "student_id").all()
        {
            written.insert(
                Seat(
                    sessionID: try row.decode(column: "session_id", as: Int64.self),
                    studentID: try row.decode(column: "student_id", as: Int64.self)
                )
            )
        }
        let changes = rows.filter { written.contains($0.seat) }.map { row in
            let change = SessionChange.CheckedIn(
                studentId: row.seat.studentID, status: row.status, at: row.at, via: row.via)
            return (sessionID: row.seat.sessionID, change: SessionChange.checkedIn(change))
        }
        try await SessionEvents.append(changes, in: sql)
        return written
    }

    /// Sets a student's status by hand, with its audit entry and `status_changed` event; nothing is written when the
    /// status already is the one asked for.
    package static func setStatus(
        _ status: AttendanceStatus, of seat: Seat, reason: String, note: String = "", batchID: Int64? = nil,
        by teacherID: Int64, at now: Date, in sql: Transaction
    ) async throws -> (record: AttendanceRecord, auditID: Int64?) {
        let old = try await record(seat, in: sql)
        if let old, old.status == status {
            // Only the note changes: the teacher's own, with nothing for the audit or the student.
            if !note.isEmpty {
                try await sql.update("attendance").set("note", to: note)
                    .where("session_id", .equal, seat.sessionID).where("student_id", .equal, seat.studentID).run()
                let event = SessionChange.StatusChanged(
                    studentId: seat.studentID, previous: status, status: status, reason: nil, note: note,
                    changedBy: teacherID, at: now)
                try await SessionEvents.append(.statusChanged(event), sessionID: seat.sessionID, in: sql)
            }
            return (old, nil)
        }
        // The time of the original check-in stays: it is still when the student arrived.
        let record = AttendanceRecord(
            sessionId: seat.sessionID, studentId: seat.studentID, status: status, recordedAt: old?.recordedAt ?? now,
            source: .manual)
        if old != nil {
            try await sql.update("attendance").set("status", to: status.rawValue)
                .set("source", to: RecordSource.manual.rawValue).set("note", to: note)
                .where("session_id", .equal, seat.sessionID).where("student_id", .equal, seat.studentID).run()
        } else {
            try await insert(record, note: note, in: sql)
        }
        let auditID = try await audit(
            seat, old: old?.status, new: status, reason: reason, note: note, batchID: batchID, by: teacherID, at: now,
            in: sql)
        let event = SessionChange.StatusChanged(
            studentId: seat.studentID, previous: old?.status, status: status, reason: reason.isEmpty ? nil : reason,
            note: note.isEmpty ? nil : note, changedBy: teacherID, at: now)
        try await SessionEvents.append(.statusChanged(event), sessionID: seat.sessionID, in: sql)
        return (record, auditID)
    }

    /// Removes a student's record, as undoing a change made to a student who had none does: the student is "not
    /// yet" again. Audited with no new status, and told to the live views.
    package static func clear(
        _ seat: Seat, reason: String, batchID: Int64?, by teacherID: Int64, at now: Date, in sql: Transaction
    ) async throws {
        guard let old = try await record(seat, in: sql) else { return }
        try await sql.delete(from: "attendance").where("session_id", .equal, seat.sessionID)
            .where("student_id", .equal, seat.studentID).run()
        _ = try await audit(
            seat, old: old.status, new: nil, reason: reason, note: "", batchID: batchID, by: teacherID, at: now, in: sql
        )
        let event = SessionChange.StatusChanged(
            studentId: seat.studentID, previous: old.status, status: nil, reason: reason, changedBy: teacherID, at: now)
        try await SessionEvents.append(.statusChanged(event), sessionID: seat.sessionID, in: sql)
    }

    /// Writes an audit entry; `new` is `nil` (stored empty) when the record was removed.
    private static func audit(
        _ seat: Seat, old: AttendanceStatus?, new: AttendanceStatus?, reason: String, note: String, batchID: Int64?,
        by teacherID: Int64, at now: Date, in sql: Transaction
    ) async throws -> Int64? {
        try await sql.insert(into: "attendance_audit")
            .columns(
                "session_id", "student_id", "changed_by", "changed_at", "old_status", "new_status", "reason", "note",
                "batch_id"
            )
            .values(
                SQLBind(seat.sessionID), SQLBind(seat.studentID), SQLBind(teacherID), SQLBind(now),
                SQLBind(old?.rawValue), SQLBind(new?.rawValue ?? ""), SQLBind(reason), SQLBind(note), SQLBind(batchID)
            )
            .returning("id").first(decodingColumn: "id", as: Int64.self)
    }

    /// Marks every student on the roster without a record absent, as a course may ask when its session closes, in
    /// the closing transaction (a session is never closed with half its absences written); answers who they were.
    @discardableResult
    package static func markAbsent(
        sessionID: Int64, courseID: Int64, by teacherID: Int64, at now: Date, in sql: Transaction
    ) async throws -> [Int64] {
        let marked = try await sql.raw(
            """
            INSERT INTO attendance (session_id, student_id, status, recorded_at, source)
            SELECT \(bind: sessionID), e.student_id, 'absent', \(bind: now), \(bind: RecordSource.closed.rawValue)
            FROM enrollments e
            WHERE e.course_id = \(bind: courseID)
              AND NOT EXISTS (SELECT 1 FROM attendance a
                              WHERE a.session_id = \(bind: sessionID) AND a.student_id = e.student_id)
            RETURNING student_id
            """
        ).all(decodingColumn: "student_id", as: Int64.self)
        let absentOnClose = try RecordWords.absentOnClose.storedText()
        let changes = marked.map { student in
            let change = SessionChange.StatusChanged(
                studentId: student, previous: nil, status: .absent, reason: absentOnClose, changedBy: teacherID,
                at: now)
            return (sessionID: sessionID, change: SessionChange.statusChanged(change))
        }
        try await SessionEvents.append(changes, at: now, in: sql)
        return marked
    }

    /// Writes a past record as it was, replacing any other; for the demo institution, which has no live views.
    package static func replace(with record: AttendanceRecord, in sql: Transaction) async throws {
        try await sql.delete(from: "attendance").where("session_id", .equal, record.sessionId)
            .where("student_id", .equal, record.studentId).run()
        try await insert(record, in: sql)
    }

    /// The student's row in the session, if any.
    package static func record(_ seat: Seat, in sql: any SQLDatabase) async throws -> AttendanceRecord? {
        try await sql.select().column("*").from("attendance").where("session_id", .equal, seat.sessionID)
            .where("student_id", .equal, seat.studentID).first(decoding: AttendanceRecord.self, with: .rollcall)
    }

    private static func insert(_ record: AttendanceRecord, note: String = "", in sql: any SQLDatabase) async throws {
        try await sql.insert(into: "attendance")
            .columns("session_id", "student_id", "status", "recorded_at", "source", "note")
            .values(
                SQLBind(record.sessionId), SQLBind(record.studentId), SQLBind(record.status.rawValue),
                SQLBind(record.recordedAt), SQLBind(record.source.rawValue), SQLBind(note)
            ).run()
    }
}
