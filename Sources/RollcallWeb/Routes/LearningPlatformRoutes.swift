import Hummingbird

/// Every path of LTI 1.3: the tool's endpoints a platform calls, an admin's registrations, a linked course's sync.
package enum LearningPlatformRoutes {
    package static let login: RouterPath = "/lti/login"
    package static let launch: RouterPath = "/lti/launch"
    package static let continuation: RouterPath = "/lti/continue"
    package static let jwks: RouterPath = "/lti/jwks"
    package static let register: RouterPath = "/lti/register"
    package static let linkPage: RouterPath = "/lti/link"
    package static let coursePage: RouterPath = "/lti/course"
    package static let pendingAnswer = APIPath.api("lti-pending/:code")
    package static let registrationLinks = APIPath.api("admin/lti-registration-links")
    package static let platforms = APIPath.api("admin/lti-platforms")
    package static let platform = APIPath.api("admin/lti-platforms/:platformID")
    package static let rotateKey = APIPath.api("admin/lti-keys/rotate")
    package static let courseLink = APIPath.api("courses/:courseID/lti")
    package static let courseSync = APIPath.api("courses/:courseID/lti/sync")
    package static let courseGrades = APIPath.api("courses/:courseID/lti/grades")
}
