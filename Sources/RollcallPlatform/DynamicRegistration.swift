import AsyncHTTPClient
import Foundation
import Hummingbird
import Logging
import NIOCore
import RollcallCore
import RollcallModel
import RollcallParts
import RollcallStorage
import RollcallWeb
import RollcallWords
import SQLKit

/// LTI Dynamic Registration 1.0: an admin makes a registration URL (with a secret, once, within an hour) and pastes
/// it into the platform (Moodle's "Tool URL", Canvas's "LTI Registration"); the platform opens it with its OpenID
/// configuration and a registration token; Rollcall reads the configuration, registers itself at the platform, keeps
/// the client id and deployment it is given, and tells the platform's page it is done.
struct DynamicRegistration: Sendable {
    let database: Database
    let platforms: PlatformStore
    let pages: PageRenderer
    let framing: FrameAncestors
    let counters: AttemptCounters
    /// Where Rollcall answers, which the platform is given as the tool's address.
    let publicURL: String
    /// Follows no redirect: a registration talks to the platform's own origin only.
    var http: HTTPClient = Self.client

    static let client = HTTPClient(
        eventLoopGroup: HTTPClient.defaultEventLoopGroup,
        configuration: HTTPClient.Configuration(redirectConfiguration: .disallow))

    /// How often one registration URL may be tried against a platform.
    static let tries = RateLimit(limit: 5, window: lifetime)

    /// How long a registration URL works.
    static let lifetime: TimeInterval = 3600

    struct LinkEnvelope: Codable, ResponseEncodable {
        var url: String
        var expiresAt: Date
        var message: String
    }

    func addRoutes(to router: AppRouter) {
        router.post(LearningPlatformRoutes.registrationLinks, use: makeLink)
        router.get(LearningPlatformRoutes.register, use: register)
    }

    /// A registration URL for one platform, made by an admin.
    @Sendable func makeLink(_ request: Request, context: AppRequestContext) async throws -> Response {
        let admin = try AccessRule.admin(context)
        let secret = OpaqueToken.make()
        let now = Date()
        let expires = now.addingTimeInterval(Self.lifetime)
        try await database.write { sql in
            try await sql.delete(from: "lti_registration_links").where("expires_at", .lessThan, now).run()
            try await sql.insert(into: "lti_registration_links").columns("secret_hash", "created_by", "expires_at")
                .values(SQLBind(OpaqueToken.digest(secret)), SQLBind(admin.id), SQLBind(expires)).run()
        }
        let url = publicURL + LearningPlatformRoutes.register.description + "?secret=" + secret
        return try LinkEnvelope(
            url: url, expiresAt: expires,
            message: context.reader.say(
                "Paste this URL into the platform's dynamic registration within an hour; it works once: \(url)")
        ).response(from: request, context: context, status: .created)
    }

    /// The platform's side of a dynamic registration: everything is checked before the secret is used, so that a
    /// registration refused for the platform's fault can be tried again with the same URL.
    @Sendable func register(_ request: Request, context: AppRequestContext) async throws -> Response {
        let secret = request.query("secret") ?? ""
        guard try await valid(secret) else {
            throw AppError(
                .badRequest, .ltiStateInvalid,
                "This registration URL was used already, has expired, or was not made by Rollcall. Ask Rollcall's admin for a new one."
            )
        }
        guard let configurationURL = request.query("openid_configuration") else {
            throw LaunchController.refused(
                "The platform opened the registration without its OpenID configuration.", status: .badRequest)
        }
        try await counters.admit(
            .registrationTry, key: OpaqueToken.digest(secret), under: Self.tries,
            refusal: "This registration URL was tried too often. Ask Rollcall's admin for a new one.")
        let platformConfiguration = try await fetchConfiguration(configurationURL)
        let registered = try await registerTool(
            at: platformConfiguration, token: request.query("registration_token"), logger: context.logger,
            in: context.reader)
        let name = platformConfiguration.name
        let stored: LearningPlatform? = try await database.transaction { sql in
            // Taken in the same transaction that keeps the registration: one platform per URL.
            guard
                try await sql.delete(from: "lti_registration_links")
                    .where("secret_hash", .equal, OpaqueToken.digest(secret)).returning("secret_hash").first() != nil
            else { return nil }
            return try await PlatformStore.insert(
                PlatformStore.Registration(
                    name: name, issuer: platformConfiguration.issuer, clientId: registered.clientID,
                    deploymentIds: registered.deploymentID.map { [$0] } ?? [],
                    authorizationUrl: platformConfiguration.authorizationEndpoint,
                    tokenUrl: platformConfiguration.tokenEndpoint, jwksUrl: platformConfiguration.jwksURI),
                createdAt: Date(), in: sql)
        }
        guard let stored else {
            throw AppError(
                .conflict, .ltiPlatformExists,
                "This platform is registered with Rollcall already, or the URL was used meanwhile.")
        }
        try await platforms.allowFraming(framing)
        return try pages.render(
            RegisteredPage(platform: stored.name, deploymentMissing: stored.deploymentIds.isEmpty),
            title: "Rollcall is registered", context: context, layout: "bare", framing: .launch)
    }

    private func valid(_ secret: String) async throws -> Bool {
        try await database.read { sql in
            try await sql.select().column("expires_at").from("lti_registration_links")
                .where("secret_hash", .equal, OpaqueToken.digest(secret))
                .first(decodingColumn: "expires_at", as: Date.self).map { $0 > Date() } ?? false
        }
    }

