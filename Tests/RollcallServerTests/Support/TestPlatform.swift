import AsyncHTTPClient
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import JWTKit
import NIOConcurrencyHelpers
import RollcallCore
import RollcallDelivery
import RollcallParts
import RollcallProtocol
import ServerTestSupport
import Testing
import _CryptoExtras

@testable import RollcallPlatform
@testable import RollcallServer

/// A learning platform for the server tests, on loopback: its key set, a token endpoint that checks Rollcall's
/// client assertion against Rollcall's published keys, a paged roster (NRPS) and a gradebook (AGS) that refuses
/// scores out of order. The tests sign their own launches, good and bad, with keys the platform holds.
final class TestPlatform: Sendable {
    static let clientID = "rollcall-tool"
    static let deployment = "deployment-1"
    static let context = "course-geo"
    static let instructorRole = "http://purl.imsglobal.org/vocab/lis/v2/membership#Instructor"
    static let learnerRole = "http://purl.imsglobal.org/vocab/lis/v2/membership#Learner"

    /// A signing key the platform holds, by its `kid`.
    struct Key: Sendable {
        var kid: String
        var key: _RSA.Signing.PrivateKey

        var jwk: [String: String] {
            let primitives = try! Insecure.RSA.PublicKey(backing: key.publicKey).getKeyPrimitives()
            return [
                "kty": "RSA", "alg": "RS256", "use": "sig", "kid": kid, "n": Base64URL.encode(primitives.modulus),
                "e": Base64URL.encode(primitives.publicExponent),
            ]
        }

        /// Keys made once for every test: making one keeps a core busy for a while, and the tests run side by side.
        static let first = Key(kid: "platform-key-1", key: try! _RSA.Signing.PrivateKey(keySize: .bits2048))
        static let unpublished = Key(kid: "not-published", key: try! _RSA.Signing.PrivateKey(keySize: .bits2048))
    }

    /// A member of the platform's course.
    struct Member: Sendable {
        var userID: String
        var name: String
        var email: String
        var number: String?
        var role: String
        var status = "Active"
    }

    /// A score the gradebook took.
    struct Score: Sendable {
        var lineItem: String
        var userID: String
        var given: Double?
        var maximum: Double?
        var activity: String
        var grading: String
        var timestamp: String
    }

    struct State: Sendable {
        var published: [Key]
        var members: [Member] = []
        var lineItems: [String: String] = [:]
        /// The placed link each line item is bound to, if any: some platforms show learners only those.
        var lineItemLinks: [String: String?] = [:]
        var scores: [Score] = []
        var refusedScores = 0
        var down = false
        /// Requests answered 503 while down.
        var unavailable = 0
        var keyFetches = 0
        var scopesAsked: [String] = []
        var usedAssertions: Set<String> = []
        var issuedTokens: [String: Set<String>] = [:]
        /// Dynamic registrations received, and whether the next is refused.
        /// Each as the JSON text Rollcall sent.
        var registrations: [Data] = []
        var refuseRegistration = false
        /// What the configuration says differently, by key.
        var configurationChanges: [String: String] = [:]
        /// The status the registration endpoint answers with, where set.
        var registrationStatus: Int?
    }

    let state: NIOLockedValueBox<State>
    private let address = NIOLockedValueBox("")
    /// Reads Rollcall's published keys (its `/lti/jwks`), to check what Rollcall signs.
    let toolKeys: NIOLockedValueBox<(@Sendable () async throws -> String)?> = .init(nil)

    init(keys: [Key]) {
        state = NIOLockedValueBox(State(published: keys))
    }

    var issuer: String { address.withLockedValue { $0 } }
    var published: [Key] { state.withLockedValue { $0.published } }
    var scores: [Score] { state.withLockedValue { $0.scores } }
    var keyFetches: Int { state.withLockedValue { $0.keyFetches } }

    func set(_ change: (inout State) -> Void) { state.withLockedValue(change) }

    /// A JWT with these header and claims, signed RS256 with `key` (or not at all).
    static func token(header: [String: Any], claims: [String: Any], key: Key?) throws -> String {
        let head = Base64URL.encode(try JSONSerialization.data(withJSONObject: header, options: .sortedKeys))
        let body = Base64URL.encode(try JSONSerialization.data(withJSONObject: claims, options: .sortedKeys))
        let input = Data("\(head).\(body)".utf8)
        let signature = try key.map { try $0.key.signature(for: input, padding: .insecurePKCS1v1_5).rawRepresentation }
        return "\(head).\(body).\(Base64URL.encode(signature ?? Data()))"
    }

