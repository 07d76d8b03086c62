import Hummingbird

/// Where every way of signing in ends, passwords and passkeys alike: a browser session with its cookie and CSRF
/// token, or a bearer token for an API client.
struct SignIns: Sendable {
    let tokens: AccessTokenStore
    let configuration: Configuration

    struct WebSession: Codable, ResponseEncodable {
        var user: UserView
        var csrfToken: String
    }
    struct APIToken: Codable, ResponseEncodable {
        var token: String
        var user: UserView
    }

    /// Signs `user` in on this browser: a session cookie, and the CSRF token in the answer; the session belongs to a
    /// remembered `device` when one started it.
    func startWebSession(
        for user: User, device: Int64? = nil, request: Request, context: AppRequestContext
    ) async throws -> Response {
        let issued = try await tokens.issue(userID: user.id, kind: .web, device: device)
        var response = try WebSession(user: UserView(user), csrfToken: issued.csrf).response(
            from: request, context: context
        )
        response.setCookie(sessionCookie(issued.token, maxAge: Int(AccessTokenStore.webLifetime)))
        return response
    }

    /// A bearer token for an API client.
    func issueAPIToken(for user: User, request: Request, context: AppRequestContext) async throws -> Response {
        let issued = try await tokens.issue(userID: user.id, kind: .api)
        return try APIToken(token: issued.token, user: UserView(user)).response(
            from: request, context: context, status: .created
        )
    }

    /// The remembered-device cookie; an empty value with age 0 forgets it on this browser.
    func deviceCookie(_ value: String, maxAge: Int) -> Cookie {
        Cookie(
            name: RememberedDevices.cookieName, value: value, maxAge: maxAge, path: "/",
            secure: configuration.secureCookies, httpOnly: true, sameSite: .lax
        )
    }

    /// The session cookie; an empty value with age 0 signs the browser out.
    func sessionCookie(_ value: String, maxAge: Int) -> Cookie {
        Cookie(
            name: AuthenticationMiddleware.cookieName, value: value, maxAge: maxAge, path: "/",
            secure: configuration.secureCookies, httpOnly: true, sameSite: .lax
        )
    }
}
