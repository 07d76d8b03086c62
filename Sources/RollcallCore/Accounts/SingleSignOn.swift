import Crypto
import Foundation

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
        case .unreadable: "it is not a token at all"
        }
    }
}

/// The relying party's rules of OpenID Connect (Core 1.0 §3.1.3.7, RFC 7636), as plain functions over values.
public enum SingleSignOn {
    /// How far apart Rollcall's clock and the provider's may be.
    public static let clockSkew: TimeInterval = 120

    /// Algorithms an ID token may use: those the provider announces, but never `none` and never an HMAC, which with
    /// a provider's public key would let anyone who read the key sign.
    public static func checkAlgorithm(_ algorithm: String, announced: [String]) throws(SingleSignOnRefusal) {
        let allowed = announced.isEmpty ? ["RS256"] : announced
        guard algorithm != "none", !algorithm.uppercased().hasPrefix("HS"), allowed.contains(algorithm) else {
            throw .algorithmNotAllowed(algorithm)
        }
    }

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
        base64URL(Array(SHA256.hash(data: Array(verifier.utf8))))
    }

    /// The role the school's claim gives: a teacher when any of its values is one of `teacherValues` (compared
    /// without case), a student otherwise.
    public static func role(claimValues: [String], teacherValues: Set<String>) -> Role {
        let teacher = Set(teacherValues.map { $0.lowercased() })
        return claimValues.contains { teacher.contains($0.lowercased()) } ? .teacher : .student
    }

    /// The address a token gives, when it gives one Rollcall accepts, and whether the provider verified it.
    public static func email(_ claims: IDTokenClaims) -> (address: String, verified: Bool)? {
        guard let text = claims.email, let address = try? AccountRules.email(text) else { return nil }
        return (address, claims.emailVerified == true)
    }

    static func base64URL(_ bytes: [UInt8]) -> String {
        Data(bytes).base64EncodedString().replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
    }
}
