import Foundation
import Hummingbird
import JWTKit
import RollcallCore
import RollcallModel
import RollcallParts
import RollcallStorage
import RollcallWeb
import RollcallWords

/// Rollcall as an LTI 1.3 tool: the platform's third-party login initiation (`/lti/login`), the launch it ends in
/// (`/lti/launch`, resource links and deep linking alike), the new window a framed launch opens when the browser
/// keeps no cookie of Rollcall's inside the platform's page (`/lti/continue`), and Rollcall's public keys
/// (`/lti/jwks`).
struct LaunchController: Sendable {
    let platforms: PlatformStore
    let launches: LaunchStates
    let people: PlatformPeople
    let linkedCourses: PlatformCourses
    let destinations: LaunchDestinations
    let deepLinking: DeepLinking
    let platformKeys: PublishedKeys
    let tokens: AccessTokenStore
    let signIns: SignIns
    let counters: AttemptCounters
    let pages: PageRenderer
    /// Where Rollcall answers: launches lead only to its own pages.
    let publicURL: String

    /// The cookie that ties a launch to the browser that began its login; it reaches Rollcall inside a platform's
    /// frame only where the browser allows third-party cookies.
    static let browserCookie = "rollcall_lti"

    var launchURL: String { publicURL + LearningPlatformRoutes.launch.description }

    func addRoutes(to router: AppRouter) {
        router.get(LearningPlatformRoutes.login, use: login)
        router.post(LearningPlatformRoutes.login, use: login)
        router.post(LearningPlatformRoutes.launch, use: launch)
        router.get(LearningPlatformRoutes.continuation, use: continuation)
        router.get(LearningPlatformRoutes.jwks, use: jwks)
    }

    /// The platform's login initiation (OIDC third-party initiated login): the platform is found by issuer (and
    /// client id), the target checked to be Rollcall's, and the browser sent to the platform's authorization
    /// endpoint with a state and a nonce kept for the launch.
    @Sendable func login(_ request: Request, context: AppRequestContext) async throws -> Response {
        let fields = try await Self.fields(of: request)
        guard let issuer = fields["iss"], let hint = fields["login_hint"], let target = fields["target_link_uri"]
        else {
            throw Self.refused(
                "The learning platform began a launch without its issuer, login hint or target. Launch Rollcall again from the course.",
                status: .badRequest)
        }
        try await counters.admit(
            .anonymousStart, key: context.clientAddress ?? "-", under: SignIns.anonymousStarts,
            refusal: "Too many launches were begun from this network just now. Wait a minute and launch Rollcall again."
        )
        let found = try await platforms.find(issuer: issuer, clientID: fields["client_id"])
        guard found.count == 1, let platform = found.first else {
            throw Self.refused(
                found.isEmpty
                    ? "This learning platform (\(issuer.prefix(200))) is not registered with Rollcall. Ask the school's Rollcall admin to register it."
                    : "More than one registration has this platform's issuer; the platform must send its client id.",
                status: .badRequest)
        }
        if let deployment = fields["lti_deployment_id"], !platform.deploymentIds.contains(deployment) {
            throw Self.refused(
                "Rollcall is not registered for this deployment (\(deployment.prefix(60))) of \(platform.name). Ask the school's Rollcall admin to add it.",
                status: .badRequest)
        }
        guard target.hasPrefix(publicURL + "/") || target == publicURL else {
            throw Self.refused(
                "The learning platform asked to launch another site (\(target.prefix(200))), not Rollcall.",
                status: .badRequest)
        }
        return try await authorizationRedirect(
            platform, hints: .init(loginHint: hint, messageHint: fields["lti_message_hint"]))
    }

    /// Sends the browser to the platform's authorization endpoint with a state and a nonce kept for the launch, and
    /// the cookie that ties the launch to this browser.
    private func authorizationRedirect(_ platform: LearningPlatform, hints: LaunchStates.LoginHints) async throws
        -> Response
    {
        let (state, browser, nonce) = (OpaqueToken.make(), OpaqueToken.make(), OpaqueToken.make())
        try await launches.beginLogin(
            state: state, browser: browser, nonce: nonce, platformID: platform.id, hints: hints)
        var query = URLComponents(string: platform.authorizationUrl) ?? URLComponents()
        query.queryItems =
            (query.queryItems ?? []) + [
                URLQueryItem(name: "scope", value: "openid"), URLQueryItem(name: "response_type", value: "id_token"),
                URLQueryItem(name: "response_mode", value: "form_post"), URLQueryItem(name: "prompt", value: "none"),
                URLQueryItem(name: "client_id", value: platform.clientId),
                URLQueryItem(name: "redirect_uri", value: launchURL),
                URLQueryItem(name: "login_hint", value: hints.loginHint),
                URLQueryItem(name: "state", value: state), URLQueryItem(name: "nonce", value: nonce),
            ] + (hints.messageHint.map { [URLQueryItem(name: "lti_message_hint", value: $0)] } ?? [])
        var response = Response.redirect(to: query.string ?? platform.authorizationUrl, type: .found)
        // Cross-site (the platform posts the launch), so SameSite=None, which browsers take only when Secure.
        response.setCookie(
            Cookie(
                name: Self.browserCookie, value: browser, maxAge: Int(LaunchStates.loginLifetime),
                path: LearningPlatformRoutes.launch.description, secure: true, httpOnly: true, sameSite: .none))
        return response
    }

