import Foundation
import RollcallCore
import RollcallStorage
import RollcallWords
import SQLKit

/// A course as stored.
package struct Course: Codable, Sendable, Equatable {
    package var id: Int64
    package var teacherId: Int64
    package var name: String
    package var description: String
    package var plannedSessions: Int?
    package var joinCode: String
    package var posterId: Int64?
    package var createdAt: Date
    package var pointsPresent: Int
    package var pointsLate: Int
    package var pointsExcused: Int
    package var pointsAbsent: Int
    /// Whether closing a session marks everyone on the roster without a record absent.
    package var markAbsentOnClose: Bool
    /// Students attending less than this percentage are on the absentee report.
    package var absenteeThreshold: Int
    /// The IANA time zone its reports are written in, such as `Europe/Berlin`.
    package var timeZone: String
    /// The percentage of the course grade that quizzes make; attendance makes the rest.
    package var quizWeight: Int
    /// Whether a student not on the roster may join from a scan in the room, and check in with the same scan.
    package var joinFromScan: Bool
    /// When the course was archived: then it keeps its records and takes no new sessions nor students.
    package var archivedAt: Date?
    /// Since when the weekly absence notices go out; `nil` while they are off, as they are unless a teacher asks.
    package var absenceNoticesSince: Date?
    /// The check-in settings new sessions start from, as a `SessionSettingsDraft` in JSON; `nil` for Rollcall's.
    package var sessionDefaults: String? = nil
    /// The language its teacher writes its content in (a tag Rollcall speaks, such as `fr`); `nil` for a course made
    /// before Rollcall kept it, whose content pages leave unmarked.
    package var language: String? = nil

    /// What a new session or timetable entry leaves out is taken from here.
    package func defaults() throws -> SessionSettingsDraft {
        try sessionDefaults.map {
            try StoredJSON.decode($0, as: SessionSettingsDraft.self, row: "a course's defaults")
        }
            ?? SessionSettingsDraft()
    }

    package mutating func setDefaults(_ defaults: SessionSettingsDraft) throws {
        sessionDefaults = String(decoding: try JSONEncoder().encode(defaults), as: UTF8.self)
    }

    /// How the course grade weighs attendance against quizzes.
    package var gradeWeights: GradeWeights {
        get { GradeWeights(attendance: 100 - quizWeight, quizzes: quizWeight) }
        set { quizWeight = newValue.quizzes }
    }

    /// The course's time zone; the server's should its name ever stop being known.
    package var zone: TimeZone { TimeZone(identifier: timeZone) ?? .current }

    /// Points per status toward the attendance grade.
    package var points: StatusPoints {
        get {
            StatusPoints(present: pointsPresent, late: pointsLate, excused: pointsExcused, absent: pointsAbsent)
        }
        set {
            pointsPresent = newValue.present
            pointsLate = newValue.late
            pointsExcused = newValue.excused
            pointsAbsent = newValue.absent
        }
    }
}

/// A course with what lists show beside it.
package struct CourseSummary: Codable, Sendable, Equatable {
    package var course: Course
    package var teacherName: String
    package var studentCount: Int
    /// In a person's own list (`CourseStore.list(for:)`), their part in teaching the course, if any.
    package var staffRole: StaffRole? = nil

    package init(course: Course, teacherName: String, studentCount: Int, staffRole: StaffRole? = nil) {
        self.course = course
        self.teacherName = teacherName
        self.studentCount = studentCount
        self.staffRole = staffRole
    }
}

/// A student on a course's roster.
package struct RosterEntry: Codable, Sendable, Equatable {
    package var id: Int64
    package var name: String
    package var email: String
    package var studentNumber: String?
    package var joinedAt: Date
}

/// Courses, their join codes and their rosters.
/// A part in teaching a course besides its own teacher's.
package enum StaffRole: String, Codable, Sendable, CaseIterable {
    /// Everything the course's teacher may do.
    case teacher
    /// Sees the course's rooms and marks attendance.
    case assistant
}

/// A co-teacher or assistant of a course.
package struct StaffMember: Codable, Sendable, Equatable {
    package var id: Int64
    package var name: String
    package var email: String
    package var role: StaffRole
    package var addedAt: Date
}

