import Hummingbird
import RollcallParts
import RollcallWeb

extension AdminRoutes {
    /// Adds the admin's API and page.
    package static func addRoutes(to router: AppRouter, _ parts: AppParts) {
        let stores = parts.stores
        AdminController(users: stores.users, outbox: stores.outbox).addRoutes(to: router)
        AdminPage(
            users: stores.users, outbox: stores.outbox, jobs: stores.jobs, exposure: stores.exposure,
            platforms: stores.platforms, pages: parts.pages, publicURL: parts.configuration.publicURL
        ).addRoutes(to: router)
    }
}
