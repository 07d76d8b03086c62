import Foundation
import Hummingbird

/// Every path of accounts: registering, signing in and out, the profile.
package enum AccountRoutes {
    package static let register = APIPath.api("auth/register")
    package static let verifyEmail = APIPath.api("auth/verify-email")
    package static let resendVerification = APIPath.api("auth/resend-verification")
    package static let webSession = APIPath.api("auth/session")
    package static let tokens = APIPath.api("auth/tokens")
    package static let currentToken = APIPath.api("auth/tokens/current")
    package static let me = APIPath.api("me")
    package static let password = APIPath.api("me/password")
    package static let picture = APIPath.api("me/picture")
    package static let userPicture = APIPath.api("users/:userID/picture")
    package static let passwordReset = APIPath.api("auth/password-reset")
    package static let passwordResetCompletion = APIPath.api("auth/password-reset/complete")
    package static let adminPasswordReset = APIPath.api("admin/users/:userID/password-reset")
    package static let phoneCode = APIPath.api("auth/phone-code")
    package static let phoneSession = APIPath.api("auth/phone-session")
    package static let phoneTokens = APIPath.api("auth/phone-tokens")
    package static let myPhone = APIPath.api("me/phone")
    package static let myPhoneConfirmation = APIPath.api("me/phone/confirm")
    package static let deviceSession = APIPath.api("auth/device-session")
    package static let thisDevice = APIPath.api("auth/device")
    package static let myDevices = APIPath.api("me/remembered-devices")
    package static let myDevice = APIPath.api("me/remembered-devices/:deviceID")
}

extension AccountRoutes {
    package static let home: RouterPath = "/"
    package static let signInPage: RouterPath = "/sign-in"
    package static let registerPage: RouterPath = "/register"
    package static let verifyEmailPage: RouterPath = "/verify-email"
    package static let profilePage: RouterPath = "/profile"
    package static let forgotPasswordPage: RouterPath = "/forgot-password"
    package static let resetPasswordPage: RouterPath = "/reset-password"

    /// The sign-in page, coming back to `next` afterwards.
    package static func signIn(next: String) -> String {
        "/sign-in?next=\(next.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "/")"
    }
}
