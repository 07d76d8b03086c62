import Foundation
import Hummingbird
import RollcallModel
import RollcallParts
import RollcallWeb

extension AccountRoutes {
    /// Adds registration, password and phone sign-in, password resets, remembered browsers and the account pages.
    package static func addRoutes(to router: AppRouter, _ parts: AppParts) {
        let stores = parts.stores
        let site = SiteSettings(parts.configuration)
        AccountsController(
            users: stores.users, tokens: stores.tokens, images: stores.images, courses: stores.courses,
            signIns: parts.signIns, site: site, passwords: parts.passwords,
            mail: stores.outbox, counters: stores.counters
        ).addRoutes(to: router)
        PasswordResetController(
            users: stores.users, tokens: stores.tokens, resets: stores.resets, passwords: parts.passwords,
            mail: stores.outbox, counters: stores.counters, site: site
        ).addRoutes(to: router)
        PhoneController(
            users: stores.users, codes: stores.phoneCodes, signIns: parts.signIns, devices: stores.devices,
            texts: stores.outbox, counters: stores.counters, site: site
        ).addRoutes(to: router)
        RememberedDevicesController(devices: stores.devices, users: stores.users, signIns: parts.signIns)
            .addRoutes(to: router)
        let provider = parts.configuration.singleSignOn.map { OpenIDProvider(settings: $0) }
        if let settings = parts.configuration.singleSignOn, let provider {
            SingleSignOnController(
                settings: settings, provider: provider,
                store: SingleSignOnStore(database: stores.database), tokens: stores.tokens, signIns: parts.signIns,
                courses: stores.courses, counters: stores.counters, site: site
            ).addRoutes(to: router)
        }
        AccountPages(
            pages: parts.pages, exposure: stores.exposure, personal: stores.personal, devices: stores.devices,
            users: stores.users, site: site, school: provider, tickets: parts.tickets,
            sessions: stores.sessions
        ).addRoutes(to: router)
    }
}
