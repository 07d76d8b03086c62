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
