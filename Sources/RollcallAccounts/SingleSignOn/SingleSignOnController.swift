import Foundation
import Hummingbird
import RollcallCore
import RollcallModel
import RollcallParts
import RollcallStorage
import RollcallWeb
import RollcallWords

/// The school's sign-in (OpenID Connect, authorization code flow with PKCE): `/auth/oidc/start` sends the browser to
/// the provider with a state bound to this browser, a nonce and a PKCE challenge; `/auth/oidc/callback` takes the
/// state once, trades the code for the ID token, verifies it, and signs the person in to where they were going.
struct SingleSignOnController: Sendable {
    let settings: SingleSignOnSettings
    let provider: OpenIDProvider
    let store: SingleSignOnStore
    let tokens: AccessTokenStore
    let signIns: SignIns
    let courses: CourseStore
    let counters: AttemptCounters
    let site: SiteSettings

    static let start: RouterPath = "/auth/oidc/start"
    static let callback: RouterPath = "/auth/oidc/callback"
    /// The cookie that binds a sign-in under way to the browser that started it.
    static let browserCookie = "rollcall_sso"

    var redirectURI: String { site.publicURL + Self.callback.description }

    func addRoutes(to router: AppRouter) {
        router.get(Self.start, use: begin)
        router.get(Self.callback, use: finish)
    }

    /// Sends the browser to the provider. A person signed in already (with a password) links the school's account to
    /// theirs: that is how they prove an existing account is theirs.
    @Sendable func begin(_ request: Request, context: AppRequestContext) async throws -> Response {
        let next = request.query("next").flatMap(LocalPath.init)?.text ?? "/"
        try await counters.admit(
            .anonymousStart, key: context.clientAddress ?? "-", under: SignIns.anonymousStarts,
            refusal: "Too many sign-ins were started from this network just now. Wait a minute and try again.")
        let document: OpenIDProvider.Discovery
        do {
            document = try await provider.discovery()
        } catch let failure as SingleSignOnFailure {
            context.logger.warning("the school's provider cannot be used: \(failure)")
            throw Self.appError(failure, settings: settings)
        }
        let (state, browser, nonce, verifier) = (
            OpaqueToken.make(), OpaqueToken.make(), OpaqueToken.make(), OpaqueToken.make() + OpaqueToken.make()
        )
        try await store.begin(
            state: state, browser: browser, nonce: nonce, verifier: verifier, next: next,
            linking: context.identity?.user.id)
        var query = URLComponents(string: document.authorizationEndpoint) ?? URLComponents()
        query.queryItems =
            (query.queryItems ?? []) + [
                URLQueryItem(name: "response_type", value: "code"),
                URLQueryItem(name: "client_id", value: settings.clientID),
                URLQueryItem(name: "redirect_uri", value: redirectURI),
                URLQueryItem(name: "scope", value: settings.scope),
                URLQueryItem(name: "state", value: state), URLQueryItem(name: "nonce", value: nonce),
                URLQueryItem(name: "code_challenge", value: SingleSignOn.codeChallenge(verifier: verifier)),
                URLQueryItem(name: "code_challenge_method", value: "S256"),
            ]
        var response = Response.redirect(to: query.string ?? document.authorizationEndpoint, type: .found)
        response.setCookie(
            Cookie(
                name: Self.browserCookie, value: browser, maxAge: Int(SingleSignOnStore.lifetime),
                path: Self.callback.description, secure: site.secureCookies, httpOnly: true, sameSite: .lax))
        return response
    }

