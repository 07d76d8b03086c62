import Foundation
import RollcallCore
import RollcallStorage
import RollcallWords
import SQLKit

/// Why a student cannot join a course at the moment of writing, though they could when the request was checked.
package enum EnrolmentRefusal: Error, Sendable, Equatable {
    /// The course was archived meanwhile: it takes no new students.
    case courseArchived
    /// The account was deleted meanwhile.
    case accountDeleted

    package var error: AppError {
        switch self {
        case .courseArchived: AppError.courseArchived
        case .accountDeleted: AppError.conflict(.accountDeleted, "This account has already been deleted.")
        }
    }
}

/// A student invited to a course by a roster import before they had an account; they join once their email
/// address is confirmed.
package struct CourseInvitation: Codable, Sendable, Equatable {
    package var courseId: Int64
    package var email: String
    package var name: String
    package var studentNumber: String?
    package var invitedAt: Date
    /// When the letter was queued; `nil` while it waits for the teacher's daily allowance.
    package var mailedAt: Date?
}

/// What a roster import did.
package struct RosterImportResult: Codable, Sendable, Equatable {
    /// Students with an account, now on the roster.
    package var enrolled: Int
    /// Students who were on the roster already.
    package var alreadyEnrolled: Int
    /// People invited by an earlier import, not mailed again (their name and number are brought up to date).
    package var alreadyInvited = 0
    /// People without an account yet, invited by email.
    package var invited: [CourseInvitation]

    package init(enrolled: Int, alreadyEnrolled: Int, invited: [CourseInvitation]) {
        self.enrolled = enrolled
        self.alreadyEnrolled = alreadyEnrolled
        self.invited = invited
    }
}

