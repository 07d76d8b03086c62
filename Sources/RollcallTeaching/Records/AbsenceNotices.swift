import Foundation
import Logging
import RollcallCore
import RollcallDelivery
import RollcallModel
import RollcallParts
import RollcallStorage
import RollcallWords
import SQLKit
import ServiceLifecycle

/// The weekly absence notices: on Mondays at 08:00 in a course's time zone, for each course that has them on, a note
/// to every student on the roster below the absentee threshold (unless they turned the notes off) and the list of
/// them to the course's teachers, all queued in the outbox in one transaction with the week's claim, so that a week
/// is sent once whatever the number of processes and restarts.
package struct AbsenceNotices: Sendable {
    let database: Database
    let sessions: SessionStore
    let records: RecordStore
    let outbox: Outbox
    let letters: Letters
    let publicURL: String
    let logger: Logger

    package init(
        stores: Stores, school: String, language: String = "en", publicURL: String,
        logger: Logger = Logger(label: "rollcall")
    ) {
        self.logger = logger
        database = stores.database
        sessions = stores.sessions
        records = stores.records
        outbox = stores.outbox
        letters = Letters(school: school, language: language)
        self.publicURL = publicURL
    }

    /// What one course's week came to.
    struct Week: Sendable, Equatable {
        var courseID: Int64
        var dueAt: Date
        var students: Int
        var teachers: Int
    }

    /// Queues the notices due at `now` that no process has queued yet; answers the weeks it queued.
    @discardableResult
    func sendDue(now: Date = Date()) async throws -> [Week] {
        var queued: [Week] = []
        for course in try await coursesWithNotices() {
            let zone = TimeZone(identifier: course.timeZone) ?? TimeZone(identifier: "UTC")!
            let due = AbsenceNoticeSchedule.latestDue(atOrBefore: now, timeZone: zone)
            // A course that turned the notices on after this week's Monday morning starts next Monday. Should no
            // process run on the Monday morning, the week's notes go at the next look: late, but not lost.
            guard let since = course.absenceNoticesSince, due > since else { continue }
            // One course's failure (its records unreadable for a moment) does not hold up the others.
            do {
                guard try await !isQueued(course.id, due: due) else { continue }
                if let week = try await send(course, due: due, now: now) { queued.append(week) }
            } catch {
                logger.error(
                    "absence notices failed",
                    metadata: ["course": "\(course.id)", "error": "\(String(reflecting: error))"])
            }
        }
        return queued
    }

    private func coursesWithNotices() async throws -> [Course] {
        try await database.read { sql in
            try await sql.select().column("*").from("courses").where("absence_notices_since", .isNot, SQLLiteral.null)
                .where("archived_at", .is, SQLLiteral.null).orderBy("id")
                .all(decoding: Course.self, with: .rollcall)
        }
    }

    /// Whether the week due at `due` was queued: also when the course's time zone changed since, which moves the
    /// Monday morning by some hours, but never by six days.
    private func isQueued(_ courseID: Int64, due: Date) async throws -> Bool {
        try await database.read { sql in
            try await sql.raw(
                """
                SELECT course_id FROM absence_notice_weeks
                WHERE course_id = \(bind: courseID) AND due_at > \(bind: due.addingTimeInterval(-6 * 86_400))
                """
            ).first() != nil
        }
    }

    /// Queues the course's notices for the week due at `due`, unless another process queued them first.
    func send(_ course: Course, due: Date, now: Date) async throws -> Week? {
        // Nobody asks: the course's own language sorts the names of its letters.
        let sheet = try await records.courseRecords(
            course, sessions: try await sessions.list(courseID: course.id),
            in: Reader(Catalogs.shipped[course.language ?? letters.language]), now: now)
        let below = sheet.absentees(below: Double(course.absenteeThreshold))
        let (silent, languages, teachers) = try await recipients(course)
        var messages = below.filter { !silent.contains($0.student.id) }.map { student, summary in
            let letters = letters.written(for: languages[student.id])
            return letters.absenceNotice(
                name: student.name, course: course.name,
                teacher: teachers.first?.name ?? letters.reader.say("your teacher"), summary: summary,
                threshold: course.absenteeThreshold, link: "\(publicURL)/courses/\(course.id)#my-attendance"
            ).email(to: student.email, name: student.name)
        }
        let students = messages.count
        if !below.isEmpty {
            let students = below.map { (name: $0.student.name, summary: $0.summary) }
            messages += teachers.map { teacher in
                letters.written(for: teacher.language).absenceList(
                    name: teacher.name, course: course.name, threshold: course.absenteeThreshold,
                    students: students, link: "\(publicURL)/courses/\(course.id)#absentees"
                ).email(to: teacher.email, name: teacher.name)
            }
        }
        let claimed = try await outbox.send(messages) { sql in
            try await sql.raw(
                """
                INSERT INTO absence_notice_weeks (course_id, due_at, queued_at, students)
                VALUES (\(bind: course.id), \(bind: due), \(bind: now), \(bind: students))
                ON CONFLICT (course_id, due_at) DO NOTHING RETURNING course_id
                """
            ).first() != nil
        }
        guard claimed else { return nil }
        return Week(courseID: course.id, dueAt: due, students: students, teachers: messages.count - students)
    }

    /// The students on the roster who get no note (they turned it off, or their account is disabled or deleted),
    /// and the course's teachers with an active account, the owner first.
    /// Who hears nothing, the students' languages (chosen, else first acted in), and the course's teachers, its owner
    /// first.
    private func recipients(_ course: Course) async throws -> (
        silent: Set<Int64>, languages: [Int64: String], teachers: [(name: String, email: String, language: String?)]
    ) {
        try await database.read { sql in
            let silent = try await sql.raw(
                """
                SELECT enrollments.student_id FROM enrollments JOIN users ON users.id = enrollments.student_id
                WHERE enrollments.course_id = \(bind: course.id)
                  AND (enrollments.absence_notices_off OR users.disabled OR users.deleted_at IS NOT NULL)
                """
            ).all(decodingColumn: "student_id", as: Int64.self)
            let languages = try await sql.raw(
                """
                SELECT users.id, COALESCE(users.language, users.first_language) AS language
                FROM enrollments JOIN users ON users.id = enrollments.student_id
                WHERE enrollments.course_id = \(bind: course.id)
                  AND COALESCE(users.language, users.first_language) IS NOT NULL
                """
            ).all().map { row in
                (try row.decode(column: "id", as: Int64.self), try row.decode(column: "language", as: String.self))
            }
            let teachers = try await sql.raw(
                """
                SELECT users.name, users.email, COALESCE(users.language, users.first_language) AS language FROM users
                WHERE (users.id = \(bind: course.teacherId)
                    OR users.id IN (SELECT user_id FROM course_staff
                                    WHERE course_id = \(bind: course.id) AND role = 'teacher'))
                  AND NOT users.disabled AND users.deleted_at IS NULL
                ORDER BY users.id = \(bind: course.teacherId) DESC, users.name
                """
            ).all().map { row in
                (
                    try row.decode(column: "name", as: String.self), try row.decode(column: "email", as: String.self),
                    try row.decodeIfPresent(column: "language", as: String.self)
                )
            }
            return (Set(silent), Dictionary(languages) { $1 }, teachers)
        }
    }
}