    /// The claims of a good launch for `nonce`: an instructor's or a learner's resource link launch.
    func claims(nonce: String, subject: String, role: String, _ change: (inout [String: Any]) -> Void = { _ in })
        -> [String: Any]
    {
        let now = Date().timeIntervalSince1970
        let member = state.withLockedValue { state in state.members.first { $0.userID == subject } }
        var claims: [String: Any] = [
            "iss": issuer, "aud": Self.clientID, "azp": Self.clientID, "sub": subject, "exp": Int(now + 300),
            "iat": Int(now - 5), "nonce": nonce, "name": member?.name ?? "Tess Hill",
            "email": member?.email ?? "tess@hill.test",
            LTI.Claim.messageType: "LtiResourceLinkRequest", LTI.Claim.version: "1.3.0",
            LTI.Claim.deploymentID: Self.deployment, LTI.Claim.roles: [role],
            LTI.Claim.resourceLink: ["id": "link-1", "title": "Attendance"],
            LTI.Claim.context: ["id": Self.context, "label": "GEO 101", "title": "Geology"],
            LTI.Claim.targetLinkURI: "http://rollcall.test/lti/launch",
            LTI.Claim.namesRoles: [
                "context_memberships_url": "\(issuer)/nrps/\(Self.context)", "service_versions": ["2.0"],
            ],
            LTI.Claim.gradeEndpoint: [
                "lineitems": "\(issuer)/ags/\(Self.context)/lineitems",
                "scope": [LTI.Scope.lineItems, LTI.Scope.scores],
            ],
        ]
        if let number = member?.number { claims[LTI.Claim.lis] = ["person_sourcedid": number] }
        change(&claims)
        return claims
    }

    /// A good launch token for `nonce`, signed with the first published key.
    func launchToken(nonce: String, subject: String, role: String, _ change: (inout [String: Any]) -> Void = { _ in })
        throws -> String
    {
        let key = published[0]
        return try Self.token(
            header: ["alg": "RS256", "kid": key.kid, "typ": "JWT"],
            claims: claims(nonce: nonce, subject: subject, role: role, change), key: key)
    }

    /// Checks a JWT Rollcall signed, with the keys Rollcall publishes; answers its payload.
    func verifyTool(_ token: String) async throws -> [String: Any] {
        guard let read = toolKeys.withLockedValue({ $0 }) else { throw PlatformRefusal("no tool keys") }
        let keys = JWTKeyCollection()
        try await keys.add(jwksJSON: try await read())
        _ = try await keys.verify(token, as: AnyPayload.self)
        let part = token.split(separator: ".")[1]
        return try JSONSerialization.jsonObject(with: Data(Base64URL.decode(String(part)) ?? [])) as? [String: Any]
            ?? [:]
    }

    struct PlatformRefusal: Error {
        var why: String
        init(_ why: String) { self.why = why }
    }

