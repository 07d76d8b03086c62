import Hummingbird

/// Every path of passkeys: registering them, signing in with them, and a course's verification policy.
enum PasskeyRoutes {
    static let passkeys = APIPath.api("passkeys")
    static let registrationOptions = APIPath.api("passkeys/options")
    static let passkey = APIPath.api("passkeys/:passkeyID")
    static let signInOptions = APIPath.api("auth/passkey-options")
    static let webSession = APIPath.api("auth/passkey-session")
    static let tokens = APIPath.api("auth/passkey-tokens")
    static let courseVerification = APIPath.api("courses/:courseID/verification")
}

extension PasskeyRoutes {
    static let devicesPage: RouterPath = "/devices"
}

extension PasskeyRoutes {
    /// Adds registering passkeys, signing in with them, the course's policy and the Devices page.
    static func addRoutes(to router: AppRouter, _ parts: AppParts) {
        let stores = parts.stores
        PasskeysController(
            passkeys: stores.passkeys, users: stores.users, ceremony: parts.ceremony, signIns: parts.signIns,
            access: parts.access, counters: stores.counters, configuration: parts.configuration
        ).addRoutes(to: router)
        DevicesPage(passkeys: stores.passkeys, remembered: stores.devices, pages: parts.pages).addRoutes(to: router)
    }
}
