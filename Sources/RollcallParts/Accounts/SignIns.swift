import Hummingbird
import RollcallCore
import RollcallModel
import RollcallWeb
import RollcallWords

/// Where every way of signing in ends, passwords and passkeys alike: a browser session with its cookie and CSRF
/// token, or a bearer token for an API client.
package struct SignIns: Sendable {
    /// Anonymous sign-ins (the school's, a platform's launch) started from one address: a lecture hall behind one
    /// router starts hundreds at once.
    package static let anonymousStarts = RateLimit(limit: 600, window: 600)

    package let tokens: AccessTokenStore
    package let users: UserStore
    package let configuration: Configuration

    package struct WebSession: Codable, ResponseEncodable {
        package var user: UserView
        package var csrfToken: String
    }

    package struct APIToken: Codable, ResponseEncodable {
        package var token: String
        package var user: UserView
    }

    /// Signs `user` in on this browser: a session cookie, and the CSRF token in the answer; the session belongs to a
    /// remembered `device` when one started it.
    package func startWebSession(
        for user: User, device: Int64? = nil, request: Request, context: AppRequestContext
    ) async throws -> Response {
        try await requireSchoolSignIn(user)
        let issued = try await tokens.issue(userID: user.id, kind: .web, device: device)
        var response = try WebSession(user: UserView(user), csrfToken: issued.csrf).response(
            from: request, context: context
        )
        response.setCookie(sessionCookie(issued.token, maxAge: Int(AccessTokenStore.webLifetime)))
        return response
    }

    /// A bearer token for an API client.
    package func issueAPIToken(for user: User, request: Request, context: AppRequestContext) async throws -> Response {
        try await requireSchoolSignIn(user)
        let issued = try await tokens.issue(userID: user.id, kind: .api)
        return try APIToken(token: issued.token, user: UserView(user)).response(
            from: request, context: context, status: .created
        )
    }

    /// Where the school signs people in itself, the accounts it vouches for (linked to its sign-in or a learning
    /// platform) and admins sign in; an account that came in by a password, now turned off, keeps no side door
    /// through a passkey, a texted code or a remembered browser.
    package func signsIn(_ user: User) async throws -> Bool {
        if configuration.passwordSignIn || user.role == .admin { return true }
        return try await users.directory.isVouchedForBySchool(user.id)
    }

    /// Refuses `user` where `signsIn` does; a way of signing in asks before it uses up anything single-use.
    package func requireSchoolSignIn(_ user: User) async throws {
        guard try await signsIn(user) else {
            throw AppError(
                .forbidden, .passwordSignInOff,
                "This school signs people in through its own sign-in: choose “\(configuration.singleSignOn?.name ?? "your school account")” on the sign-in page."
            )
        }
    }

    /// The remembered-device cookie; an empty value with age 0 forgets it on this browser.
    package func deviceCookie(_ value: String, maxAge: Int) -> Cookie {
        Cookie(
            name: RememberedDevices.cookieName, value: value, maxAge: maxAge, path: "/",
            secure: configuration.secureCookies, httpOnly: true, sameSite: .lax
        )
    }

    /// The session cookie; an empty value with age 0 signs the browser out.
    package func sessionCookie(_ value: String, maxAge: Int) -> Cookie {
        Cookie(
            name: AuthenticationMiddleware.cookieName, value: value, maxAge: maxAge, path: "/",
            secure: configuration.secureCookies, httpOnly: true, sameSite: .lax
        )
    }
}
