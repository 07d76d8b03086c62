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
