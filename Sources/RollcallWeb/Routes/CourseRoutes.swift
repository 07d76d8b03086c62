import Hummingbird

/// Every path of courses: the course itself, joining it and its roster.
package enum CourseRoutes {
    package static let courses = APIPath.api("courses")
    package static let join = APIPath.api("courses/join")
    package static let course = APIPath.api("courses/:courseID")
    package static let poster = APIPath.api("courses/:courseID/poster")
    package static let students = APIPath.api("courses/:courseID/students")
    package static let student = APIPath.api("courses/:courseID/students/:studentID")
    package static let joinCode = APIPath.api("courses/:courseID/join-code")
    package static let leave = APIPath.api("courses/:courseID/leave")
    package static let absenceNotices = APIPath.api("courses/:courseID/absence-notices")
    package static let staff = APIPath.api("courses/:courseID/staff")
    package static let staffMember = APIPath.api("courses/:courseID/staff/:userID")
}

extension CourseRoutes {
    package static let coursesPage: RouterPath = "/courses"
    package static let coursePage: RouterPath = "/courses/:courseID"
}
