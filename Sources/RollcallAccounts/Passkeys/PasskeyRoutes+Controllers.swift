import Hummingbird
import RollcallParts
import RollcallWeb

extension PasskeyRoutes {
    /// Adds registering passkeys, signing in with them, the course's policy and the Devices page.
    package static func addRoutes(to router: AppRouter, _ parts: AppParts) {
        let stores = parts.stores
        PasskeysController(
            passkeys: stores.passkeys, users: stores.users, ceremony: parts.ceremony, signIns: parts.signIns,
            access: parts.access, counters: stores.counters, relyingParty: parts.configuration.relyingParty
        ).addRoutes(to: router)
        DevicesPage(passkeys: stores.passkeys, remembered: stores.devices, pages: parts.pages).addRoutes(to: router)
    }
}
