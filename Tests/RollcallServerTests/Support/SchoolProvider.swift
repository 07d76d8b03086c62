import Crypto
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOConcurrencyHelpers
import RollcallCore
import RollcallParts
import RollcallProtocol
import ServerTestSupport
import Testing

@testable import RollcallAccounts
@testable import RollcallServer

/// A school's OpenID Connect provider for the server tests, on loopback: discovery, a key set, and a token endpoint
/// that checks the client's secret, the code and its PKCE verifier, and answers with the ID token the test made.
/// Each test signs its own tokens, good and bad, with keys it holds.
final class SchoolProvider: Sendable {
    static let clientID = "rollcall-test"
    static let clientSecret = "a secret the school shares with Rollcall"

    /// A signing key the provider holds, by its `kid`.
    struct Key: Sendable {
        var kid: String
        var key: P256.Signing.PrivateKey

        /// Its public half as a JWK.
        var jwk: [String: String] {
            let point = key.publicKey.x963Representation.dropFirst()
            return [
                "kty": "EC", "crv": "P-256", "use": "sig", "alg": "ES256", "kid": kid,
                "x": Base64URL.encode(Data(point.prefix(32))), "y": Base64URL.encode(Data(point.suffix(32))),
            ]
        }

    }

    /// A code handed out, with what the token endpoint checks and answers.
    struct Grant: Sendable {
        var challenge: String
        var redirectURI: String
        var idToken: String
    }

    struct State: Sendable {
        var published: [Key]
        var grants: [String: Grant] = [:]
        var keyFetches = 0
        var discoveryFetches = 0
        var tokenRequests = 0
        /// What the UserInfo endpoint answers (JSON) for an access token it handed out; no endpoint while `nil`.
        var userInfo: Data?
        /// The algorithms discovery announces.
        var algorithms = ["RS256", "ES256"]
        /// The issuer discovery names; the provider's own address while `nil`.
        var announcedIssuer: String?
        /// The discovery document's `Cache-Control`.
        var discoveryCaching = "public, max-age=3600"
    }

    private let state: NIOLockedValueBox<State>
    private let address = NIOLockedValueBox("")

    init(keys: [Key]) {
        state = NIOLockedValueBox(State(published: keys))
    }

    /// The issuer, once the provider listens: `http://127.0.0.1:PORT`.
    var issuer: String { address.withLockedValue { $0 } }

    var keyFetches: Int { state.withLockedValue { $0.keyFetches } }
    var discoveryFetches: Int { state.withLockedValue { $0.discoveryFetches } }
    var published: [Key] { state.withLockedValue { $0.published } }

    /// Answers UserInfo requests with these claims from now on.
    func answerUserInfo(_ claims: [String: Any]) {
        let data = try? JSONSerialization.data(withJSONObject: claims)
        state.withLockedValue { $0.userInfo = data }
    }

    /// Changes what the provider says from now on.
    func set(_ change: @Sendable (inout State) -> Void) { state.withLockedValue(change) }

    /// Publishes these keys from now on (a rotation).
    func publish(_ keys: [Key]) { state.withLockedValue { $0.published = keys } }

    /// Hands out a code for `challenge` that the token endpoint trades for `idToken`.
    func grant(challenge: String, redirectURI: String, idToken: String) -> String {
        let code = UUID().uuidString
        state.withLockedValue {
            $0.grants[code] = Grant(challenge: challenge, redirectURI: redirectURI, idToken: idToken)
        }
        return code
    }

    /// A JWT with these header and claims, signed with `key` (ES256) or, for `hmacSecret`, HS256.
    static func token(
        header: [String: Any], claims: [String: Any], key: Key?, hmacSecret: [UInt8]? = nil
    ) throws -> String {
        let head = Base64URL.encode(try JSONSerialization.data(withJSONObject: header, options: .sortedKeys))
        let body = Base64URL.encode(try JSONSerialization.data(withJSONObject: claims, options: .sortedKeys))
        let input = Data("\(head).\(body)".utf8)
        let signature: Data
        if let hmacSecret {
            signature = Data(HMAC<SHA256>.authenticationCode(for: input, using: SymmetricKey(data: hmacSecret)))
        } else if let key {
            signature = try key.key.signature(for: input).rawRepresentation
        } else {
            signature = Data()
        }
        return "\(head).\(body).\(Base64URL.encode(signature))"
    }

