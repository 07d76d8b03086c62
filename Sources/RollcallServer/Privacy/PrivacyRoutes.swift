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

extension PrivacyRoutes {
    /// Adds the data download, deleting an account and the privacy page.
    static func addRoutes(to router: AppRouter, _ parts: AppParts) {
        PrivacyController(personal: parts.stores.personal, users: parts.stores.users, signIns: parts.signIns)
            .addRoutes(to: router)
        PrivacyPage(evidenceDays: parts.configuration.evidenceDays, pages: parts.pages).addRoutes(to: router)
    }
}