    /// The platform's routes.
    func router() -> Router<BasicRequestContext> {
        let router = Router()
        router.get(".well-known/openid-configuration") { [self] _, _ -> Response in
            var document: [String: Any] = [
                "issuer": issuer, "authorization_endpoint": "\(issuer)/auth", "token_endpoint": "\(issuer)/token",
                "jwks_uri": "\(issuer)/jwks", "registration_endpoint": "\(issuer)/register",
                "https://purl.imsglobal.org/spec/lti-platform-configuration": ["product_family_code": "moodle"],
            ]
            for (key, value) in state.withLockedValue({ $0.configurationChanges }) { document[key] = value }
            return Self.json(document)
        }
        // A configuration that has moved to another host.
        router.get("moved/openid-configuration") { [self] _, _ -> Response in
            let elsewhere = issuer.replacingOccurrences(of: "127.0.0.1", with: "localhost")
            return Response(status: .found, headers: [.location: "\(elsewhere)/.well-known/openid-configuration"])
        }
        router.post("register") { [self] request, _ -> Response in
            guard request.headers[.authorization] == "Bearer registration-token-1" else {
                return Self.json(["error": "invalid_token"], status: .unauthorized)
            }
            let body = try await request.body.collect(upTo: 1 << 16)
            let tool = (try? JSONSerialization.jsonObject(with: Data(buffer: body))) as? [String: Any] ?? [:]
            if let status = state.withLockedValue({ $0.registrationStatus }) {
                return Self.json(["error": "internal words of the platform"], status: .init(code: status))
            }
            let refused = state.withLockedValue { state -> Bool in
                if state.refuseRegistration { return true }
                state.registrations.append(Data(buffer: body))
                return false
            }
            guard !refused, tool["initiate_login_uri"] is String, tool["jwks_uri"] is String else {
                return Self.json(["error": "invalid_client_metadata"], status: .badRequest)
            }
            var answer = tool
            answer["client_id"] = "dynamic-client-7"
            answer["https://purl.imsglobal.org/spec/lti-tool-configuration"] = ["deployment_id": "dynamic-deployment-1"]
            return Self.json(answer, status: .created)
        }
        router.get("jwks") { [state] _, _ -> Response in
            let keys = state.withLockedValue {
                $0.keyFetches += 1
                return $0.published.map(\.jwk)
            }
            return Self.json(["keys": keys])
        }
        router.post("token") { [self] request, _ -> Response in
            if state.withLockedValue({ state in
                state.unavailable += state.down ? 1 : 0
                return state.down
            }) {
                return Self.json(["error": "down"], status: .serviceUnavailable)
            }
            let form = try await LaunchController.fields(of: request)
            guard form["grant_type"] == "client_credentials",
                form["client_assertion_type"] == "urn:ietf:params:oauth:client-assertion-type:jwt-bearer",
                let assertion = form["client_assertion"], let scope = form["scope"]
            else { return Self.json(["error": "invalid_request"], status: .badRequest) }
            let claims: [String: Any]
            do {
                claims = try await verifyTool(assertion)
            } catch {
                return Self.json(["error": "invalid_client"], status: .unauthorized)
            }
            let jti = claims["jti"] as? String ?? ""
            let fresh = state.withLockedValue { $0.usedAssertions.insert(jti).inserted }
            guard fresh, claims["iss"] as? String == Self.clientID, claims["sub"] as? String == Self.clientID,
                claims["aud"] as? String == "\(issuer)/token",
                ((claims["exp"] as? NSNumber)?.doubleValue ?? 0) > Date().timeIntervalSince1970
            else { return Self.json(["error": "invalid_grant"], status: .badRequest) }
            let token = UUID().uuidString
            state.withLockedValue {
                $0.scopesAsked.append(scope)
                $0.issuedTokens[token] = Set(scope.split(separator: " ").map(String.init))
            }
            return Self.json(["access_token": token, "token_type": "Bearer", "expires_in": 3600, "scope": scope])
        }
        router.get("nrps/:context") { [self] request, context -> Response in
            if let refusal = refuse(request, needing: LTI.Scope.memberships) { return refusal }
            let page = Int(request.uri.queryParameters.get("page") ?? "0") ?? 0
            let members = state.withLockedValue { $0.members }
            let slice = members.dropFirst(page * 15).prefix(15)
            var response = Self.json([
                "id": "\(issuer)/nrps/\(Self.context)", "context": ["id": Self.context, "title": "Geology"],
                "members": slice.map { member -> [String: Any] in
                    var entry: [String: Any] = [
                        "user_id": member.userID, "name": member.name, "email": member.email,
                        "status": member.status, "roles": [member.role],
                    ]
                    if let number = member.number { entry["lis_person_sourcedid"] = number }
                    return entry
                },
            ])
            if (page + 1) * 15 < members.count {
                response.headers[HTTPField.Name("Link")!] =
                    "<\(issuer)/nrps/\(Self.context)?page=\(page + 1)>; rel=\"next\""
            }
            return response
        }
        router.get("ags/:context/lineitems") { [self] request, _ -> Response in
            if let refusal = refuse(request, needing: LTI.Scope.lineItems),
                refuse(request, needing: LTI.Scope.lineItemsReadOnly) != nil
            {
                return refusal
            }
            let items = state.withLockedValue { $0.lineItems }
            let wanted = request.uri.queryParameters.get("resource_id")
            return Self.json(
                items.filter { wanted == nil || $0.value == wanted }.map { ["id": $0.key, "resourceId": $0.value] })
        }
        router.post("ags/:context/lineitems") { [self] request, _ -> Response in
            if let refusal = refuse(request, needing: LTI.Scope.lineItems) { return refusal }
            let body = try await request.body.collect(upTo: 1 << 16)
            let item = (try? JSONSerialization.jsonObject(with: Data(buffer: body))) as? [String: Any] ?? [:]
            guard item["scoreMaximum"] as? NSNumber != nil, let label = item["label"] as? String, !label.isEmpty else {
                return Self.json(["error": "invalid line item"], status: .badRequest)
            }
            let id = state.withLockedValue { state in
                let id = "\(issuer)/ags/\(Self.context)/lineitems/\(state.lineItems.count + 1)"
                state.lineItems[id] = item["resourceId"] as? String ?? ""
                state.lineItemLinks[id] = item["resourceLinkId"] as? String
                return id
            }
            var answer = item
            answer["id"] = id
            return Self.json(answer, status: .created)
        }
        router.post("ags/:context/lineitems/:item/scores") { [self] request, context -> Response in
            if let refusal = refuse(request, needing: LTI.Scope.scores) { return refusal }
            guard request.headers[.contentType] == "application/vnd.ims.lis.v1.score+json" else {
                return Self.json(["error": "media type"], status: .unsupportedMediaType)
            }
            let body = try await request.body.collect(upTo: 1 << 16)
            let score = (try? JSONSerialization.jsonObject(with: Data(buffer: body))) as? [String: Any] ?? [:]
            let lineItem = "\(issuer)/ags/\(Self.context)/lineitems/\(context.parameters.get("item") ?? "")"
            let taken = state.withLockedValue { state -> Bool in
                guard let user = score["userId"] as? String, state.lineItems[lineItem] != nil,
                    state.members.contains(where: { $0.userID == user }),
                    let timestamp = score["timestamp"] as? String,
                    ["Initialized", "Started", "InProgress", "Submitted", "Completed"]
                        .contains(score["activityProgress"] as? String ?? ""),
                    ["FullyGraded", "Pending", "PendingManual", "Failed", "NotReady"]
                        .contains(score["gradingProgress"] as? String ?? ""),
                    state.scores.last(where: { $0.userID == user && $0.lineItem == lineItem })
                        .map({ $0.timestamp < timestamp }) ?? true
                else {
                    state.refusedScores += 1
                    return false
                }
                state.scores.append(
                    Score(
                        lineItem: lineItem, userID: user, given: (score["scoreGiven"] as? NSNumber)?.doubleValue,
                        maximum: (score["scoreMaximum"] as? NSNumber)?.doubleValue,
                        activity: score["activityProgress"] as? String ?? "",
                        grading: score["gradingProgress"] as? String ?? "", timestamp: timestamp))
                return true
            }
            return taken ? Response(status: .ok) : Self.json(["error": "refused"], status: .badRequest)
        }
        return router
    }

