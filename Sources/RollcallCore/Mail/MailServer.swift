import Foundation

/// Where Rollcall hands its email over, read from a URL such as `smtp+starttls://user:pass@mail.school.edu:587`.
public struct MailServer: Sendable, Equatable {
    /// How the connection is protected.
    public enum Security: String, Sendable {
        /// Plain SMTP, for a relay on the same machine or network (`smtp://`); no credentials are sent over it.
        case none
        /// Plain at first, then TLS after the STARTTLS command, which the server must offer (`smtp+starttls://`).
        case startTLS
        /// TLS from the first byte (`smtps://`).
        case implicitTLS
    }

    public var host: String
    public var port: Int
    public var security: Security
    public var username: String?
    public var password: String?

    public init(host: String, port: Int, security: Security, username: String? = nil, password: String? = nil) {
        self.host = host
        self.port = port
        self.security = security
        self.username = username
        self.password = password
    }

    /// Reads `smtp://`, `smtp+starttls://` or `smtps://` URLs, with optional `user:password@` (percent-encoded) and
    /// port (25, 587 and 465 by default).
    public init(url text: String) throws(RuleViolation) {
        let field = "ROLLCALL_SMTP_URL"
        guard let components = URLComponents(string: text), let scheme = components.scheme?.lowercased(),
            let host = components.host, !host.isEmpty
        else {
            throw RuleViolation(
                field: field, message: "must be a URL such as smtp+starttls://user:password@mail.school.edu:587")
        }
        switch scheme {
        case "smtp": (security, port) = (.none, components.port ?? 25)
        case "smtp+starttls": (security, port) = (.startTLS, components.port ?? 587)
        case "smtps": (security, port) = (.implicitTLS, components.port ?? 465)
        default:
            throw RuleViolation(
                field: field, message: "must start with smtp://, smtp+starttls:// or smtps://, not \(scheme)://")
        }
        guard (1...65535).contains(port) else {
            throw RuleViolation(field: field, message: "names port \(port), which is not a port number")
        }
        self.host = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
        username = components.user.flatMap { $0.isEmpty ? nil : $0 }
        password = components.password
        if username != nil, security == .none {
            throw RuleViolation(
                field: field,
                message: "would send the password unencrypted over smtp://; use smtp+starttls:// or smtps://")
        }
        if username != nil, password == nil {
            throw RuleViolation(field: field, message: "names a user without a password (user:password@host)")
        }
    }
}
