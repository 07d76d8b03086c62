import Hummingbird

/// Every path of a person's own data: the download, deleting an account, and the privacy page.
enum PrivacyRoutes {
    static let myData = APIPath.api("me/data")
    static let me = APIPath.api("me")
    static let user = APIPath.api("admin/users/:userID")
}

extension PrivacyRoutes {
    static let privacyPage: RouterPath = "/privacy"
}
