import Foundation
import RollcallModel
import RollcallStorage

@testable import RollcallServer

extension Database {
    /// A teacher's new course with a session open now, written straight through the stores.
    func openSessionOfNewCourse() async throws -> ClassSession {
        let teacher = try await UserStore(database: self).create(
            NewUser(
                name: "Tess", email: "tess@school.test", passwordHash: "x", role: .teacher, studentNumber: nil,
                approved: true)
        )
        let course = try await CourseStore(database: self).create(
            teacherID: teacher.id, name: "Biology", description: "", plannedSessions: nil)
        return try await SessionStore(database: self).create(
            courseID: course.id, title: "Monday", settings: .standard, scheduledAt: nil, openNow: true)
    }
}
