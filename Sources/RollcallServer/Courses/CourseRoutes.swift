import Hummingbird

/// Every path of courses: the course itself, joining it and its roster.
enum CourseRoutes {
    static let courses = APIPath.api("courses")
    static let join = APIPath.api("courses/join")
    static let course = APIPath.api("courses/:courseID")
    static let poster = APIPath.api("courses/:courseID/poster")
    static let students = APIPath.api("courses/:courseID/students")
    static let student = APIPath.api("courses/:courseID/students/:studentID")
    static let joinCode = APIPath.api("courses/:courseID/join-code")
    static let leave = APIPath.api("courses/:courseID/leave")
    static let absenceNotices = APIPath.api("courses/:courseID/absence-notices")
    static let staff = APIPath.api("courses/:courseID/staff")
    static let staffMember = APIPath.api("courses/:courseID/staff/:userID")
}

extension CourseRoutes {
    static let coursesPage: RouterPath = "/courses"
    static let coursePage: RouterPath = "/courses/:courseID"
}

extension CourseRoutes {
    /// Adds courses, joining them, their rosters and staff, and the course pages.
    static func addRoutes(to router: AppRouter, _ parts: AppParts) {
        let stores = parts.stores
        CoursesController(
            courses: stores.courses, users: stores.users, images: stores.images, access: parts.access,
            counters: stores.counters, schoolTimeZone: parts.configuration.schoolTimeZone
        ).addRoutes(to: router)
        CoursePages(
            courses: stores.courses, sessions: stores.sessions, passkeys: stores.passkeys, records: stores.records,
            timetable: stores.timetable, access: parts.access, pages: parts.pages, platforms: stores.platforms,
            linkedCourses: stores.platformCourses, invitationsPerDay: parts.configuration.invitationsPerDay,
            schoolTimeZone: parts.configuration.schoolTimeZone
        ).addRoutes(to: router)
    }
}
