import Hummingbird

/// Every path of the admin's API.
package enum AdminRoutes {
    package static let users = APIPath.api("admin/users")
    package static let approve = APIPath.api("admin/users/:userID/approve")
    package static let disable = APIPath.api("admin/users/:userID/disable")
    package static let enable = APIPath.api("admin/users/:userID/enable")
    package static let role = APIPath.api("admin/users/:userID/role")
    package static let outbox = APIPath.api("admin/outbox")
}

extension AdminRoutes {
    package static let adminPage: RouterPath = "/admin"
}
