import Foundation
import RollcallCore
import SQLKit

/// A student invited to a course by a roster import before they had an account; they join once their email
/// address is confirmed.
struct CourseInvitation: Codable, Sendable, Equatable {
    var courseId: Int64
    var email: String
    var name: String
    var studentNumber: String?
    var invitedAt: Date
    /// When the letter was queued; `nil` while it waits for the teacher's daily allowance.
    var mailedAt: Date?
}

/// What a roster import did.
struct RosterImportResult: Codable, Sendable, Equatable {
    /// Students with an account, now on the roster.
    var enrolled: Int
    /// Students who were on the roster already.
    var alreadyEnrolled: Int
    /// People invited by an earlier import, not mailed again (their name and number are brought up to date).
    var alreadyInvited = 0
    /// People without an account yet, invited by email.
    var invited: [CourseInvitation]
}

extension CourseStore {
    /// Puts a checked roster file on the course in one transaction: every row is enrolled or invited, or, if any
    /// row clashes with an existing account, nothing is stored and every clashing row is named.
    func importRoster(
        courseID: Int64, entries: [RosterImport.Entry], by teacher: User, now: Date = Date()
    ) async throws -> RosterImportResult {
        try await database.transaction { sql in
            var sorted = try await Self.sortRoster(entries, sql: sql)
            if !sorted.invitations.isEmpty, sql.dialect.name == "postgresql" {
                // The addresses to invite held, then sorted again: someone who registered and confirmed meanwhile is
                // enrolled, and someone confirming from now on waits for this import, then takes its invitation. Held
                // before the course, as a confirmation holds its address before the courses it joins.
                for email in Set(sorted.invitations.map(\.email)).sorted() { try await sql.holdAddress(email) }
                sorted = try await Self.sortRoster(entries, sql: sql)
            }
            try await Self.requireActive(courseID: courseID, in: sql)
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
    func rosterProblems(_ entries: [RosterImport.Entry]) async throws -> [RosterImport.RowError] {
        try await database.read { sql in try await Self.sortRoster(entries, sql: sql).errors }
    }

    /// A roster file's rows sorted against the accounts: students who have one, people to invite, and the rows
    /// that clash with another account.
    struct SortedRoster {
        var students: [Int64] = []
        var invitations: [RosterImport.Entry] = []
        var errors: [RosterImport.RowError] = []
    }

    static func sortRoster(_ entries: [RosterImport.Entry], sql: any SQLDatabase) async throws -> SortedRoster {
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
    static func invite(
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
    func invitations(courseID: Int64) async throws -> [CourseInvitation] {
        try await database.read { sql in
            try await sql.select().column("*").from("course_invitations").where("course_id", .equal, courseID)
                .orderBy("name").all(decoding: CourseInvitation.self, with: .rollcall)
        }
    }

    /// Enrols a student whose email address was just confirmed in every course that invited that address.
    func acceptInvitations(studentID: Int64, email: String, now: Date = Date()) async throws {
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
        if numbered { await database.announce(.user(studentID)) }
    }
}
