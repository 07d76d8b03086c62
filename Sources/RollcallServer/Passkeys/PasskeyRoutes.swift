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
