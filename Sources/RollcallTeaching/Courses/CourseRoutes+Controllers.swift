import Hummingbird
import RollcallParts
import RollcallWeb

extension CourseRoutes {
    /// Adds courses, joining them, their rosters and staff, and the course pages.
    package static func addRoutes(to router: AppRouter, _ parts: AppParts) {
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