    /// The provider's routes.
    func router() -> Router<BasicRequestContext> {
        let router = Router()
        router.get(".well-known/openid-configuration") { [self] _, _ -> Response in
            let issuer = self.issuer
            let (announced, algorithms, caching, userInfo) = state.withLockedValue {
                $0.discoveryFetches += 1
                return ($0.announcedIssuer ?? issuer, $0.algorithms, $0.discoveryCaching, $0.userInfo != nil)
            }
            var document: [String: Any] = [
                "issuer": announced, "authorization_endpoint": "\(issuer)/authorize",
                "token_endpoint": "\(issuer)/token", "jwks_uri": "\(issuer)/jwks",
                "end_session_endpoint": "\(issuer)/logout", "id_token_signing_alg_values_supported": algorithms,
                "token_endpoint_auth_methods_supported": ["client_secret_basic"],
            ]
            if userInfo { document["userinfo_endpoint"] = "\(issuer)/userinfo" }
            var response = Self.json(document)
            response.headers[.cacheControl] = caching
            return response
        }
        router.get("userinfo") { [state] request, _ -> Response in
            guard let info = state.withLockedValue({ $0.userInfo }),
                request.headers[.authorization]?.hasPrefix("Bearer at-") == true
            else { return Self.json(["error": "invalid_token"], status: .unauthorized) }
            return Response(
                status: .ok, headers: [.contentType: "application/json"],
                body: .init(byteBuffer: ByteBuffer(data: info)))
        }
        router.get("jwks") { [state] _, _ -> Response in
            let keys = state.withLockedValue {
                $0.keyFetches += 1
                return $0.published.map(\.jwk)
            }
            var response = Self.json(["keys": keys])
            response.headers[.cacheControl] = "public, max-age=3600"
            return response
        }
        router.post("token") { [state] request, _ -> Response in
            let form = String(buffer: try await request.body.collect(upTo: 1 << 16))
            var fields: [String: String] = [:]
            for pair in form.split(separator: "&") {
                let parts = pair.split(separator: "=", maxSplits: 1).map {
                    String($0).replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? ""
                }
                if parts.count == 2 { fields[parts[0]] = parts[1] }
            }
            let expected =
                "Basic " + Data("\(Self.clientID):\(Self.formEncoded(Self.clientSecret))".utf8).base64EncodedString()
            guard request.headers[.authorization] == expected else {
                return Self.json(["error": "invalid_client"], status: .unauthorized)
            }
            let code = fields["code"] ?? ""
            let grant = state.withLockedValue { state in
                state.tokenRequests += 1
                return state.grants.removeValue(forKey: code)
            }
            guard let grant, fields["grant_type"] == "authorization_code",
                fields["redirect_uri"] == grant.redirectURI,
                SingleSignOn.codeChallenge(verifier: fields["code_verifier"] ?? "") == grant.challenge
            else { return Self.json(["error": "invalid_grant"], status: .badRequest) }
            return Self.json(["access_token": "at-\(code)", "token_type": "Bearer", "id_token": grant.idToken])
        }
        return router
    }

    static func formEncoded(_ text: String) -> String { OpenIDProvider.formEncoded(text) }

