import Foundation
import RollcallCore
import RollcallStorage
import RollcallWords
import SQLKit

/// The platforms' courses as Rollcall links them, their rosters, and the rounds of grades sent back.
package struct PlatformCourses: Sendable {
    package let database: Database
    package let courses: CourseStore

    package init(database: Database, courses: CourseStore) {
        self.database = database
        self.courses = courses
    }

    /// The courses a teacher may link a platform's course to: their own, not archived, not linked yet.
    package func linkableCourses(teacherID: Int64) async throws -> [Course] {
        try await database.read { sql in
            try await sql.raw(
                """
                SELECT * FROM courses WHERE teacher_id = \(bind: teacherID) AND archived_at IS NULL
                  AND id NOT IN (SELECT course_id FROM lti_courses) ORDER BY name, id
                """
            ).all(decoding: Course.self, with: .rollcall)
        }
    }

    /// The linked course of a platform's context, if linked.
    package func linkedCourse(platformID: Int64, contextID: String) async throws -> LinkedCourse? {
        try await database.read { sql in
            try await sql.select().column("*").from("lti_courses").where("platform_id", .equal, platformID)
                .where("context_id", .equal, contextID).first(decoding: LinkedCourse.self, with: .rollcall)
        }
    }

    /// The platform course a Rollcall course is linked to, if any.
    package func linkedCourse(courseID: Int64) async throws -> LinkedCourse? {
        try await database.read { sql in
            try await sql.select().column("*").from("lti_courses").where("course_id", .equal, courseID)
                .first(decoding: LinkedCourse.self, with: .rollcall)
        }
    }

    /// The linked course of an instructor's launch: made, with a new Rollcall course taught by `teacherID`, on the
    /// context's first instructor launch; with its service URLs brought up to date on every later one.
    package func link(
        _ launch: LTI.Launch, context: LTI.Context, platformID: Int64, teacherID: Int64, existing: Int64? = nil,
        timeZone: String = CourseTimeZone.serverDefault, now: Date = Date()
    ) async throws -> LinkedCourse {
        if let linked = try await linkedCourse(platformID: platformID, contextID: context.id) {
            try await database.write { sql in
                try await sql.update("lti_courses").set("title", to: context.title)
                    .set("memberships_url", to: launch.membershipsURL ?? linked.membershipsUrl)
                    .set("line_items_url", to: launch.lineItemsURL ?? linked.lineItemsUrl)
                    .set("line_item_url", to: linked.lineItemUrl ?? launch.lineItemURL)
                    .set("resource_link_id", to: linked.resourceLinkId ?? launch.resourceLinkID)
                    .set("grade_scopes", to: launch.gradeScopes.joined(separator: " "))
                    .where("id", .equal, linked.id).run()
            }
            return try await linkedCourse(platformID: platformID, contextID: context.id) ?? linked
        }
        let name = (try? AccountRules.name(context.title)) ?? "Course from \(String(context.id.prefix(40)))"
        @Sendable func insertLink(courseID: Int64, in sql: any SQLDatabase) async throws -> Bool {
            try await sql.insert(into: "lti_courses")
                .columns(
                    "platform_id", "context_id", "course_id", "deployment_id", "title", "memberships_url",
                    "line_items_url", "line_item_url", "resource_link_id", "grade_scopes", "created_at"
                )
                .values(
                    SQLBind(platformID), SQLBind(context.id), SQLBind(courseID), SQLBind(launch.deploymentID),
                    SQLBind(context.title), SQLBind(launch.membershipsURL), SQLBind(launch.lineItemsURL),
                    SQLBind(launch.lineItemURL), SQLBind(launch.resourceLinkID),
                    SQLBind(launch.gradeScopes.joined(separator: " ")), SQLBind(now)
                )
                // Either conflict: the context linked meanwhile, or the course picked linked to another context.
                .ignoringConflicts().returning("id").first() != nil
        }
        if let existing, let found = try await courses.find(id: existing) {
            _ = try await database.write { sql in try await insertLink(courseID: found.id, in: sql) }
        } else {
            // The new course and its link are one transaction: nobody sees the course unlinked (an instructor's
            // other launch would offer it to pick), and a launch that loses the race to link keeps no course.
            do {
                try await database.transaction { sql in
                    let course = try await CourseStore.create(
                        teacherID: teacherID, name: name, description: "", plannedSessions: nil,
                        timeZone: timeZone, in: sql)
                    guard try await insertLink(courseID: course.id, in: sql) else { throw LinkedMeanwhile() }
                }
            } catch is LinkedMeanwhile {}
        }
        guard let linked = try await linkedCourse(platformID: platformID, contextID: context.id) else {
            throw AppError(
                .conflict, .ltiCourseLinked,
                "That course was linked to another course of the platform meanwhile. Open Rollcall from the course again to pick another."
            )
        }
        return linked
    }

    /// Another launch of the same context linked it first.
    private struct LinkedMeanwhile: Error {}

    /// Keeps the line item Rollcall's grades go to.
    package func setLineItem(_ url: String, linkedCourseID: Int64) async throws {
        try await database.write { sql in
            try await sql.update("lti_courses").set("line_item_url", to: url).where("id", .equal, linkedCourseID).run()
        }
    }

    /// The students on the roster who came from the platform, with their platform subject and Rollcall id.
    package func linkedStudents(_ linked: LinkedCourse) async throws -> [(student: LTI.LinkedStudent, userID: Int64)] {
        struct Row: Decodable {
            package var subject: String
            package var userId: Int64
            package var name: String
            package var studentNumber: String?
        }
        let rows = try await database.read { sql in
            try await sql.raw(
                """
                SELECT lti_identities.subject, users.id AS user_id, users.name, users.student_number
                FROM enrollments
                JOIN lti_identities ON lti_identities.user_id = enrollments.student_id
                  AND lti_identities.platform_id = \(bind: linked.platformId)
                JOIN users ON users.id = enrollments.student_id
                WHERE enrollments.course_id = \(bind: linked.courseId)
                """
            ).all(decoding: Row.self, with: .rollcall)
        }
        return rows.map {
            (LTI.LinkedStudent(userID: $0.subject, name: $0.name, studentNumber: $0.studentNumber), $0.userId)
        }
    }

    /// The platform subject of each of these Rollcall accounts.
    package func subjects(platformID: Int64, userIDs: [Int64]) async throws -> [Int64: String] {
        guard !userIDs.isEmpty else { return [:] }
        return try await database.read { sql in
            let rows = try await sql.select().columns("user_id", "subject").from("lti_identities")
                .where("platform_id", .equal, platformID).where("user_id", .in, userIDs).all()
            var subjects: [Int64: String] = [:]
            for row in rows {
                subjects[try row.decode(column: "user_id", as: Int64.self)] = try row.decode(
                    column: "subject", as: String.self)
            }
            return subjects
        }
    }

    /// Notes a sync done.
    package func synced(linkedCourseID: Int64, at now: Date = Date()) async throws {
        try await database.write { sql in
            try await sql.update("lti_courses").set("synced_at", to: now).where("id", .equal, linkedCourseID).run()
        }
    }

    /// The linked courses with a session that ended after their grades were last queued, each with the latest end:
    /// one query, however many courses are linked, as every process asks every few seconds.
    package func endedSinceGraded(now: Date = Date()) async throws -> [(linked: LinkedCourse, ended: Date)] {
        struct Row: Decodable {
            package var id: Int64
            package var ended: Date
        }
        let (rows, linked) = try await database.read { sql in
            let rows = try await sql.raw(
                """
                SELECT id, ended FROM (
                  SELECT lti_courses.id, lti_courses.graded_through,
                    MAX(COALESCE(sessions.closed_at,
                      CASE WHEN sessions.closes_at <= \(bind: now) THEN sessions.closes_at END)) AS ended
                  FROM lti_courses JOIN sessions ON sessions.course_id = lti_courses.course_id
                  GROUP BY lti_courses.id, lti_courses.graded_through
                ) AS latest
                WHERE ended IS NOT NULL AND (graded_through IS NULL OR ended > graded_through)
                """
            ).all(decoding: Row.self, with: .rollcall)
            guard !rows.isEmpty else { return ([Row](), [LinkedCourse]()) }
            let linked = try await sql.select().column("*").from("lti_courses").where("id", .in, rows.map(\.id))
                .all(decoding: LinkedCourse.self, with: .rollcall)
            return (rows, linked)
        }
        let byID = Dictionary(uniqueKeysWithValues: linked.map { ($0.id, $0) })
        return rows.compactMap { row in byID[row.id].map { ($0, row.ended) } }
    }

    /// Puts the grading mark back where it was, unless another round moved it on meanwhile.
    package func releaseGrading(linkedCourseID: Int64, through: Date, back: Date?) async throws {
        try await database.write { sql in
            try await sql.update("lti_courses").set("graded_through", to: back)
                .where("id", .equal, linkedCourseID).where("graded_through", .equal, through).run()
        }
    }

    /// Claims the grading of a linked course's sessions ended up to `through`, once whichever process asks: `true`
    /// for the one that moved the mark.
    package func claimGrading(linkedCourseID: Int64, through: Date) async throws -> Bool {
        try await database.write { sql in
            try await sql.raw(
                """
                UPDATE lti_courses SET graded_through = \(bind: through)
                WHERE id = \(bind: linkedCourseID) AND (graded_through IS NULL OR graded_through < \(bind: through))
                RETURNING id
                """
            ).first() != nil
        }
    }
}
