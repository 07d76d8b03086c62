import Crypto
import Foundation
import RollcallProtocol

/// The claims of an OpenID Connect ID token that Rollcall reads, once its signature has been verified.
public struct IDTokenClaims: Sendable, Equatable {
    public var issuer: String
    public var subject: String
    public var audience: [String]
    public var authorizedParty: String?
    public var expiresAt: Date
    public var issuedAt: Date
    public var nonce: String?
    public var email: String?
    public var emailVerified: Bool?
    public var name: String?
    /// Every other claim as text or a list of texts, for the configured student-number and role claims.
    public var others: [String: [String]]

    public init(
        issuer: String, subject: String, audience: [String], authorizedParty: String? = nil, expiresAt: Date,
        issuedAt: Date, nonce: String?, email: String? = nil, emailVerified: Bool? = nil, name: String? = nil,
        others: [String: [String]] = [:]
    ) {
        self.issuer = issuer
        self.subject = subject
        self.audience = audience
        self.authorizedParty = authorizedParty
        self.expiresAt = expiresAt
        self.issuedAt = issuedAt
        self.nonce = nonce
        self.email = email
        self.emailVerified = emailVerified
        self.name = name
        self.others = others
    }
}

/// Why an ID token (or the answer that carried it) is refused; each says which rule it broke.
public enum SingleSignOnRefusal: Error, Sendable, Equatable {
    /// `none`, an HMAC algorithm (a public key used as a shared secret), or one the provider does not announce.
    case algorithmNotAllowed(String)
    case wrongIssuer
    case wrongAudience
    /// Several audiences, and `azp` is not this client (or is missing).
    case wrongAuthorizedParty
    case expired
    case issuedInFuture
    /// The nonce is missing or is not the one this browser's sign-in sent.
    case wrongNonce
    case missingSubject
    /// The UserInfo endpoint answered about another subject than the ID token's.
    case wrongSubject
    /// Signed with an HMAC whose key, the client secret, is shorter than the algorithm asks.
    case secretTooShort(algorithm: String, bytes: Int)
    /// Not a signed token of three parts, each JSON.
    case unreadable

    public var code: ErrorCode { .ssoTokenRefused }

    /// What went wrong, for the page and the log; the person is told to start again.
    public var reason: String {
        switch self {
        case .algorithmNotAllowed(let algorithm): "it was signed with “\(algorithm)”, which is not allowed"
        case .wrongIssuer: "it was issued by another provider"
        case .wrongAudience: "it was issued for another application"
        case .wrongAuthorizedParty: "it was issued to another application"
        case .expired: "it has expired"
        case .issuedInFuture: "it says it was issued in the future"
        case .wrongNonce: "it answers another sign-in"
        case .missingSubject: "it names nobody"
        case .wrongSubject: "the provider described someone else"
        case .secretTooShort(let algorithm, let bytes):
            "it was signed with \(algorithm), which needs a client secret of at least \(bytes) characters"
        case .unreadable: "it is not a token at all"
        }
    }
}

/// The relying party's rules of OpenID Connect (Core 1.0 §3.1.3.7, RFC 7636), as plain functions over values.
public enum SingleSignOn {
    /// How far apart Rollcall's clock and the provider's may be.
    public static let clockSkew: TimeInterval = 120

    /// Algorithms an ID token may use: those the provider announces (RS256 where it announces none), never `none`.
    /// An HMAC (`HS256`, `HS384`, `HS512`) only keyed with the client secret, `secretBytes` long, as OpenID Connect
    /// Core §10.1 allows a confidential client, and never a published public key, which anyone can read; the secret
    /// must be at least as long as the hash's output (RFC 7518 §3.2), 64 bytes for HS512.
    public static func checkAlgorithm(
        _ algorithm: String, announced: [String], secretBytes: Int?
    ) throws(SingleSignOnRefusal) {
        let allowed = announced.isEmpty ? ["RS256"] : announced
        guard algorithm != "none", allowed.contains(algorithm) else { throw .algorithmNotAllowed(algorithm) }
        if algorithm.uppercased().hasPrefix("HS") {
            guard let secretBytes, let needed = hmacAlgorithms[algorithm] else {
                throw .algorithmNotAllowed(algorithm)
            }
            guard secretBytes >= needed else { throw .secretTooShort(algorithm: algorithm, bytes: needed) }
        }
    }

