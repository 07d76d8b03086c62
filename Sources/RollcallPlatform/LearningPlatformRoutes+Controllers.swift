import Hummingbird
import RollcallParts
import RollcallWeb

extension LearningPlatformRoutes {
    /// Adds the tool's endpoints, the registrations and a linked course's routes.
    package static func addRoutes(to router: AppRouter, _ parts: AppParts) {
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
            counters: stores.counters, pages: parts.pages, publicURL: parts.configuration.publicURL
        ).addRoutes(to: router)
        WaitingLaunchController(
            platforms: stores.platforms, launches: stores.launchStates, people: stores.platformPeople,
            linkedCourses: stores.platformCourses, destinations: destinations, tokens: stores.tokens,
            signIns: parts.signIns, pages: parts.pages
        ).addRoutes(to: router)
        PlatformsController(
            platforms: stores.platforms, linkedCourses: stores.platformCourses, links: links, keys: stores.toolKeys,
            access: parts.access,
            framing: parts.pages.framing, publicURL: parts.configuration.publicURL
        ).addRoutes(to: router)
        DynamicRegistration(
            database: stores.database, platforms: stores.platforms, pages: parts.pages, framing: parts.pages.framing,
            counters: stores.counters, publicURL: parts.configuration.publicURL
        ).addRoutes(to: router)
    }
}
