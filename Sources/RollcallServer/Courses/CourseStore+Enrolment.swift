import Foundation
import RollcallCore
import SQLKit

/// Why a student cannot join a course at the moment of writing, though they could when the request was checked.
enum EnrolmentRefusal: Error, Sendable, Equatable {
    /// The course was archived meanwhile: it takes no new students.
    case courseArchived
    /// The account was deleted meanwhile.
    case accountDeleted

    var error: AppError {
        switch self {
        case .courseArchived: AppError.courseArchived
        case .accountDeleted: AppError.conflict(.accountDeleted, "This account has already been deleted.")
        }
    }
}

/// The roster's writes: each decides, inside its own transaction, on the course and the account as they are then,
/// so that an archive or an erasure committed a moment before is seen, and one under way is waited for.
extension CourseStore {
    /// Adds a student; answers `false` when they were already on the roster, which is not an error.
    @discardableResult
    func enroll(courseID: Int64, studentID: Int64) async throws -> Bool {
        try await database.transaction { sql in
            try await Self.enroll(courseID: courseID, studentID: studentID, in: sql)
        }
    }

    /// Puts a student on the roster unless already there, whatever else joins them at once; `false` when they were
    /// on it. Refused (`course_archived`, `account_deleted`) when the course was archived or the account erased since
    /// the request was checked.
    static func enroll(
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
    static func joinRefusal(
        courseID: Int64, studentID: Int64, in sql: Transaction
    ) async throws -> EnrolmentRefusal? {
        if try await archived(courseID: courseID, in: sql) { return .courseArchived }
        let account = try await sql.raw(
            "SELECT deleted_at FROM users WHERE id = \(bind: studentID)\(unsafeRaw: shared(sql))"
        ).first()
        guard let account, try account.decodeNil(column: "deleted_at") else { return .accountDeleted }
        return nil
    }

    /// Refuses a change to a course archived since the request was checked (409 `course_archived`), holding the
    /// course's row shared until the transaction ends.
    static func requireActive(courseID: Int64, in sql: Transaction) async throws {
        if try await archived(courseID: courseID, in: sql) { throw AppError.courseArchived }
    }

    /// Whether the course is archived, or gone.
    private static func archived(courseID: Int64, in sql: Transaction) async throws -> Bool {
        let course = try await sql.raw(
            "SELECT archived_at FROM courses WHERE id = \(bind: courseID)\(unsafeRaw: shared(sql))"
        ).first()
        guard let course else { throw NotStored(.courseNotFound, what: "course") }
        return try !course.decodeNil(column: "archived_at")
    }

    private static func shared(_ sql: Transaction) -> String {
        sql.dialect.name == "postgresql" ? " FOR SHARE" : ""
    }

    /// Takes a student off the roster; their past attendance stays on record. A teacher's change (`changing`) is
    /// refused when the course was archived meanwhile; a student leaving is not.
    func unenroll(courseID: Int64, studentID: Int64, changing: Bool = true) async throws -> Bool {
        try await database.transaction { sql in
            if changing { try await Self.requireActive(courseID: courseID, in: sql) }
            return try await sql.delete(from: "enrollments").where("course_id", .equal, courseID)
                .where("student_id", .equal, studentID).returning("student_id").first() != nil
        }
    }
}
