import AsyncHTTPClient
import Foundation
import JWTKit
import NIOCore
import NIOHTTP1
import RollcallCore
import RollcallWeb

/// Why the school's sign-in did not end with a person: the provider is out of reach, it refused, or its answer
/// broke a rule.
package enum SingleSignOnFailure: Error, Sendable {
    /// The provider did not answer, or not as a provider does, within the time allowed.
    case providerUnavailable(String)
    /// The provider answered the code exchange with an error.
    case providerRefused(String)
    /// The ID token broke a rule of OpenID Connect.
    case tokenRefused(SingleSignOnRefusal)
    /// The token names a signing key the provider does not publish, even after fetching its keys again.
    case unknownKey
    /// The signature does not verify with the provider's key.
    case badSignature
    /// The provider's discovery document names another issuer than the one configured.
    case issuerMismatch(configured: String, announced: String)
}

/// The school's OpenID Connect provider as Rollcall uses it: its discovery document, its signing keys (chosen by
/// `kid`, fetched again once when a token names a key not seen yet, kept as long as the provider's cache headers
/// say), and its token endpoint. Every request has a time limit.
package actor OpenIDProvider {
    /// The parts of the discovery document (OpenID Connect Discovery 1.0 §3) Rollcall uses.
    package struct Discovery: Decodable, Sendable {
        package var issuer: String
        package var authorizationEndpoint: String
        package var tokenEndpoint: String
        package var jwksUri: String
        package var userinfoEndpoint: String?
        package var endSessionEndpoint: String?
        package var idTokenSigningAlgValuesSupported: [String]?
        package var tokenEndpointAuthMethodsSupported: [String]?
    }

    package let settings: SingleSignOnSettings
    private let http: HTTPClient
    private var discovered: (document: Discovery, until: Date)?
    private var discovering: Task<(Discovery, TimeInterval), any Error>?
    private let keys: PublishedKeys

    /// How long a document or key set is kept when the provider sends no `max-age`.
    package static let defaultLifetime: TimeInterval = 3600

    package init(settings: SingleSignOnSettings, http: HTTPClient = .shared) {
        self.settings = settings
        self.http = http
        keys = PublishedKeys(http: http, timeout: settings.timeout, refetchInterval: settings.keyRefetchInterval)
    }

    /// The discovery document, fetched at first use (once for everyone who asks at that moment) and again once it
    /// has aged out; its issuer must be the one configured.
    package func discovery(now: Date = Date()) async throws -> Discovery {
        if let discovered, discovered.until > now { return discovered.document }
        let task: Task<(Discovery, TimeInterval), any Error>
        if let running = discovering {
            task = running
        } else {
            let (settings, http) = (settings, http)
            task = Task { try await Self.fetchDiscovery(settings: settings, http: http) }
            discovering = task
        }
        defer { discovering = nil }
        let (document, lifetime) = try await task.value
        discovered = (document, now.addingTimeInterval(lifetime))
        return document
    }

    private static func fetchDiscovery(
        settings: SingleSignOnSettings, http: HTTPClient
    ) async throws -> (Discovery, TimeInterval) {
        let url = String(settings.issuer.trimmingSuffix("/")) + "/.well-known/openid-configuration"
        let (body, lifetime) = try await PublishedKeys.fetch(url, http: http, timeout: settings.timeout)
        let document: Discovery
        do {
            document = try Self.decoder.decode(Discovery.self, from: body)
        } catch {
            throw SingleSignOnFailure.providerUnavailable("its discovery document is not one")
        }
        guard document.issuer == settings.issuer else {
            throw SingleSignOnFailure.issuerMismatch(configured: settings.issuer, announced: document.issuer)
        }
        return (document, lifetime)
    }

    /// What the token endpoint answers a code with.
    package struct Tokens: Sendable {
        package var idToken: String
        /// For the UserInfo endpoint; a provider may send none.
        package var accessToken: String?
    }

    /// Trades an authorization code (with its PKCE verifier) for the ID token and the access token.
    package func tokens(code: String, verifier: String, redirectURI: String) async throws -> Tokens {
        let document = try await discovery()
        var form = [
            ("grant_type", "authorization_code"), ("code", code), ("redirect_uri", redirectURI),
            ("code_verifier", verifier),
        ]
        var request = HTTPClientRequest(url: document.tokenEndpoint)
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/x-www-form-urlencoded")
        request.headers.add(name: "Accept", value: "application/json")
        let methods = document.tokenEndpointAuthMethodsSupported ?? ["client_secret_basic"]
        if methods.contains("client_secret_basic") || !methods.contains("client_secret_post") {
            let credentials = Self.formEncoded(settings.clientID) + ":" + Self.formEncoded(settings.clientSecret)
            request.headers.add(name: "Authorization", value: "Basic " + Data(credentials.utf8).base64EncodedString())
        } else {
            form += [("client_id", settings.clientID), ("client_secret", settings.clientSecret)]
        }
        request.body = .bytes(ByteBuffer(string: form.map { "\($0)=\(Self.formEncoded($1))" }.joined(separator: "&")))
        let response: HTTPClientResponse
        let body: ByteBuffer
        do {
            response = try await http.execute(request, timeout: .init(settings.timeout))
            body = try await response.body.collect(upTo: 1 << 20)
        } catch {
            throw SingleSignOnFailure.providerUnavailable("its token endpoint did not answer")
        }
        let answer = (try? JSONSerialization.jsonObject(with: Data(buffer: body))) as? [String: Any]
        guard response.status == .ok else {
            let error = answer?["error"] as? String ?? "HTTP \(response.status.code)"
            throw SingleSignOnFailure.providerRefused(error)
        }
        guard let token = answer?["id_token"] as? String else {
            throw SingleSignOnFailure.providerRefused("no ID token in its answer")
        }
        return Tokens(idToken: token, accessToken: answer?["access_token"] as? String)
    }

    /// The claims of the UserInfo endpoint (OpenID Connect Core §5.3), asked with the access token; `nil` where the
    /// provider has no such endpoint or gave no access token.
    package func userInfo(accessToken: String?) async throws -> [String: [String]]? {
        guard let accessToken, let endpoint = try await discovery().userinfoEndpoint else { return nil }
        var request = HTTPClientRequest(url: endpoint)
        request.headers.add(name: "Authorization", value: "Bearer " + accessToken)
        request.headers.add(name: "Accept", value: "application/json")
        let body: ByteBuffer
        let response: HTTPClientResponse
        do {
            response = try await http.execute(request, timeout: .init(settings.timeout))
            body = try await response.body.collect(upTo: 1 << 20)
        } catch {
            throw SingleSignOnFailure.providerUnavailable("its UserInfo endpoint did not answer")
        }
        guard response.status == .ok else {
            throw SingleSignOnFailure.providerRefused("its UserInfo endpoint answered HTTP \(response.status.code)")
        }
        // A signed UserInfo answer (application/jwt) is not asked for: Rollcall registers for JSON.
        guard let object = try? JSONSerialization.jsonObject(with: Data(buffer: body)) as? [String: Any] else {
            throw SingleSignOnFailure.providerRefused("its UserInfo answer is not JSON")
        }
        return Self.texts(object)
    }

    /// Verifies an ID token's signature (with the provider's key named by its `kid`, or the client secret for an
    /// HMAC) and checks its claims for this sign-in; answers the claims.
    package func verify(_ token: String, nonce: String, now: Date = Date()) async throws -> IDTokenClaims {
        let document = try await discovery(now: now)
        let payload = try await keys.verify(
            token, keySet: document.jwksUri, announced: document.idTokenSigningAlgValuesSupported ?? [],
            secret: settings.clientSecret, now: now)
        guard let object = try? JSONSerialization.jsonObject(with: payload) as? [String: Any] else {
            throw SingleSignOnFailure.tokenRefused(.unreadable)
        }
        let claims = Self.claims(object)
        do throws(SingleSignOnRefusal) {
            try SingleSignOn.check(claims, issuer: settings.issuer, clientID: settings.clientID, nonce: nonce, now: now)
        } catch {
            throw SingleSignOnFailure.tokenRefused(error)
        }
        return claims
    }

    /// How long a response may be kept by its `Cache-Control`: `max-age`, nothing for `no-store` or `no-cache`.
    package static func lifetime(cacheControl: String?) -> TimeInterval {
        guard let cacheControl = cacheControl?.lowercased() else { return defaultLifetime }
        if cacheControl.contains("no-store") || cacheControl.contains("no-cache") { return 0 }
        for directive in cacheControl.split(separator: ",") {
            let parts = directive.trimmingCharacters(in: .whitespaces).split(separator: "=")
            if parts.count == 2, parts[0] == "max-age", let seconds = TimeInterval(parts[1]) { return max(0, seconds) }
        }
        return defaultLifetime
    }

    /// The claims Rollcall reads, from a payload already decoded as JSON.
    package static func claims(_ payload: [String: Any]) -> IDTokenClaims {
        func date(_ value: Any?) -> Date {
            (value as? NSNumber).map { Date(timeIntervalSince1970: $0.doubleValue) } ?? .distantPast
        }
        let verified: Bool? =
            switch payload["email_verified"] {
            case let flag as Bool: flag
            case let text as String: text == "true"
            default: nil
            }
        let others = texts(payload)
        return IDTokenClaims(
            issuer: payload["iss"] as? String ?? "", subject: payload["sub"] as? String ?? "",
            audience: others["aud"] ?? [], authorizedParty: payload["azp"] as? String,
            expiresAt: date(payload["exp"]), issuedAt: date(payload["iat"]), nonce: payload["nonce"] as? String,
            email: payload["email"] as? String, emailVerified: verified, name: payload["name"] as? String,
            others: others)
    }

    /// Every claim as text or a list of texts.
    package static func texts(_ payload: [String: Any]) -> [String: [String]] {
        func texts(_ value: Any?) -> [String] {
            switch value {
            case let text as String: [text]
            case let list as [Any]: list.compactMap { $0 as? String }
            // JSON's true reads as 1 here, which `SingleSignOn.merged` takes as true.
            case let number as NSNumber: [number.stringValue]
            default: []
            }
        }
        var others: [String: [String]] = [:]
        for (name, value) in payload { others[name] = texts(value) }
        return others
    }

    package static let decoder: JSONDecoder = {
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        return decoder
    }()

    /// `application/x-www-form-urlencoded`, as RFC 6749 §2.3.1 asks for the client's credentials too.
    package static func formEncoded(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: formSafe) ?? text
    }

    package static let formSafe = CharacterSet(
        charactersIn: "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._*")
}