package struct CourseStore: Sendable {
    package let database: Database

    package init(database: Database) {
        self.database = database
    }

    package func create(
        teacherID: Int64, name: String, description: String, plannedSessions: Int?,
        timeZone: String = CourseTimeZone.serverDefault, language: String? = nil
    ) async throws -> Course {
        try await database.transaction { sql in
            try await Self.create(
                teacherID: teacherID, name: name, description: description, plannedSessions: plannedSessions,
                timeZone: timeZone, language: language, in: sql)
        }
    }

    /// Creates a course inside a transaction of the caller's, which may keep it with more (a learning platform's
    /// link) or not at all.
    package static func create(
        teacherID: Int64, name: String, description: String, plannedSessions: Int?, timeZone: String,
        language: String? = nil, in sql: Transaction
    ) async throws -> Course {
        let code = try await Self.unusedJoinCode(sql)
        let row = try await sql.insert(into: "courses")
            .columns(
                "teacher_id", "name", "description", "planned_sessions", "join_code", "created_at", "time_zone",
                "language"
            )
            .values(
                SQLBind(teacherID), SQLBind(name), SQLBind(description), SQLBind(plannedSessions),
                SQLBind(code.description), SQLBind(Date()), SQLBind(timeZone), SQLBind(language)
            )
            .returning("*").first()
        guard let row else { throw NotSaved(what: "course") }
        return try row.decode(model: Course.self, with: .rollcall)
    }

    /// A person's part in teaching a course, if any besides its own teacher's.
    package func staffRole(courseID: Int64, userID: Int64) async throws -> StaffRole? {
        try await database.read { sql in
            try await sql.select().column("role").from("course_staff").where("course_id", .equal, courseID)
                .where("user_id", .equal, userID).first(decodingColumn: "role", as: String.self)
        }.flatMap(StaffRole.init(rawValue:))
    }

    /// The course's co-teachers and assistants, by name.
    package func staff(courseID: Int64, in reader: Reader) async throws -> [StaffMember] {
        try await database.read { sql in
            let staff = try await sql.raw(
                """
                SELECT users.id, users.name, users.email, course_staff.role, course_staff.added_at
                FROM course_staff JOIN users ON users.id = course_staff.user_id
                WHERE course_staff.course_id = \(bind: courseID)
                """
            ).all(decoding: StaffMember.self, with: .rollcall)
            return reader.collation.sorted(staff, name: \.name, id: \.id)
        }
    }

    /// Adds or changes a member of staff; answers `false` when they already had that role.
    @discardableResult
    package func setStaff(courseID: Int64, userID: Int64, role: StaffRole, now: Date = Date()) async throws -> Bool {
        // One statement, which changes a row only when its role differs: of two adds at once, one answers true.
        try await database.write { sql in
            try await sql.insert(into: "course_staff").columns("course_id", "user_id", "role", "added_at")
                .values(SQLBind(courseID), SQLBind(userID), SQLBind(role.rawValue), SQLBind(now))
                .onConflict(with: ["course_id", "user_id"]) {
                    $0.set(excludedValueOf: "role")
                        .where(SQLColumn("role", table: "course_staff"), .notEqual, SQLBind(role.rawValue))
                }
                .returning("user_id").first() != nil
        }
    }

    /// Removes a member of staff, and keeps in the course's audit who removed whom, in the same transaction: a
    /// colleague who loses the course must be able to learn how. Answers `false` when they were not one.
    package func removeStaff(courseID: Int64, userID: Int64, by actor: User, now: Date = Date()) async throws -> Bool {
        try await database.transaction { sql in
            guard
                let current = try await sql.raw(
                    """
                    SELECT course_staff.role, users.name FROM course_staff JOIN users ON users.id = course_staff.user_id
                    WHERE course_staff.course_id = \(bind: courseID) AND course_staff.user_id = \(bind: userID)
                    """
                ).first()
            else { return false }
            try await sql.delete(from: "course_staff").where("course_id", .equal, courseID)
                .where("user_id", .equal, userID).run()
            // A phrase, said in each reader's language when read.
            let role = StaffRole(rawValue: try current.decode(column: "role", as: String.self)) ?? .assistant
            let detail = try CourseAuditWords.staffRemoved(
                name: try current.decode(column: "name", as: String.self), role: role
            ).storedText()
            try await sql.insert(into: "course_audit").columns(
                "course_id", "action", "detail", "actor_id", "actor_name", "at"
            ).values(
                SQLBind(courseID), SQLBind("staff_removed"), SQLBind(detail), SQLBind(actor.id), SQLBind(actor.name),
                SQLBind(now)
            ).run()
            return true
        }
    }

    /// Gives the course a new join code; the old one stops working at once.
    package func newJoinCode(courseID: Int64) async throws -> Course {
        try await database.transaction { sql in
            let code = try await Self.unusedJoinCode(sql)
            try await sql.update("courses").set("join_code", to: code.description).where("id", .equal, courseID).run()
            guard
                let course = try await sql.select().column("*").from("courses").where("id", .equal, courseID)
                    .first(decoding: Course.self, with: .rollcall)
            else { throw NotStored(.courseNotFound, what: "course") }
            return course
        }
    }

    /// A random join code no course has: 23^7 codes make a collision rare, and drawing again keeps the unique index
    /// from ever refusing.
    private static func unusedJoinCode(_ sql: any SQLDatabase) async throws -> JoinCode {
        var generator = SystemRandomNumberGenerator()
        var code = JoinCode.random(using: &generator)
        while try await sql.select().column("id").from("courses").where("join_code", .equal, code.description)
            .first() != nil
        {
            code = JoinCode.random(using: &generator)
        }
        return code
    }

    package func find(id: Int64) async throws -> Course? {
        try await database.read { sql in
            try await sql.select().column("*").from("courses").where("id", .equal, id)
                .first(decoding: Course.self, with: .rollcall)
        }
    }

    package func find(joinCode: JoinCode) async throws -> Course? {
        try await database.read { sql in
            try await sql.select().column("*").from("courses").where("join_code", .equal, joinCode.description)
                .first(decoding: Course.self, with: .rollcall)
        }
    }

    /// The courses a person sees on their course list: their own as teacher, joined as student, all as admin.
    package func list(for user: User) async throws -> [CourseSummary] {
        try await database.read { sql in
            var select = Self.summaries(sql).column(
                SQLQueryString(
                    "(SELECT role FROM course_staff s WHERE s.course_id = courses.id AND s.user_id = \(bind: user.id))"),
                as: "staff_role")
            switch user.role {
            case .admin: break
            case .healthOfficer: return []
            case .teacher:
                select = select.where(
                    SQLQueryString(
                        "(courses.teacher_id = \(bind: user.id) OR courses.id IN (SELECT course_id FROM course_staff WHERE user_id = \(bind: user.id)))"
                    ))
            case .student:
                // A student may assist in another course: it is on their list too.
                select = select.where(
                    SQLQueryString(
                        "(courses.id IN (SELECT course_id FROM enrollments WHERE student_id = \(bind: user.id)) OR courses.id IN (SELECT course_id FROM course_staff WHERE user_id = \(bind: user.id)))"
                    ))
            }
            return try await select.orderBy(SQLColumn("name", table: "courses")).all().map { row in
                var summary = try Self.summary(row: row)
                summary.staffRole =
                    try row.decodeNil(column: "staff_role")
                    ? nil : StaffRole(rawValue: try row.decode(column: "staff_role", as: String.self))
                return summary
            }
        }
    }

    /// The course with its teacher's name and its number of students.
    package func summary(of course: Course) async throws -> CourseSummary {
        try await database.read { sql in
            guard
                let row = try await Self.summaries(sql).where(
                    SQLColumn("id", table: "courses"), .equal, SQLBind(course.id)
                )
                .first()
            else { throw NotStored(.courseNotFound, what: "course") }
            return try Self.summary(row: row)
        }
    }

    private static func summary(row: any SQLRow) throws -> CourseSummary {
        CourseSummary(
            course: try row.decode(model: Course.self, with: .rollcall),
            teacherName: try row.decode(column: "teacher_name", as: String.self),
            studentCount: try row.decode(column: "student_count", as: Int.self)
        )
    }

    private static func summaries(_ sql: any SQLDatabase) -> SQLSelectBuilder {
        sql.select().column(SQLColumn("*", table: "courses"))
            .column(SQLColumn("name", table: "teachers"), as: "teacher_name")
            .column(
                SQLRaw("(SELECT COUNT(*) FROM enrollments e WHERE e.course_id = courses.id)"), as: "student_count"
            )
            .from("courses").join(
                SQLAlias(SQLIdentifier("users"), as: SQLIdentifier("teachers")),
                on: SQLRaw("teachers.id = courses.teacher_id"))
    }

    /// Changes a course as `change` says, applied to the course as it stands under its row lock: an edit and an
    /// archive (or two edits) at the same moment, in any processes, each keep what the other changed. Answers the
    /// course as written, and the timetabled sessions to come that a new zone moved to the same wall-clock time in it
    /// (`TimetableStore.followZone`); whatever `change` throws leaves it as it was.
    package func update(
        id: Int64, _ change: @Sendable (inout Course) throws -> Void
    ) async throws -> (course: Course, rescheduled: [Int64]) {
        let changed = try await database.transaction { sql in
            guard
                var course = try await sql.select().column("*").from("courses").where("id", .equal, id).for(.update)
                    .first(decoding: Course.self, with: .rollcall)
            else { throw NotStored(.courseNotFound, what: "course") }
            let zone = course.zone
            try change(&course)
            try await Self.write(course, in: sql)
            guard course.zone != zone else { return (course: course, rescheduled: [Int64]()) }
            let moved = try await TimetableStore.followZone(
                courseID: id, from: zone, to: course.zone, now: Date(), in: sql)
            return (course: course, rescheduled: moved)
        }
        // A new zone says its sessions' default titles in it: every session of the course is read again.
        database.announce(.course(id))
        for session in changed.rescheduled { database.announce(.session(session)) }
        return changed
    }

    private static func write(_ course: Course, in sql: any SQLDatabase) async throws {
        try await sql.update("courses").set("name", to: course.name).set("description", to: course.description)
            .set("planned_sessions", to: course.plannedSessions)
            .set("points_present", to: course.pointsPresent).set("points_late", to: course.pointsLate)
            .set("points_excused", to: course.pointsExcused).set("points_absent", to: course.pointsAbsent)
            .set("mark_absent_on_close", to: course.markAbsentOnClose)
            .set("absentee_threshold", to: course.absenteeThreshold).set("time_zone", to: course.timeZone)
            .set("quiz_weight", to: course.quizWeight).set("join_from_scan", to: course.joinFromScan)
            .set("archived_at", to: course.archivedAt)
            .set("absence_notices_since", to: course.absenceNoticesSince)
            .set("session_defaults", to: course.sessionDefaults).set("language", to: course.language)
            .where("id", .equal, course.id).run()
    }

    package func setPoster(courseID: Int64, image: StoredImage) async throws {
        try await ImageStore.replace(image, table: "courses", column: "poster_id", id: courseID, database: database)
    }

    /// Whether a student on the roster gets the course's weekly absence notes (they do unless they said no).
    package func setAbsenceNotices(courseID: Int64, studentID: Int64, receive: Bool) async throws {
        try await database.write { sql in
            try await sql.update("enrollments").set("absence_notices_off", to: !receive)
                .where("course_id", .equal, courseID).where("student_id", .equal, studentID).run()
        }
    }

    /// The latest week the course's absence notices were queued, and to how many students.
    package func latestAbsenceNotices(courseID: Int64) async throws -> (dueAt: Date, students: Int)? {
        try await database.read { sql in
            guard
                let row = try await sql.select().columns("due_at", "students").from("absence_notice_weeks")
                    .where("course_id", .equal, courseID).orderBy("due_at", .descending).limit(1).first()
            else { return nil }
            return (try row.decode(column: "due_at", as: Date.self), try row.decode(column: "students", as: Int.self))
        }
    }

    package func receivesAbsenceNotices(courseID: Int64, studentID: Int64) async throws -> Bool {
        try await database.read { sql in
            let row = try await sql.select().column("absence_notices_off").from("enrollments")
                .where("course_id", .equal, courseID).where("student_id", .equal, studentID).first()
            return try !(row?.decode(column: "absence_notices_off", as: Bool.self) ?? false)
        }
    }

    /// The course's roster: enrolments, imports and invitations.
    package var roster: RosterStore { RosterStore(database: database) }

    /// Refuses a change to a course archived since the request was checked (409 `course_archived`), holding the
    /// course's row shared until the transaction ends.
    package static func requireActive(courseID: Int64, in sql: Transaction) async throws {
        if try await archived(courseID: courseID, in: sql) { throw AppError.courseArchived }
    }

    /// Whether the course is archived, or gone.
    package static func archived(courseID: Int64, in sql: Transaction) async throws -> Bool {
        let course = try await sql.raw(
            "SELECT archived_at FROM courses WHERE id = \(bind: courseID)\(unsafeRaw: shared(sql))"
        ).first()
        guard let course else { throw NotStored(.courseNotFound, what: "course") }
        return try !course.decodeNil(column: "archived_at")
    }

    package static func shared(_ sql: Transaction) -> String {
        sql.dialect.name == "postgresql" ? " FOR SHARE" : ""
    }
}