    /// The HMAC algorithms a client secret may key, with the least length of that secret in bytes.
    public static let hmacAlgorithms: [String: Int] = ["HS256": 32, "HS384": 48, "HS512": 64]

    /// Checks a verified token's claims against this sign-in: the issuer, this client as audience (and as `azp`
    /// when there are several audiences), the time it is valid, and the nonce this browser sent.
    public static func check(
        _ claims: IDTokenClaims, issuer: String, clientID: String, nonce: String, now: Date
    ) throws(SingleSignOnRefusal) {
        guard claims.issuer == issuer else { throw .wrongIssuer }
        guard claims.audience.contains(clientID) else { throw .wrongAudience }
        if claims.audience.count > 1 || claims.authorizedParty != nil {
            guard claims.authorizedParty == clientID else { throw .wrongAuthorizedParty }
        }
        guard claims.expiresAt.addingTimeInterval(clockSkew) > now else { throw .expired }
        guard claims.issuedAt <= now.addingTimeInterval(clockSkew) else { throw .issuedInFuture }
        guard let sent = claims.nonce, constantTimeEqual(Array(sent.utf8), Array(nonce.utf8)) else {
            throw .wrongNonce
        }
        guard !claims.subject.isEmpty else { throw .missingSubject }
    }

    /// PKCE's S256 challenge for a verifier (RFC 7636 §4.2).
    public static func codeChallenge(verifier: String) -> String {
        Base64URL.encode(Array(SHA256.hash(data: Array(verifier.utf8))))
    }

    /// What the school's role claim says: a teacher when any of its values is one of `teacherValues` (compared
    /// without case), a student otherwise, and nothing at all when the claim is not there, so that a sign-in
    /// whose claim went missing leaves the role as it is.
    public static func role(claimValues: [String]?, teacherValues: Set<String>) -> RoleClaim {
        guard let claimValues else { return .absent }
        let teacher = Set(teacherValues.map { $0.lowercased() })
        return .directory(claimValues.contains { teacher.contains($0.lowercased()) } ? .teacher : .student)
    }

    /// The address a token gives, when it gives one Rollcall accepts, and whether the provider vouches for it: by
    /// `email_verified`, or, for a provider that sends none (Microsoft Entra ID), by the address being in one of
    /// the domains the school says its provider owns.
    public static func email(
        _ claims: IDTokenClaims, trustedDomains: Set<String> = []
    ) -> (address: String, verified: Bool)? {
        guard let text = claims.email, let address = try? AccountRules.email(text) else { return nil }
        if let verified = claims.emailVerified { return (address, verified) }
        let domain = address.split(separator: "@").last.map(String.init) ?? ""
        return (address, trustedDomains.contains(domain))
    }

    /// The ID token's claims with those of the UserInfo endpoint (OpenID Connect Core §5.3) added where the token
    /// lacks them. The answer must be about the token's subject (§5.3.2); `nil` otherwise.
    public static func merged(_ claims: IDTokenClaims, userInfo: [String: [String]]) -> IDTokenClaims? {
        guard userInfo["sub"]?.first == claims.subject else { return nil }
        var merged = claims
        merged.email = claims.email ?? userInfo["email"]?.first
        if claims.emailVerified == nil, let verified = userInfo["email_verified"]?.first {
            merged.emailVerified = verified == "true" || verified == "1"
        }
        merged.name = claims.name ?? userInfo["name"]?.first
        for (name, values) in userInfo where merged.others[name] == nil {
            merged.others[name] = values
        }
        return merged
    }
}