    /// The refusal of a service call without a token for `scope`, or while the platform is down.
    private func refuse(_ request: Request, needing scope: String) -> Response? {
        let (down, tokens) = state.withLockedValue { state in
            state.unavailable += state.down ? 1 : 0
            return (state.down, state.issuedTokens)
        }
        if down { return Self.json(["error": "down"], status: .serviceUnavailable) }
        let token = request.headers[.authorization].map { String($0.dropFirst("Bearer ".count)) } ?? ""
        guard let scopes = tokens[token] else { return Self.json(["error": "unauthorized"], status: .unauthorized) }
        return scopes.contains(scope) ? nil : Self.json(["error": "scope"], status: .forbidden)
    }

    static func json(_ object: Any, status: HTTPResponse.Status = .ok) -> Response {
        let data = (try? JSONSerialization.data(withJSONObject: object)) ?? Data()
        return Response(
            status: status, headers: [.contentType: "application/json"],
            body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }

    /// The settings every Rollcall server of these tests runs with.
    static func configure(_ configuration: inout Configuration) {
        configuration.publicURL = "http://rollcall.test"
        configuration.mailRetry = RetryPolicy(first: 0.2, longest: 0.5, attempts: 100)
        configuration.mailPoll = .milliseconds(200)
        configuration.jobRetry = RetryPolicy(first: 0.2, longest: 0.5, attempts: 100)
        configuration.jobPoll = .milliseconds(200)
    }

    /// Starts a platform on loopback and runs `body` with it.
    static func serving(_ body: @escaping @Sendable (TestPlatform) async throws -> Void) async throws {
        let platform = TestPlatform(keys: [Key.first])
        let app = Application(router: platform.router(), configuration: .init(address: .hostname("127.0.0.1", port: 0)))
        try await app.test(.live) { client in
            let port = try #require(client.port)
            platform.address.withLockedValue { $0 = "http://127.0.0.1:\(port)" }
            try await body(platform)
        }
    }

    /// Registers this platform at the Rollcall server `api` by its admin, and reads Rollcall's keys from it.
    func register(at api: API, by admin: Account) async throws {
        // Over a connection of its own, as a platform elsewhere would: the test's client is busy with the request
        // that made the platform ask.
        let keysURL = "http://127.0.0.1:\(try #require(api.client.port))/lti/jwks"
        toolKeys.withLockedValue {
            $0 = {
                let response = try await HTTPClient.shared.execute(
                    HTTPClientRequest(url: keysURL), timeout: .seconds(10))
                return String(buffer: try await response.body.collect(upTo: 1 << 20))
            }
        }
        let registered = try await api.call(
            .post, "/api/v1/admin/lti-platforms", as: admin,
            json: [
                "name": "Hill Moodle", "issuer": issuer, "clientId": Self.clientID, "deploymentIds": [Self.deployment],
                "authorizationUrl": "\(issuer)/auth", "tokenUrl": "\(issuer)/token", "jwksUrl": "\(issuer)/jwks",
            ])
        #expect(registered.status == .created, "\(registered.text)")
    }

    /// Starts a platform on loopback and a Rollcall server (listening, so that the platform can read its keys)
    /// with the platform registered by an admin; runs `body` with both and the admin.
    static func run(
        configure: @escaping @Sendable (inout Configuration) -> Void = { _ in },
        _ body: @escaping @Sendable (API, TestPlatform, Account) async throws -> Void
    ) async throws {
        try await serving { platform in
            try await withServer(
                setup: .live,
                configure: { configuration in
                    Self.configure(&configuration)
                    configure(&configuration)
                }
            ) { api in
                let admin = try await api.admin()
                try await platform.register(at: api, by: admin)
                try await body(api, platform, admin)
            }
        }
    }
}

/// A payload whose claims the caller reads itself.
private struct AnyPayload: JWTPayload {
    func verify(using algorithm: some JWTAlgorithm) throws {}
    init(from decoder: any Decoder) throws {}
    func encode(to encoder: any Encoder) throws {}
}

/// One launch, as a browser makes it: the login initiation, then the launch the platform posts.
struct PlatformLaunch {
    var state: String
    var nonce: String
    /// The cookie that ties the launch to this browser, as a `Cookie` header value.
    var browser: String

