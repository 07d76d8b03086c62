import Hummingbird

/// Every path of a person's own data: the download, deleting an account, and the privacy page.
package enum PrivacyRoutes {
    package static let myData = APIPath.api("me/data")
    package static let me = APIPath.api("me")
    package static let user = APIPath.api("admin/users/:userID")
}

extension PrivacyRoutes {
    package static let privacyPage: RouterPath = "/privacy"
}
