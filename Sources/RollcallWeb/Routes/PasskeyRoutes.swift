import Hummingbird

/// Every path of passkeys: registering them, signing in with them, and a course's verification policy.
package enum PasskeyRoutes {
    package static let passkeys = APIPath.api("passkeys")
    package static let registrationOptions = APIPath.api("passkeys/options")
    package static let passkey = APIPath.api("passkeys/:passkeyID")
    package static let signInOptions = APIPath.api("auth/passkey-options")
    package static let webSession = APIPath.api("auth/passkey-session")
    package static let tokens = APIPath.api("auth/passkey-tokens")
    package static let courseVerification = APIPath.api("courses/:courseID/verification")
}

extension PasskeyRoutes {
    package static let devicesPage: RouterPath = "/devices"
}