    /// Begins a launch at `/lti/login` and reads where Rollcall sends the browser.
    static func begin(_ api: API, _ platform: TestPlatform, hint: String = "hint-1") async throws -> PlatformLaunch {
        let start = try await api.call(
            .get,
            "/lti/login?iss=\(platform.issuer)&login_hint=\(hint)&target_link_uri=http://rollcall.test/lti/launch"
                + "&client_id=\(TestPlatform.clientID)&lti_deployment_id=\(TestPlatform.deployment)")
        #expect(start.status == .found, "\(start.text)")
        let location = try #require(start.headers[.location].flatMap(URLComponents.init(string:)))
        func item(_ name: String) -> String? { location.queryItems?.first { $0.name == name }?.value }
        #expect(location.string?.hasPrefix("\(platform.issuer)/auth?") == true)
        #expect(item("scope") == "openid" && item("response_type") == "id_token" && item("prompt") == "none")
        #expect(item("response_mode") == "form_post" && item("client_id") == TestPlatform.clientID)
        #expect(item("redirect_uri") == "http://rollcall.test/lti/launch" && item("login_hint") == hint)
        let cookie = try #require(start.headers[values: .setCookie].first { $0.hasPrefix("rollcall_lti=") })
        #expect(cookie.contains("SameSite=None") && cookie.contains("Secure"), "\(cookie)")
        return PlatformLaunch(
            state: try #require(item("state")), nonce: try #require(item("nonce")),
            browser: String(cookie.prefix { $0 != ";" }))
    }

    /// Posts the launch as the platform's form does; `browser: nil` is a browser that kept no cookie.
    func post(_ api: API, idToken: String, browser: String?? = .none, json: Bool = false) async throws -> Reply {
        var headers: HTTPFields = [.accept: json ? "application/json" : "text/html"]
        if let cookie = browser ?? self.browser { headers[.cookie] = cookie }
        let form = "id_token=\(OpenIDProvider.formEncoded(idToken))&state=\(OpenIDProvider.formEncoded(state))"
        return try await api.call(
            .post, "/lti/launch", raw: Array(form.utf8), contentType: "application/x-www-form-urlencoded",
            headers: headers)
    }

    /// A whole good launch; answers the launch's answer.
    static func through(
        _ api: API, _ platform: TestPlatform, subject: String, role: String,
        _ change: (inout [String: Any]) -> Void = { _ in }
    ) async throws -> Reply {
        let launch = try await begin(api, platform)
        return try await launch.post(
            api, idToken: try platform.launchToken(nonce: launch.nonce, subject: subject, role: role, change))
    }
}
