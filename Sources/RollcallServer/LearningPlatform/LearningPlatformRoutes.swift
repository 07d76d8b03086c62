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

extension LearningPlatformRoutes {
    /// Adds the tool's endpoints, the registrations and a linked course's routes.
    static func addRoutes(to router: AppRouter, _ parts: AppParts) {
        let stores = parts.stores
        let links = stores.courseLinks
        let destinations = LaunchDestinations(
            launches: stores.launchStates, linkedCourses: stores.platformCourses, links: links,
            schoolTimeZone: parts.configuration.schoolTimeZone)
        LaunchController(
            platforms: stores.platforms, launches: stores.launchStates, people: stores.platformPeople,
            linkedCourses: stores.platformCourses, destinations: destinations,
            deepLinking: DeepLinking(
                keys: stores.toolKeys, linkedCourses: stores.platformCourses, pages: parts.pages,
                launchURL: parts.configuration.publicURL + LearningPlatformRoutes.launch.description),
            platformKeys: PublishedKeys(timeout: .seconds(10)), tokens: stores.tokens, signIns: parts.signIns,
            counters: stores.counters, pages: parts.pages, configuration: parts.configuration
        ).addRoutes(to: router)
        WaitingLaunchController(
            platforms: stores.platforms, launches: stores.launchStates, people: stores.platformPeople,
            linkedCourses: stores.platformCourses, destinations: destinations, tokens: stores.tokens,
            signIns: parts.signIns, pages: parts.pages
        ).addRoutes(to: router)
        PlatformsController(
            platforms: stores.platforms, linkedCourses: stores.platformCourses, links: links, keys: stores.toolKeys,
            access: parts.access,
            framing: parts.pages.framing, configuration: parts.configuration
        ).addRoutes(to: router)
        DynamicRegistration(
            database: stores.database, platforms: stores.platforms, pages: parts.pages, framing: parts.pages.framing,
            counters: stores.counters, configuration: parts.configuration
        ).addRoutes(to: router)
    }
}