    /// The launch: the state taken once, the ID token's signature checked with the platform's key by `kid`, every
    /// claim checked, and the person signed in where the launch leads.
    @Sendable func launch(_ request: Request, context: AppRequestContext) async throws -> Response {
        let (launch, platform, login, browser) = try await checkedLaunch(request, context: context)
        if launch.messageType == .resourceLink, launch.role != .teacher, let course = launch.context,
            try await linkedCourses.linkedCourse(platformID: platform.id, contextID: course.id) == nil
        {
            // Checked before the account is made: a launch that leads nowhere leaves nobody behind.
            throw AppError(
                .notFound, .courseNotFound,
                "Rollcall is not set up for this course yet. Its instructor sets it up by opening Rollcall from the course once."
            )
        }
        if launch.messageType == .resourceLink,
            try await !people.isLinked(platformID: platform.id, subject: launch.subject),
            let existing = try await people.unlinkedAccount(email: launch.email, platformID: platform.id)
        {
            // Never linked by the address alone: the person says whether the account is theirs, by signing in to it.
            let code = try await launches.keep(
                .init(kind: .account, platformID: platform.id, userID: nil, launch: launch))
            return try pages.render(
                NewWindowPage(
                    href: LearningPlatformRoutes.linkPage.description + "?code=" + code, platform: platform.name,
                    message: context.reader.say(
                        "Rollcall has an account for \(existing.email) already. Open Rollcall to link it to \(platform.name), or to go on with a new one."
                    )
                ),
                title: "Open Rollcall", context: context, layout: "bare", framing: .launch)
        }
        let user = try await people.account(
            platformID: platform.id, subject: launch.subject, person: FederatedPerson(launch: launch),
            logger: context.logger)
        guard !user.disabled, user.deletedAt == nil else { throw AppError.accountDisabled }
        switch launch.messageType {
        case .deepLinking:
            return try await deepLinking.page(launch, platform: platform, context: context)
        case .resourceLink:
            let next = try await destinations.destination(launch, platform: platform, user: user)
            return try await land(user, at: next, platform: platform, login: login, browser: browser, context: context)
        }
    }

    /// The launch's state taken once and matched to this browser where it kept the cookie, its platform, and its ID
    /// token verified.
    private func checkedLaunch(_ request: Request, context: AppRequestContext) async throws
        -> (LTI.Launch, LearningPlatform, LaunchStates.PendingLogin, browser: String?)
    {
        let fields = try await Self.fields(of: request)
        guard let state = fields["state"], let login = try await launches.takeLogin(state: state),
            login.expiresAt > Date()
        else {
            throw AppError(
                .badRequest, .ltiStateInvalid,
                "This launch was not begun by Rollcall, was used already, or took too long. Launch Rollcall again from the course."
            )
        }
        let browser = request.cookies[Self.browserCookie]?.value
        if let browser, !constantTimeEqual(Array(OpaqueToken.digest(browser).utf8), Array(login.browserHash.utf8)) {
            throw AppError(
                .badRequest, .ltiStateInvalid,
                "This launch was begun in another browser. Launch Rollcall again from the course.")
        }
        if let error = fields["error"] {
            throw Self.refused(
                "The learning platform did not launch Rollcall (\(error.prefix(100))). Launch it again from the course."
            )
        }
        guard let platform = try await platforms.find(id: login.platformId) else {
            throw Self.refused("This learning platform is no longer registered with Rollcall.")
        }
        guard let token = fields["id_token"] else {
            throw Self.refused("The launch came without its ID token. Launch Rollcall again from the course.")
        }
        let launch = try await verify(token, platform: platform, nonce: login.nonce, context: context)
        return (launch, platform, login, browser)
    }

    /// Signs the person in where the launch leads: in this frame where the browser kept Rollcall's cookie here, or
    /// through a window of its own that logs in at the platform again.
    private func land(
        _ user: User, at next: String, platform: LearningPlatform, login: LaunchStates.PendingLogin,
        browser: String?, context: AppRequestContext
    ) async throws -> Response {
        if browser != nil {
            let issued = try await tokens.issue(userID: user.id, kind: .web)
            var response = Response.redirect(to: next, type: .normal)
            response.setCookie(
                Cookie(
                    name: AuthenticationMiddleware.cookieName, value: issued.token,
                    maxAge: Int(AccessTokenStore.webLifetime), path: "/", secure: true, httpOnly: true,
                    sameSite: .none))
            return response
        }
        let code = try await launches.handoff(
            userID: user.id, platformID: platform.id,
            hints: .init(loginHint: login.loginHint ?? "", messageHint: login.messageHint))
        return try pages.render(
            NewWindowPage(
                href: LearningPlatformRoutes.continuation.description + "?code=" + code, platform: platform.name,
                message: context.reader.say(
                    "\(platform.name) shows Rollcall inside its page, where this browser does not let Rollcall keep you signed in. Open it in a window of its own to continue as \(user.name): you stay signed in there."
                )
            ),
            title: "Open Rollcall", context: context, layout: "bare", framing: .launch)
    }

