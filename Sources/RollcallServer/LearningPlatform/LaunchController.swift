import Foundation
import Hummingbird
import JWTKit
import RollcallCore

/// Rollcall as an LTI 1.3 tool: the platform's third-party login initiation (`/lti/login`), the launch it ends in
/// (`/lti/launch`, resource links and deep linking alike), the new window a framed launch opens when the browser
/// keeps no cookie of Rollcall's inside the platform's page (`/lti/continue`), and Rollcall's public keys
/// (`/lti/jwks`).
struct LaunchController: Sendable {
    let platforms: PlatformStore
    let launches: LaunchStates
    let people: PlatformPeople
    let linkedCourses: PlatformCourses
    let links: CourseLinks
    let keys: ToolKeys
    let platformKeys: PublishedKeys
    let tokens: AccessTokenStore
    let signIns: SignIns
    let counters: AttemptCounters
    let pages: PageRenderer
    let configuration: Configuration

    /// The cookie that ties a launch to the browser that began its login; it reaches Rollcall inside a platform's
    /// frame only where the browser allows third-party cookies.
    static let browserCookie = "rollcall_lti"

    var launchURL: String { configuration.publicURL + LearningPlatformRoutes.launch.description }

    func addRoutes(to router: AppRouter) {
        router.get(LearningPlatformRoutes.login, use: login)
        router.post(LearningPlatformRoutes.login, use: login)
        router.post(LearningPlatformRoutes.launch, use: launch)
        router.get(LearningPlatformRoutes.continuation, use: continuation)
        router.get(LearningPlatformRoutes.jwks, use: jwks)
        router.get(LearningPlatformRoutes.linkPage, use: linkPage)
        router.get(LearningPlatformRoutes.coursePage, use: coursePage)
        router.post(LearningPlatformRoutes.pendingAnswer, use: answer)
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
            .anonymousStart, key: context.clientAddress ?? "-", under: SingleSignOnController.starts,
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
        guard target.hasPrefix(configuration.publicURL + "/") || target == configuration.publicURL else {
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
                    message: say(
                        "Rollcall has an account for \(existing.email) already. Open Rollcall to link it to \(platform.name), or to go on with a new one."
                    )
                ),
                title: "Open Rollcall", context: context, layout: "bare")
        }
        let user = try await people.account(
            platformID: platform.id, subject: launch.subject, person: FederatedPerson(launch: launch),
            logger: context.logger)
        guard !user.disabled, user.deletedAt == nil else { throw AppError.accountDisabled }
        let next: String
        switch launch.messageType {
        case .deepLinking:
            return try await deepLinkingPage(launch, platform: platform, context: context)
        case .resourceLink:
            next = try await destination(launch, platform: platform, user: user)
        }
        if browser != nil {
            // The browser kept Rollcall's cookie in this frame: the session is kept there too.
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
                message: say(
                    "\(platform.name) shows Rollcall inside its page, where this browser does not let Rollcall keep you signed in. Open it in a window of its own to continue as \(user.name): you stay signed in there."
                )
            ),
            title: "Open Rollcall", context: context, layout: "bare")
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

    /// Where a resource link's launch leads: an instructor's links (or finds) the course, syncs its roster and
    /// finds its line item, and lands on the course; an assistant and a student land on the course they are put
    /// in, where a student checks in while a session is open.
    private func destination(
        _ launch: LTI.Launch, platform: LearningPlatform, user: User
    ) async throws -> String {
        guard let platformCourse = launch.context else { return "/courses" }
        if launch.role == .teacher {
            if try await linkedCourses.linkedCourse(platformID: platform.id, contextID: platformCourse.id) == nil,
                try await !linkedCourses.linkableCourses(teacherID: user.id).isEmpty
            {
                // A teacher with courses of their own picks one, or a new course.
                let code = try await launches.keep(
                    .init(kind: .course, platformID: platform.id, userID: user.id, launch: launch))
                return LearningPlatformRoutes.coursePage.description + "?code=" + code
            }
            return try await linkCourse(launch, context: platformCourse, platform: platform, user: user, existing: nil)
        }
        return try await joinCourse(launch, context: platformCourse, platform: platform, user: user)
    }

    /// Links the platform's course to `existing` or a new course, with the instructor as its teacher or co-teacher;
    /// syncs its roster and finds its line item. Answers the course's page.
    private func linkCourse(
        _ launch: LTI.Launch, context platformCourse: LTI.Context, platform: LearningPlatform, user: User,
        existing: Int64?
    ) async throws -> String {
        let linked = try await linkedCourses.link(
            launch, context: platformCourse, platformID: platform.id, teacherID: user.id, existing: existing)
        if let course = try await links.courses.find(id: linked.courseId), course.teacherId != user.id {
            try await links.courses.setStaff(courseID: course.id, userID: user.id, role: .teacher)
        }
        // The platform's services are a help, not a condition: a launch goes on while they are away.
        if linked.membershipsUrl != nil {
            do {
                _ = try await links.sync(linked, platform: platform)
            } catch {
                links.logger.warning("the roster sync on launch failed: \(error)")
            }
        }
        if linked.lineItemsUrl != nil || linked.lineItemUrl != nil {
            do {
                _ = try await links.lineItem(linked, platform: platform)
            } catch {
                links.logger.warning("the line item on launch failed: \(error)")
            }
        }
        return "/courses/\(linked.courseId)"
    }

    /// Puts an assistant or a student in the linked course. Answers the course's page.
    private func joinCourse(
        _ launch: LTI.Launch, context platformCourse: LTI.Context, platform: LearningPlatform, user: User
    ) async throws -> String {
        guard let linked = try await linkedCourses.linkedCourse(platformID: platform.id, contextID: platformCourse.id)
        else {
            throw AppError(
                .notFound, .courseNotFound,
                "Rollcall is not set up for this course yet. Its instructor sets it up by opening Rollcall from the course once."
            )
        }
        if launch.role == .assistant {
            if let course = try await links.courses.find(id: linked.courseId), course.teacherId != user.id {
                try await links.courses.setStaff(courseID: course.id, userID: user.id, role: .assistant)
            }
        } else {
            try await links.courses.enroll(courseID: linked.courseId, studentID: user.id)
        }
        return "/courses/\(linked.courseId)"
    }

    /// The deep linking answer: an instructor places "Rollcall attendance" in the platform's course, with its line
    /// item; the response is signed with Rollcall's key and posted by the browser to the platform.
    private func deepLinkingPage(_ launch: LTI.Launch, platform: LearningPlatform, context: AppRequestContext)
        async throws -> Response
    {
        guard let returnURL = launch.deepLinkReturnURL else {
            throw Self.refused("The deep linking request has nowhere to return to.")
        }
        // A course whose grades already have a column asks for no second one.
        var hasColumn = false
        if let course = launch.context {
            hasColumn =
                try await linkedCourses.linkedCourse(platformID: platform.id, contextID: course.id)?.lineItemUrl != nil
        }
        let now = Date()
        let response = DeepLinkingResponse(
            iss: platform.clientId, aud: platform.issuer, iat: Int(now.timeIntervalSince1970),
            exp: Int(now.timeIntervalSince1970) + 600, nonce: OpaqueToken.make(),
            messageType: "LtiDeepLinkingResponse", version: LTI.version, deploymentID: launch.deploymentID,
            data: launch.deepLinkData,
            contentItems: [
                .init(
                    type: "ltiResourceLink", title: say("Rollcall attendance"), url: launchURL,
                    text: say("Check in to class sessions and see your attendance."),
                    lineItem: hasColumn
                        ? nil
                        : .init(
                            scoreMaximum: 100, label: say("Attendance"), resourceId: LTI.lineItemResourceID,
                            tag: LTI.lineItemTag))
            ])
        let jwt = try await keys.sign(response)
        return try pages.render(
            DeepLinkingPage(returnURL: returnURL, jwt: jwt, platform: platform.name),
            title: "Add Rollcall to the course", context: context, layout: "bare")
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

    /// The page that asks whether the account Rollcall has for the platform's address is the person's: signed in
    /// to it, they link it; else they sign in first, or go on with a new account.
    @Sendable func linkPage(_ request: Request, context: AppRequestContext) async throws -> Response {
        let code = request.query("code") ?? ""
        guard let pending = try await launches.pending(code: code), pending.kind == .account,
            let platform = try await platforms.find(id: pending.platformID)
        else { throw Self.waitedTooLong }
        let address = pending.launch.email.flatMap { try? AccountRules.email($0) } ?? ""
        let here = LearningPlatformRoutes.linkPage.description + "?code=" + code
        return try pages.render(
            LinkAccountPage(
                code: code, platform: platform.name, email: address,
                owner: context.user.map { $0.email == address } ?? false, signedInAs: context.user?.email,
                signIn: AccountRoutes.signIn(next: here)),
            title: "Link your account · Rollcall", context: context)
    }

    /// The page where a teacher picks which of their courses the platform's course is, or a new one.
    @Sendable func coursePage(_ request: Request, context: AppRequestContext) async throws -> Response {
        let code = request.query("code") ?? ""
        guard let user = context.user else {
            return .redirect(
                to: AccountRoutes.signIn(next: LearningPlatformRoutes.coursePage.description + "?code=" + code),
                type: .found)
        }
        guard let pending = try await launches.pending(code: code), pending.kind == .course,
            pending.userID == user.id, let platform = try await platforms.find(id: pending.platformID)
        else { throw Self.waitedTooLong }
        return try pages.render(
            CourseChoicePage(
                code: code, platform: platform.name, title: pending.launch.context?.title ?? "",
                courses: try await linkedCourses.linkableCourses(teacherID: user.id).map {
                    CourseChoicePage.Choice(id: $0.id, name: $0.name)
                }),
            title: "Which course? · Rollcall", context: context)
    }

    /// What a person answers a waiting launch: `{"link": true|false}` for an account, `{"courseId": n}` (or
    /// nothing, for a new course) for a course. The launch goes on, and the person is signed in where it leads.
    @Sendable func answer(_ request: Request, context: AppRequestContext) async throws -> Response {
        struct Answer: Decodable {
            var link: Bool?
            var courseId: Int64?
        }
        struct Next: Codable, ResponseEncodable {
            var next: String
        }
        let code = context.parameters.get("code") ?? ""
        guard let pending = try await launches.pending(code: code),
            let platform = try await platforms.find(id: pending.platformID)
        else { throw Self.waitedTooLong }
        let input = try await request.decodeJSON(as: Answer.self, context: context)
        let launch = pending.launch
        let user: User
        let next: String
        switch pending.kind {
        case .account:
            guard let link = input.link else {
                throw AppError(
                    .badRequest, .missingField, "Say whether to link the account: {\"link\": true} or false.")
            }
            let address = launch.email.flatMap { try? AccountRules.email($0) } ?? ""
            if link {
                guard let me = context.user, me.email == address else {
                    throw AppError(
                        .forbidden, .ltiLaunchRefused,
                        "Sign in to the Rollcall account of \(address) first: only its owner links it to \(platform.name)."
                    )
                }
                guard try await launches.takePending(code: code) != nil else { throw Self.waitedTooLong }
                try await people.linkIdentity(platformID: platform.id, subject: launch.subject, to: me.id)
                user = me
            } else {
                guard try await launches.takePending(code: code) != nil else { throw Self.waitedTooLong }
                user = try await people.account(
                    platformID: platform.id, subject: launch.subject, person: FederatedPerson(launch: launch),
                    logger: context.logger)
            }
            next = try await destination(launch, platform: platform, user: user)
        case .course:
            guard let me = context.user, me.id == pending.userID, let platformCourse = launch.context else {
                throw AppError(
                    .forbidden, .ltiLaunchRefused,
                    "Only the teacher who opened Rollcall from the course picks its course.")
            }
            if let chosen = input.courseId,
                try await !linkedCourses.linkableCourses(teacherID: me.id).contains(where: { $0.id == chosen })
            {
                throw AppError.invalid(
                    RuleViolation(
                        field: "courseId",
                        message: "Pick one of your own courses that is not archived nor linked yet, or a new course."))
            }
            guard try await launches.takePending(code: code) != nil else { throw Self.waitedTooLong }
            user = me
            next = try await linkCourse(
                launch, context: platformCourse, platform: platform, user: me, existing: input.courseId)
        }
        guard !user.disabled, user.deletedAt == nil else { throw AppError.accountDisabled }
        let issued = try await tokens.issue(userID: user.id, kind: .web)
        var response = try Next(next: next).response(from: request, context: context, status: .ok)
        response.setCookie(signIns.sessionCookie(issued.token, maxAge: Int(AccessTokenStore.webLifetime)))
        return response
    }

    static let waitedTooLong = AppError(
        .badRequest, .ltiStateInvalid,
        "This launch was answered already or waited too long. Open Rollcall again from the course.")

    /// Rollcall's public keys, for platforms to check what Rollcall signs.
    @Sendable func jwks(_ request: Request, context: AppRequestContext) async throws -> Response {
        let set = try await keys.keySet()
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

/// Whether the account Rollcall has for the platform's address is the person's.
struct LinkAccountPage: PageModel {
    static let template = "lti-link"
    var code: String
    var platform: String
    var email: String
    /// Signed in to that account: one button links it.
    var owner: Bool
    /// Signed in to another account.
    var signedInAs: String?
    var signIn: String
}

/// Which of a teacher's courses the platform's course is.
struct CourseChoicePage: PageModel {
    static let template = "lti-course"
    struct Choice: Sendable {
        var id: Int64
        var name: String
    }
    var code: String
    var platform: String
    var title: String
    var courses: [Choice]
}

/// The instructor's page of a deep linking request.
struct DeepLinkingPage: PageModel {
    static let template = "lti-deep-linking"
    var returnURL: String
    var jwt: String
    var platform: String
}

/// Deep Linking 2.0's response message.
struct DeepLinkingResponse: JWTPayload {
    struct ContentItem: Codable {
        struct LineItem: Codable {
            var scoreMaximum: Int
            var label: String
            var resourceId: String
            var tag: String
        }
        var type: String
        var title: String
        var url: String
        var text: String
        /// Left out where the course has its column already.
        var lineItem: LineItem?
    }
    var iss: String
    var aud: String
    var iat: Int
    var exp: Int
    var nonce: String
    var messageType: String
    var version: String
    var deploymentID: String
    var data: String?
    var contentItems: [ContentItem]

    enum CodingKeys: String, CodingKey {
        case iss, aud, iat, exp, nonce
        case messageType = "https://purl.imsglobal.org/spec/lti/claim/message_type"
        case version = "https://purl.imsglobal.org/spec/lti/claim/version"
        case deploymentID = "https://purl.imsglobal.org/spec/lti/claim/deployment_id"
        case data = "https://purl.imsglobal.org/spec/lti-dl/claim/data"
        case contentItems = "https://purl.imsglobal.org/spec/lti-dl/claim/content_items"
    }

    func verify(using algorithm: some JWTAlgorithm) throws {}
}
