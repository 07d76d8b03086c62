import Foundation
import Hummingbird

/// Every path of accounts: registering, signing in and out, the profile.
enum AccountRoutes {
    static let register = APIPath.api("auth/register")
    static let verifyEmail = APIPath.api("auth/verify-email")
    static let resendVerification = APIPath.api("auth/resend-verification")
    static let webSession = APIPath.api("auth/session")
    static let tokens = APIPath.api("auth/tokens")
    static let currentToken = APIPath.api("auth/tokens/current")
    static let me = APIPath.api("me")
    static let password = APIPath.api("me/password")
    static let picture = APIPath.api("me/picture")
    static let userPicture = APIPath.api("users/:userID/picture")
    static let passwordReset = APIPath.api("auth/password-reset")
    static let passwordResetCompletion = APIPath.api("auth/password-reset/complete")
    static let adminPasswordReset = APIPath.api("admin/users/:userID/password-reset")
    static let phoneCode = APIPath.api("auth/phone-code")
    static let phoneSession = APIPath.api("auth/phone-session")
    static let phoneTokens = APIPath.api("auth/phone-tokens")
    static let myPhone = APIPath.api("me/phone")
    static let myPhoneConfirmation = APIPath.api("me/phone/confirm")
    static let deviceSession = APIPath.api("auth/device-session")
    static let thisDevice = APIPath.api("auth/device")
    static let myDevices = APIPath.api("me/remembered-devices")
    static let myDevice = APIPath.api("me/remembered-devices/:deviceID")
}

extension AccountRoutes {
    static let home: RouterPath = "/"
    static let signInPage: RouterPath = "/sign-in"
    static let registerPage: RouterPath = "/register"
    static let verifyEmailPage: RouterPath = "/verify-email"
    static let profilePage: RouterPath = "/profile"
    static let forgotPasswordPage: RouterPath = "/forgot-password"
    static let resetPasswordPage: RouterPath = "/reset-password"

    /// The sign-in page, coming back to `next` afterwards.
    static func signIn(next: String) -> String {
        "/sign-in?next=\(next.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "/")"
    }
}