    /// Checks a launch's ID token with the federation's one verifier: RS256 only (the Security Framework's
    /// algorithm), signed with the platform's published key named by `kid`, then every claim. Every refusal is a
    /// page that says which rule the launch broke.
    func verify(_ token: String, platform: LearningPlatform, nonce: String, context: AppRequestContext) async throws
        -> LTI.Launch
    {
        let payload: [String: Any]
        do {
            let bytes = try await platformKeys.verify(
                token, keySet: platform.jwksUrl, announced: ["RS256"], secret: nil, requiresKeyID: true, now: Date())
            guard let object = try JSONSerialization.jsonObject(with: bytes) as? [String: Any] else {
                throw SingleSignOnFailure.tokenRefused(.unreadable)
            }
            payload = object
        } catch SingleSignOnFailure.tokenRefused(.algorithmNotAllowed(let algorithm)) {
            throw Self.refused(
                "Rollcall could not accept this launch: it was signed with “\(algorithm.prefix(20))”, and LTI 1.3 asks for RS256."
            )
        } catch SingleSignOnFailure.unknownKey {
            throw Self.refused(
                "Rollcall could not accept this launch: it was signed with a key \(platform.name) does not publish.")
        } catch SingleSignOnFailure.providerUnavailable(let why) {
            context.logger.warning("the key set of \(platform.name) could not be read: \(why)")
            throw CourseLinks.unavailable(platform)
        } catch SingleSignOnFailure.badSignature {
            throw Self.refused("Rollcall could not accept this launch: its signature does not check out.")
        } catch {
            throw Self.refused("Rollcall could not accept this launch: its ID token is not a token at all.")
        }
        do throws(LTI.Refusal) {
            return try LTI.launch(payload, registration: platform.registration, nonce: nonce, now: Date())
        } catch {
            context.logger.warning("launch from \(platform.name) refused: \(error.reason)")
            throw Self.refused("Rollcall could not accept this launch: \(error.reason).")
        }
    }

    /// The new window a framed launch opened: it signs nobody in by itself, but logs in at the platform again, as a
    /// window of its own where Rollcall's cookie is kept. The platform then launches whoever is signed in to it in
    /// this browser: a link forwarded to another browser opens nobody else's account.
    @Sendable func continuation(_ request: Request, context: AppRequestContext) async throws -> Response {
        guard let code = request.query("code"), let handoff = try await launches.takeHandoff(code: code),
            handoff.expiresAt > Date(), let platformID = handoff.platformId, let hint = handoff.loginHint,
            !hint.isEmpty, let platform = try await platforms.find(id: platformID)
        else {
            throw AppError(
                .badRequest, .ltiStateInvalid,
                "This link was used already or took too long. Open Rollcall again from the course.")
        }
        return try await authorizationRedirect(
            platform, hints: .init(loginHint: hint, messageHint: handoff.messageHint))
    }

    /// Rollcall's public keys, for platforms to check what Rollcall signs.
    @Sendable func jwks(_ request: Request, context: AppRequestContext) async throws -> Response {
        let set = try await deepLinking.keys.keySet()
        var response = Response(
            status: .ok, headers: [.contentType: "application/json"],
            body: .init(
                byteBuffer: ByteBuffer(data: try JSONSerialization.data(withJSONObject: set, options: .sortedKeys))))
        response.headers[.cacheControl] = "public, max-age=3600"
        return response
    }

    /// A launch's fields, from the query of a GET or the form of a POST.
    static func fields(of request: Request) async throws -> [String: String] {
        var fields: [String: String] = [:]
        for item in URLComponents(string: request.uri.description)?.queryItems ?? [] {
            fields[item.name] = item.value ?? ""
        }
        if request.method == .post {
            let body = String(buffer: try await request.body.collect(upTo: 64 * 1024))
            for pair in body.split(separator: "&") {
                let parts = pair.split(separator: "=", maxSplits: 1).map {
                    String($0).replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? ""
                }
                if parts.count == 2 { fields[parts[0]] = parts[1] } else if parts.count == 1 { fields[parts[0]] = "" }
            }
        }
        return fields
    }

    static func refused(_ message: Phrase, status: HTTPResponse.Status = .forbidden) -> AppError {
        AppError(status, .ltiLaunchRefused, message)
    }
}

/// The page a framed launch shows when the browser keeps no cookie of Rollcall's inside the platform: one button
/// opens Rollcall in a window of its own, where it can sign the person in. Outside a frame it goes on by itself.
struct NewWindowPage: PageModel {
    static let template = "lti-new-window"
    var href: String
    var platform: String
    /// Why a window of its own.
    var message: String
}