    static func json(_ object: Any, status: HTTPResponse.Status = .ok) -> Response {
        let data = (try? JSONSerialization.data(withJSONObject: object)) ?? Data()
        return Response(
            status: status, headers: [.contentType: "application/json"],
            body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }

    /// Starts a provider on loopback and a Rollcall server that trusts it, and runs `body` with both.
    static func run(
        roleClaim: String? = "affiliation", configure: @escaping @Sendable (inout Configuration) -> Void = { _ in },
        _ body: @escaping @Sendable (API, SchoolProvider) async throws -> Void
    ) async throws {
        let provider = SchoolProvider(keys: [Key(kid: "key-1", key: P256.Signing.PrivateKey())])
        let app = Application(router: provider.router(), configuration: .init(address: .hostname("127.0.0.1", port: 0)))
        try await app.test(.live) { client in
            let issuer = "http://127.0.0.1:\(try #require(client.port))"
            provider.address.withLockedValue { $0 = issuer }
            try await withServer(configure: { configuration in
                configuration.singleSignOn = SingleSignOnSettings(
                    issuer: issuer, clientID: clientID, clientSecret: clientSecret, name: "Sign in with Hill School",
                    studentNumberClaim: "student_number", roleClaim: roleClaim, teacherValues: ["faculty", "staff"])
                configure(&configuration)
            }) { api in
                try await body(api, provider)
            }
        }
    }
}

/// One pass through the school's sign-in, as a browser makes it.
struct SchoolSignIn {
    /// The answer of `/auth/oidc/start`.
    var start: Reply
    var state: String
    var nonce: String
    var challenge: String
    var redirectURI: String
    /// The cookie that binds the sign-in to this browser, as a `Cookie` header value.
    var browser: String

    /// Starts a sign-in, signed in already with `session` (a `Cookie` header value) when given.
    static func begin(_ api: API, next: String = "/courses", session: String? = nil) async throws -> SchoolSignIn {
        var headers: HTTPFields = [:]
        if let session { headers[.cookie] = session }
        let start = try await api.call(.get, "/auth/oidc/start?next=\(next)", headers: headers)
        #expect(start.status == .found, "\(start.text)")
        let location = try #require(start.headers[.location].flatMap(URLComponents.init(string:)))
        func item(_ name: String) -> String { location.queryItems?.first { $0.name == name }?.value ?? "" }
        #expect(item("code_challenge_method") == "S256" && item("response_type") == "code")
        let cookie = try #require(
            start.headers[values: .setCookie].first { $0.hasPrefix("\(SingleSignOnController.browserCookie)=") })
        return SchoolSignIn(
            start: start, state: item("state"), nonce: item("nonce"), challenge: item("code_challenge"),
            redirectURI: item("redirect_uri"), browser: String(cookie.prefix { $0 != ";" }))
    }

    /// The claims of a good token for this sign-in; `change` makes it bad.
    func claims(
        _ provider: SchoolProvider, subject: String = "s-1001", email: String = "ada@hill.test",
        _ change: (inout [String: Any]) -> Void = { _ in }
    ) -> [String: Any] {
        let now = Date().timeIntervalSince1970
        var claims: [String: Any] = [
            "iss": provider.issuer, "sub": subject, "aud": SchoolProvider.clientID, "exp": Int(now + 300),
            "iat": Int(now - 5), "nonce": nonce, "email": email, "email_verified": true, "name": "Ada Hill",
            "affiliation": ["student", "member"],
        ]
        change(&claims)
        return claims
    }

    /// Comes back from the provider with a code for `idToken`, as the browser does.
    func finish(_ api: API, _ provider: SchoolProvider, idToken: String, browser: String? = nil) async throws -> Reply {
        let code = provider.grant(challenge: challenge, redirectURI: redirectURI, idToken: idToken)
        return try await api.call(
            .get, "/auth/oidc/callback?state=\(state)&code=\(code)",
            headers: [.cookie: browser ?? self.browser, .accept: "text/html"])
    }

    /// A whole good sign-in with these claims; answers the callback's answer.
    static func through(
        _ api: API, _ provider: SchoolProvider, subject: String = "s-1001", email: String = "ada@hill.test",
        _ change: (inout [String: Any]) -> Void = { _ in }
    ) async throws -> Reply {
        let signIn = try await begin(api)
        let key = provider.published[0]
        let token = try SchoolProvider.token(
            header: ["alg": "ES256", "kid": key.kid, "typ": "JWT"],
            claims: signIn.claims(provider, subject: subject, email: email, change), key: key)
        return try await signIn.finish(api, provider, idToken: token)
    }
}

extension Reply {
    /// The session cookie this answer sets, as a `Cookie` header value.
    var sessionCookie: String? {
        headers[values: .setCookie].first { $0.hasPrefix("rollcall_session=") && !$0.hasPrefix("rollcall_session=;") }
            .map { String($0.prefix { $0 != ";" }) }
    }
}