    /// The parts of the platform's OpenID configuration a registration needs.
    struct PlatformConfiguration: Sendable {
        var issuer: String
        var authorizationEndpoint: String
        var tokenEndpoint: String
        var jwksURI: String
        var registrationEndpoint: String
        var name: String
    }

    /// Reads the platform's configuration; its issuer must begin the configuration's own URL, as the specification
    /// asks, so that a page cannot pass off another site's configuration.
    func fetchConfiguration(_ url: String) async throws -> PlatformConfiguration {
        let unavailable = AppError(
            .serviceUnavailable, .ltiPlatformUnavailable,
            "The platform's configuration could not be read. Try the registration again in a few minutes.",
            retryAfter: 60)
        let body: Data
        do {
            body = try await PublishedKeys.fetch(url, http: http, timeout: .seconds(10)).0
        } catch {
            throw unavailable
        }
        guard let document = (try? JSONSerialization.jsonObject(with: body)) as? [String: Any] else {
            throw unavailable
        }
        func text(_ key: String) throws -> String {
            guard let value = document[key] as? String, (try? LTI.platformURL(value, field: key)) != nil else {
                throw LaunchController.refused(
                    "The platform's configuration lacks a usable \(key).", status: .badRequest)
            }
            return value
        }
        let issuer = try text("issuer")
        let registrationEndpoint = try text("registration_endpoint")
        guard LTI.sameOrigin(issuer: issuer, configuration: url, registrationEndpoint: registrationEndpoint) else {
            throw LaunchController.refused(
                "The platform's configuration was not read from its own issuer's site, or sends the registration to another site. Ask the platform's admin for its own registration.",
                status: .badRequest)
        }
        let product =
            (document["https://purl.imsglobal.org/spec/lti-platform-configuration"] as? [String: Any])?[
                "product_family_code"] as? String
        let host = URL(string: issuer)?.host ?? issuer
        return PlatformConfiguration(
            issuer: issuer, authorizationEndpoint: try text("authorization_endpoint"),
            tokenEndpoint: try text("token_endpoint"), jwksURI: try text("jwks_uri"),
            registrationEndpoint: registrationEndpoint,
            name: String((product.map { "\($0.prefix(40)) at \(host)" } ?? host).prefix(100)))
    }

    /// Registers Rollcall at the platform's registration endpoint, named in `reader`'s words (the registering
    /// request's); answers the client id and deployment it gave.
    func registerTool(at platform: PlatformConfiguration, token: String?, logger: Logger, in reader: Reader)
        async throws
        -> (clientID: String, deploymentID: String?)
    {
        let base = publicURL
        let launch = base + LearningPlatformRoutes.launch.description
        let label = reader.say("Rollcall attendance")
        let tool: [String: Any] = [
            "application_type": "web", "response_types": ["id_token"],
            "grant_types": ["implicit", "client_credentials"],
            "initiate_login_uri": base + LearningPlatformRoutes.login.description, "redirect_uris": [launch],
            "client_name": "Rollcall", "jwks_uri": base + LearningPlatformRoutes.jwks.description,
            "logo_uri": base + "/assets/icon.svg", "token_endpoint_auth_method": "private_key_jwt",
            "scope": [LTI.Scope.memberships, LTI.Scope.lineItems, LTI.Scope.scores].joined(separator: " "),
            "https://purl.imsglobal.org/spec/lti-tool-configuration": [
                "domain": URL(string: base)?.host ?? base, "target_link_uri": launch,
                "claims": ["iss", "sub", "name", "given_name", "family_name", "email"],
                "messages": [
                    ["type": "LtiResourceLinkRequest", "target_link_uri": launch, "label": label],
                    ["type": "LtiDeepLinkingRequest", "target_link_uri": launch, "label": label],
                ],
            ],
        ]
        var request = HTTPClientRequest(url: platform.registrationEndpoint)
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/json")
        request.headers.add(name: "Accept", value: "application/json")
        if let token { request.headers.add(name: "Authorization", value: "Bearer \(token)") }
        request.body = .bytes(ByteBuffer(bytes: try JSONSerialization.data(withJSONObject: tool)))
        let status: UInt
        let answer: [String: Any]?
        do {
            let response = try await http.execute(request, timeout: .seconds(15))
            status = response.status.code
            answer =
                (try? JSONSerialization.jsonObject(with: Data(buffer: try await response.body.collect(upTo: 1 << 20))))
                as? [String: Any]
        } catch {
            throw AppError(
                .serviceUnavailable, .ltiPlatformUnavailable,
                "The platform did not answer the registration. Try again in a few minutes.", retryAfter: 60)
        }
        guard (200..<300).contains(status), let clientID = answer?["client_id"] as? String,
            (try? LTI.clientID(clientID)) != nil
        else {
            // The platform's own words stay in the log: the page is no relay for what another site says.
            logger.warning("the platform's registration endpoint answered HTTP \(status) without a usable client id")
            throw LaunchController.refused(
                "The platform refused the registration. Ask the platform's admin to allow it, then try again.",
                status: .badRequest)
        }
        let deployment =
            (answer?["https://purl.imsglobal.org/spec/lti-tool-configuration"] as? [String: Any])?["deployment_id"]
            as? String
        return (clientID, deployment)
    }
}

/// The page that ends a dynamic registration, inside the platform's window: its script tells the platform to close it.
struct RegisteredPage: PageModel {
    static let template = "lti-registered"
    var platform: String
    var deploymentMissing: Bool
}