    /// Comes back from the provider: the state taken once and matched to this browser, the code traded, the token
    /// verified, and the person signed in to where they were going.
    @Sendable func finish(_ request: Request, context: AppRequestContext) async throws -> Response {
        guard let state = request.query("state"), let pending = try await store.take(state: state),
            pending.expiresAt > Date(), let browser = request.cookies[Self.browserCookie]?.value,
            constantTimeEqual(Array(OpaqueToken.digest(browser).utf8), Array(pending.browserHash.utf8))
        else {
            throw AppError(
                .badRequest, .ssoStateInvalid,
                "This sign-in was not started in this browser, or it took too long. Sign in again from the start.")
        }
        if let error = request.query("error") {
            throw AppError(
                .forbidden, .ssoTokenRefused,
                "\(settings.name) did not sign you in (\(String(error.prefix(100)))). Try again, or ask your school's IT desk."
            )
        }
        guard let code = request.query("code") else {
            throw AppError(
                .badRequest, .missingField, "The school's sign-in came back without its code. Sign in again.")
        }
        let (person, claims, idToken) = try await verifiedPerson(code: code, pending: pending, context: context)
        let outcome = try await store.account(
            issuer: claims.issuer, subject: claims.subject, person: person, linking: pending.linkUserId,
            logger: context.logger)
        switch outcome {
        case .signedIn(let user):
            guard !user.disabled, user.deletedAt == nil else { throw AppError.accountDisabled }
            if user.role == .student, user.emailVerifiedAt != nil {
                // The school vouched for the address: the places a roster import kept for it are this person's.
                try await courses.roster.acceptInvitations(studentID: user.id, email: user.email)
            }
            let issued = try await tokens.issue(userID: user.id, kind: .web, idToken: idToken)
            var response = Response.redirect(to: pending.next ?? "/", type: .found)
            response.setCookie(signIns.sessionCookie(issued.token, maxAge: Int(AccessTokenStore.webLifetime)))
            response.setCookie(
                Cookie(
                    name: Self.browserCookie, value: "", maxAge: 0, path: Self.callback.description,
                    secure: site.secureCookies, httpOnly: true, sameSite: .lax))
            return response
        case .addressTaken(let address):
            throw AppError(
                .conflict, .ssoAccountExists,
                "A Rollcall account with \(address) exists already. Sign in with its password once, then choose “\(settings.name)” to link the two; after that the school's sign-in is enough."
            )
        case .adminAddress:
            throw AppError(
                .conflict, .ssoAccountExists,
                "The school's sign-in never opens an admin's account. Sign in with the admin's password, then link “\(settings.name)” from your profile."
            )
        case .noAddress:
            throw AppError(
                .forbidden, .ssoTokenRefused,
                "\(settings.name) did not give Rollcall your email address. Ask your school's IT desk to release it.")
        }
    }

    /// Trades the code for the tokens, verifies the ID token, adds what UserInfo says, and reads the person the
    /// school vouches for; answers the ID token too, kept in the session for signing out at the school.
    private func verifiedPerson(
        code: String, pending: SingleSignOnStore.Pending, context: AppRequestContext
    ) async throws -> (FederatedPerson, IDTokenClaims, String) {
        do {
            let tokens = try await provider.tokens(code: code, verifier: pending.verifier, redirectURI: redirectURI)
            var claims = try await provider.verify(tokens.idToken, nonce: pending.nonce)
            if let info = try await provider.userInfo(accessToken: tokens.accessToken) {
                guard let merged = SingleSignOn.merged(claims, userInfo: info) else {
                    throw SingleSignOnFailure.tokenRefused(.wrongSubject)
                }
                claims = merged
            }
            let email = SingleSignOn.email(claims, trustedDomains: settings.trustedEmailDomains)
            let person = FederatedPerson(
                name: claims.name, email: email?.address, emailVerified: email?.verified ?? false,
                studentNumber: settings.studentNumberClaim.flatMap { claims.others[$0]?.first },
                role: settings.roleClaim.map {
                    SingleSignOn.role(claimValues: claims.others[$0], teacherValues: settings.teacherValues)
                } ?? .absent,
                updatesAddress: true)
            return (person, claims, tokens.idToken)
        } catch let failure as SingleSignOnFailure {
            context.logger.warning("school sign-in refused: \(failure)")
            throw Self.appError(failure, settings: settings)
        }
    }

    /// The page a failed sign-in shows, saying whose fault it was.
    static func appError(_ failure: SingleSignOnFailure, settings: SingleSignOnSettings) -> AppError {
        switch failure {
        case .providerUnavailable:
            AppError(
                .serviceUnavailable, .ssoProviderUnavailable,
                "\(settings.name) does not answer just now. Try again in a few minutes, or sign in another way.",
                retryAfter: 60)
        case .providerRefused:
            AppError(
                .forbidden, .ssoTokenRefused,
                "\(settings.name) refused this sign-in. Sign in again from the start.")
        case .tokenRefused(let refusal):
            AppError(
                .forbidden, .ssoTokenRefused,
                "Rollcall could not accept this sign-in: \(refusal.reason). Sign in again from the start.")
        case .issuerMismatch(let configured, let announced):
            AppError(
                .serviceUnavailable, .ssoProviderUnavailable, Self.mismatch(configured, announced), retryAfter: 60)
        case .unknownKey, .badSignature:
            AppError(
                .forbidden, .ssoTokenRefused,
                "Rollcall could not accept this sign-in: its signature does not check out. Sign in again from the start."
            )
        }
    }

    /// The issuer Rollcall was given and the one the provider names, with what tells them apart where it is easy to
    /// miss.
    static func mismatch(_ configured: String, _ announced: String) -> Phrase {
        if configured + "/" == announced || announced + "/" == configured {
            return
                "ROLLCALL_OIDC_ISSUER is \(configured), but the provider names itself \(announced): one ends with a slash and the other does not. Ask the school's Rollcall admin to write it exactly as the provider does."
        }
        return
            "ROLLCALL_OIDC_ISSUER is \(configured), but the provider names itself \(announced). Ask the school's Rollcall admin to write it exactly as the provider does."
    }
}
