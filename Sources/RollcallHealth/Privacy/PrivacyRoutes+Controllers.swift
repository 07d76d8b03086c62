import Hummingbird
import RollcallParts
import RollcallWeb

extension PrivacyRoutes {
    /// Adds the data download, deleting an account and the privacy page.
    package static func addRoutes(to router: AppRouter, _ parts: AppParts) {
        PrivacyController(personal: parts.stores.personal, users: parts.stores.users, signIns: parts.signIns)
            .addRoutes(to: router)
        PrivacyPage(evidenceDays: parts.configuration.evidenceDays, pages: parts.pages).addRoutes(to: router)
    }
}