/// A course's roster: who is on it, joining and leaving, imports and the invitations they send. Each write decides,
/// inside its own transaction, on the course and the account as they are then, so that an archive or an erasure
/// committed a moment before is seen, and one under way is waited for.
package struct RosterStore: Sendable {
    package let database: Database

    package init(database: Database) {
        self.database = database
    }

    /// Adds a student; answers `false` when they were already on the roster, which is not an error.
    @discardableResult
    package func enroll(courseID: Int64, studentID: Int64) async throws -> Bool {
        try await database.transaction { sql in
            try await Self.enroll(courseID: courseID, studentID: studentID, in: sql)
        }
    }

    /// Puts a student on the roster unless already there, whatever else joins them at once; `false` when they were
    /// on it. Refused (`course_archived`, `account_deleted`) when the course was archived or the account erased since
    /// the request was checked.
    package static func enroll(
        courseID: Int64, studentID: Int64, at now: Date = Date(), in sql: Transaction
    ) async throws -> Bool {
        if try await isEnrolled(courseID: courseID, studentID: studentID, sql: sql) { return false }
        if let refusal = try await joinRefusal(courseID: courseID, studentID: studentID, in: sql) {
            throw refusal.error
        }
        return try await sql.insert(into: "enrollments").columns("course_id", "student_id", "joined_at")
            .values(SQLBind(courseID), SQLBind(studentID), SQLBind(now))
            .ignoringConflicts(with: ["course_id", "student_id"]).returning("student_id").first() != nil
    }

    /// Why the student cannot join the course now, if anything: read with both rows held shared until the
    /// transaction ends (PostgreSQL; SQLite's one writer already excludes the change), so that an archive (which
    /// holds the course's row) or an erasure (which holds the account's) comes wholly before or wholly after.
    package static func joinRefusal(
        courseID: Int64, studentID: Int64, in sql: Transaction
    ) async throws -> EnrolmentRefusal? {
        if try await CourseStore.archived(courseID: courseID, in: sql) { return .courseArchived }
        let account = try await sql.raw(
            "SELECT deleted_at FROM users WHERE id = \(bind: studentID)\(unsafeRaw: CourseStore.shared(sql))"
        ).first()
        guard let account, try account.decodeNil(column: "deleted_at") else { return .accountDeleted }
        return nil
    }

    /// Takes a student off the roster; their past attendance stays on record. A teacher's change (`changing`) is
    /// refused when the course was archived meanwhile; a student leaving is not.
    package func unenroll(courseID: Int64, studentID: Int64, changing: Bool = true) async throws -> Bool {
        try await database.transaction { sql in
            if changing { try await CourseStore.requireActive(courseID: courseID, in: sql) }
            return try await sql.delete(from: "enrollments").where("course_id", .equal, courseID)
                .where("student_id", .equal, studentID).returning("student_id").first() != nil
        }
    }

    package func isEnrolled(courseID: Int64, studentID: Int64) async throws -> Bool {
        try await database.read { sql in try await Self.isEnrolled(courseID: courseID, studentID: studentID, sql: sql) }
    }

    package static func isEnrolled(courseID: Int64, studentID: Int64, sql: any SQLDatabase) async throws -> Bool {
        try await sql.select().column("student_id").from("enrollments").where("course_id", .equal, courseID)
            .where("student_id", .equal, studentID).first() != nil
    }

    /// The roster by name, filtered by name, email or student number when `query` is given.
    package func list(courseID: Int64, query: String? = nil, in reader: Reader) async throws -> [RosterEntry] {
        try await database.read { sql in
            var select = sql.select()
                .columns(
                    SQLColumn("id", table: "users"), SQLColumn("name", table: "users"),
                    SQLColumn("email", table: "users"), SQLColumn("student_number", table: "users"),
                    SQLColumn("joined_at", table: "enrollments")
                )
                .from("enrollments").join(
                    "users", on: SQLColumn("id", table: "users"), .equal, SQLColumn("student_id", table: "enrollments")
                )
                .where(SQLColumn("course_id", table: "enrollments"), .equal, SQLBind(courseID))
            if let query, !query.isEmpty {
                let pattern = "%\(query.lowercased())%"
                select = select.where { group in
                    group.where(SQLFunction("lower", args: SQLColumn("name", table: "users")), .like, SQLBind(pattern))
                        .orWhere(SQLColumn("email", table: "users"), .like, SQLBind(pattern))
                        .orWhere(
                            SQLFunction("lower", args: SQLColumn("student_number", table: "users")), .like,
                            SQLBind(pattern)
                        )
                }
            }
            let entries = try await select.all(decoding: RosterEntry.self, with: .rollcall)
            return reader.collation.sorted(entries, name: \.name, id: \.id)
        }
    }

    /// Puts a checked roster file on the course in one transaction: every row is enrolled or invited, or, if any
    /// row clashes with an existing account, nothing is stored and every clashing row is named.
    package func importRoster(
        courseID: Int64, entries: [RosterImport.Entry], by teacher: User, now: Date = Date()
    ) async throws -> RosterImportResult {
        try await database.transaction { sql in
            var sorted = try await Self.sort(entries, sql: sql)
            if !sorted.invitations.isEmpty, sql.dialect.name == "postgresql" {
                // The addresses to invite held, then sorted again: someone who registered and confirmed meanwhile is
                // enrolled, and someone confirming from now on waits for this import, then takes its invitation. Held
                // before the course, as a confirmation holds its address before the courses it joins.
                for email in Set(sorted.invitations.map(\.email)).sorted() { try await sql.holdAddress(email) }
                sorted = try await Self.sort(entries, sql: sql)
            }
            try await CourseStore.requireActive(courseID: courseID, in: sql)
            guard sorted.errors.isEmpty else { throw RosterImport.RowErrors(sorted.errors) }
            var result = RosterImportResult(enrolled: 0, alreadyEnrolled: 0, invited: [])
            for studentID in sorted.students {
                if try await Self.enroll(courseID: courseID, studentID: studentID, at: now, in: sql) {
                    result.enrolled += 1
                } else {
                    result.alreadyEnrolled += 1
                }
            }
            for entry in sorted.invitations {
                if let invitation = try await Self.invite(entry, courseID: courseID, by: teacher.id, at: now, sql: sql)
                {
                    result.invited.append(invitation)
                } else {
                    result.alreadyInvited += 1
                }
            }
            return result
        }
    }

    /// The rows that clash with an account (a teacher's address, a student number taken), for the import's answer.
    package func problems(_ entries: [RosterImport.Entry]) async throws -> [RosterImport.RowError] {
        try await database.read { sql in try await Self.sort(entries, sql: sql).errors }
    }

    /// A roster file's rows sorted against the accounts: students who have one, people to invite, and the rows
    /// that clash with another account.
    package struct SortedRoster {
        package var students: [Int64] = []
        package var invitations: [RosterImport.Entry] = []
        package var errors: [RosterImport.RowError] = []
    }

    package static func sort(_ entries: [RosterImport.Entry], sql: any SQLDatabase) async throws -> SortedRoster {
        var sorted = SortedRoster()
        for entry in entries {
            if let user = try await sql.select().columns("id", "role").from("users")
                .where("email", .equal, entry.email).first()
            {
                // Whose account it is, and its role, are not the importing teacher's to learn.
                guard try user.decode(column: "role", as: String.self) == Role.student.rawValue else {
                    sorted.errors.append(
                        .init(
                            line: entry.line, code: "not_a_student",
                            message: "\(entry.email) is not a student's address here; leave this row out."))
                    continue
                }
                sorted.students.append(try user.decode(column: "id", as: Int64.self))
            } else if let number = entry.studentNumber,
                try await sql.select().column("id").from("users").where("student_number", .equal, number).first()
                    != nil
            {
                sorted.errors.append(
                    .init(
                        line: entry.line, code: "student_number_taken",
                        message: "Student number \(number) belongs to another account; check the number."))
            } else {
                sorted.invitations.append(entry)
            }
        }
        return sorted
    }

    /// Invites someone without an account; answers the new invitation, or `nil` when they were invited already (their
    /// name and number are then brought up to date, and nobody is mailed again).
    package static func invite(
        _ entry: RosterImport.Entry, courseID: Int64, by teacherID: Int64, at now: Date, sql: any SQLDatabase
    ) async throws -> CourseInvitation? {
        let inserted = try await sql.insert(into: "course_invitations")
            .columns("course_id", "email", "name", "student_number", "invited_by", "invited_at")
            .values(
                SQLBind(courseID), SQLBind(entry.email), SQLBind(entry.name), SQLBind(entry.studentNumber),
                SQLBind(teacherID), SQLBind(now)
            )
            .ignoringConflicts(with: ["course_id", "email"]).returning("email").first()
        guard inserted != nil else {
            try await sql.update("course_invitations").set("name", to: entry.name)
                .set("student_number", to: entry.studentNumber)
                .where("course_id", .equal, courseID).where("email", .equal, entry.email).run()
            return nil
        }
        return CourseInvitation(
            courseId: courseID, email: entry.email, name: entry.name, studentNumber: entry.studentNumber,
            invitedAt: now)
    }

    /// The people invited to a course who have no account yet, by name.
    package func invitations(courseID: Int64) async throws -> [CourseInvitation] {
        try await database.read { sql in
            try await sql.select().column("*").from("course_invitations").where("course_id", .equal, courseID)
                .orderBy("name").all(decoding: CourseInvitation.self, with: .rollcall)
        }
    }

    /// Enrols a student whose email address was just confirmed in every course that invited that address.
    package func acceptInvitations(studentID: Int64, email: String, now: Date = Date()) async throws {
        defer { database.caches.identities.forget(userID: studentID) }
        let numbered = try await database.transaction { sql -> Bool in
            // Held against a roster import inviting the address at this moment: it comes wholly before, and its
            // invitation is taken here, or wholly after, and enrols the account instead.
            try await sql.holdAddress(email)
            // Taken by deleting them: a second confirmation at the same moment finds none to take.
            let taken = try await sql.delete(from: "course_invitations").where("email", .equal, email)
                .returning("course_id", "student_number").all()
            var number: String?
            for invitation in taken {
                let courseID = try invitation.decode(column: "course_id", as: Int64.self)
                // A course archived since the invitation takes no one; the invitation goes all the same.
                if try await Self.joinRefusal(courseID: courseID, studentID: studentID, in: sql) == nil {
                    _ = try await Self.enroll(courseID: courseID, studentID: studentID, at: now, in: sql)
                }
                number = try number ?? invitation.decode(column: "student_number", as: String?.self)
            }
            // The number the roster gave, for a student who registered without one, unless someone else has it.
            if let number {
                try await UserStore.giveStudentNumber(number, to: studentID, in: sql)
                return true
            }
            return false
        }
        if numbered { database.announce(.user(studentID)) }
    }
}
