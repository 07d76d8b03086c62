import Foundation
import RollcallCore
import RollcallModel
import RollcallParts
import RollcallWeb
import RollcallWords

/// Where a resource link's launch leads, for a launch that goes on at once and for one its person answered: an
/// instructor's links or finds the course, a student's joins it.
struct LaunchDestinations: Sendable {
    let launches: LaunchStates
    let linkedCourses: PlatformCourses
    let links: CourseLinks
    /// The zone of a new course whose instructor's profile names none (`ROLLCALL_DEFAULT_TIME_ZONE`).
    var schoolTimeZone = CourseTimeZone.serverDefault

    /// Where a resource link's launch leads: an instructor's links (or finds) the course, syncs its roster and
    /// finds its line item, and lands on the course; an assistant and a student land on the course they are put
    /// in, where a student checks in while a session is open.
    func destination(
        _ launch: LTI.Launch, platform: LearningPlatform, user: User
    ) async throws -> String {
        guard let platformCourse = launch.context else { return "/courses" }
        if launch.role == .teacher {
            if try await linkedCourses.linkedCourse(platformID: platform.id, contextID: platformCourse.id) == nil,
                try await !linkedCourses.linkableCourses(teacherID: user.id).isEmpty
            {
                // A teacher with courses of their own picks one, or a new course.
                let code = try await launches.keep(
                    .init(kind: .course, platformID: platform.id, userID: user.id, launch: launch))
                return LearningPlatformRoutes.coursePage.description + "?code=" + code
            }
            return try await linkCourse(launch, context: platformCourse, platform: platform, user: user, existing: nil)
        }
        return try await joinCourse(launch, context: platformCourse, platform: platform, user: user)
    }

    /// Links the platform's course to `existing` or a new course, with the instructor as its teacher or co-teacher;
    /// syncs its roster and finds its line item. Answers the course's page.
    func linkCourse(
        _ launch: LTI.Launch, context platformCourse: LTI.Context, platform: LearningPlatform, user: User,
        existing: Int64?
    ) async throws -> String {
        // A new course takes its instructor's zone, as one made from the course form does.
        let linked = try await linkedCourses.link(
            launch, context: platformCourse, platformID: platform.id, teacherID: user.id, existing: existing,
            timeZone: user.timeZone ?? schoolTimeZone)
        if let course = try await links.courses.find(id: linked.courseId), course.teacherId != user.id {
            try await links.courses.setStaff(courseID: course.id, userID: user.id, role: .teacher)
        }
        // The platform's services are a help, not a condition: a launch goes on while they are away.
        if linked.membershipsUrl != nil {
            do {
                _ = try await links.sync(linked, platform: platform)
            } catch {
                links.logger.warning("the roster sync on launch failed: \(error)")
            }
        }
        if linked.lineItemsUrl != nil || linked.lineItemUrl != nil {
            do {
                _ = try await links.lineItem(linked, platform: platform)
            } catch {
                links.logger.warning("the line item on launch failed: \(error)")
            }
        }
        return "/courses/\(linked.courseId)"
    }

    /// Puts an assistant or a student in the linked course. Answers the course's page.
    func joinCourse(
        _ launch: LTI.Launch, context platformCourse: LTI.Context, platform: LearningPlatform, user: User
    ) async throws -> String {
        guard let linked = try await linkedCourses.linkedCourse(platformID: platform.id, contextID: platformCourse.id)
        else {
            throw AppError(
                .notFound, .courseNotFound,
                "Rollcall is not set up for this course yet. Its instructor sets it up by opening Rollcall from the course once."
            )
        }
        if launch.role == .assistant {
            if let course = try await links.courses.find(id: linked.courseId), course.teacherId != user.id {
                try await links.courses.setStaff(courseID: course.id, userID: user.id, role: .assistant)
            }
        } else {
            try await links.courses.roster.enroll(courseID: linked.courseId, studentID: user.id)
        }
        return "/courses/\(linked.courseId)"
    }
}
