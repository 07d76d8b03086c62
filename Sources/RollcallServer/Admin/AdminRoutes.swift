import Hummingbird

/// Every path of the admin's API.
enum AdminRoutes {
    static let users = APIPath.api("admin/users")
    static let approve = APIPath.api("admin/users/:userID/approve")
    static let disable = APIPath.api("admin/users/:userID/disable")
    static let enable = APIPath.api("admin/users/:userID/enable")
    static let role = APIPath.api("admin/users/:userID/role")
    static let outbox = APIPath.api("admin/outbox")
}

extension AdminRoutes {
    static let adminPage: RouterPath = "/admin"
}

extension AdminRoutes {
    /// Adds the admin's API and page.
    static func addRoutes(to router: AppRouter, _ parts: AppParts) {
        let stores = parts.stores
        AdminController(users: stores.users, outbox: stores.outbox).addRoutes(to: router)
        AdminPage(
            users: stores.users, outbox: stores.outbox, jobs: stores.jobs, exposure: stores.exposure,
            platforms: stores.platforms, pages: parts.pages, publicURL: parts.configuration.publicURL
        ).addRoutes(to: router)
    }
}
