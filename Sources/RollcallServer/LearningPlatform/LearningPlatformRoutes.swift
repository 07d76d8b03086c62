import Hummingbird

/// Every path of LTI 1.3: the tool's endpoints a platform calls, an admin's registrations, a linked course's sync.
enum LearningPlatformRoutes {
    static let login: RouterPath = "/lti/login"
    static let launch: RouterPath = "/lti/launch"
    static let continuation: RouterPath = "/lti/continue"
    static let jwks: RouterPath = "/lti/jwks"
    static let register: RouterPath = "/lti/register"
    static let linkPage: RouterPath = "/lti/link"
    static let coursePage: RouterPath = "/lti/course"
    static let pendingAnswer = APIPath.api("lti-pending/:code")
    static let registrationLinks = APIPath.api("admin/lti-registration-links")
    static let platforms = APIPath.api("admin/lti-platforms")
    static let platform = APIPath.api("admin/lti-platforms/:platformID")
    static let rotateKey = APIPath.api("admin/lti-keys/rotate")
    static let courseLink = APIPath.api("courses/:courseID/lti")
    static let courseSync = APIPath.api("courses/:courseID/lti/sync")
    static let courseGrades = APIPath.api("courses/:courseID/lti/grades")
}
