import Foundation
import RollcallCore
import RollcallWords

/// The school's OpenID Connect provider, from the `ROLLCALL_OIDC_*` settings: everything else Rollcall learns from
/// the provider's discovery document.
public struct SingleSignOnSettings: Sendable, Equatable {
    /// The provider's issuer, exactly as its ID tokens name it (`https://login.microsoftonline.com/…/v2.0`).
    public var issuer: String
    public var clientID: String
    public var clientSecret: String
    /// The sign-in button's label.
    public var name: String
    /// The claim that holds a student's number, if the school releases one.
    public var studentNumberClaim: String?
    /// The claim whose values say who teaches (`eduPersonAffiliation`, `groups`, `roles`).
    public var roleClaim: String?
    /// The values of `roleClaim` that make a teacher; everyone else is a student.
    public var teacherValues: Set<String>
    /// The scopes Rollcall asks for besides `openid email profile`, for claims a provider releases under scopes of
    /// its own (LemonLDAP::NG's eduPerson attributes, say).
    public var extraScopes: [String] = []
    /// Domains whose addresses the provider vouches for where it sends no `email_verified` (Microsoft Entra ID).
    public var trustedEmailDomains: Set<String> = []
    /// How long Rollcall waits for the provider's discovery, keys and token answers.
    public var timeout: Duration = .seconds(10)
    /// How soon a token naming a key not seen yet may fetch the provider's keys again.
    public var keyRefetchInterval: TimeInterval = 10

    /// The `scope` of the authorization request.
    package var scope: String {
        var scopes = ["openid", "email", "profile"]
        for extra in extraScopes where !scopes.contains(extra) { scopes.append(extra) }
        return scopes.joined(separator: " ")
    }

    /// The button's words where the school names none; pages say them in the reader's language.
    public static let defaultName = "Sign in with your school account"

    /// The sign-in button's words for a name as the settings keep it: the default said in the reader's language, a
    /// name the school gave as it gave it.
    package static func buttonWords(_ name: String, in reader: Reader) -> String {
        name == defaultName ? reader.say("Sign in with your school account") : name
    }

    public init(
        issuer: String, clientID: String, clientSecret: String, name: String = defaultName,
        studentNumberClaim: String? = nil, roleClaim: String? = nil, teacherValues: Set<String> = []
    ) {
        self.issuer = issuer
        self.clientID = clientID
        self.clientSecret = clientSecret
        self.name = name
        self.studentNumberClaim = studentNumberClaim
        self.roleClaim = roleClaim
        self.teacherValues = teacherValues
    }

    /// Reads the settings; `nil` when `ROLLCALL_OIDC_ISSUER` is not set. Throws naming the variable that is missing
    /// or wrong.
    package static func fromEnvironment(_ value: (String) -> String?) throws -> SingleSignOnSettings? {
        guard let issuerText = value("ROLLCALL_OIDC_ISSUER") else { return nil }
        guard let url = URL(string: issuerText), let scheme = url.scheme?.lowercased(),
            scheme == "https" || scheme == "http", url.host != nil
        else {
            throw ConfigurationError(
                variable: "ROLLCALL_OIDC_ISSUER",
                problem: "must be the provider's issuer URL, such as https://login.school.edu")
        }
        guard let clientID = value("ROLLCALL_OIDC_CLIENT_ID") else {
            throw ConfigurationError(
                variable: "ROLLCALL_OIDC_CLIENT_ID", problem: "must be set with ROLLCALL_OIDC_ISSUER")
        }
        var secret = value("ROLLCALL_OIDC_CLIENT_SECRET")
        if let file = value("ROLLCALL_OIDC_CLIENT_SECRET_FILE") {
            do {
                secret = try String(contentsOfFile: file, encoding: .utf8).trimmingCharacters(
                    in: .whitespacesAndNewlines)
            } catch {
                throw ConfigurationError(
                    variable: "ROLLCALL_OIDC_CLIENT_SECRET_FILE",
                    problem: "names a file that cannot be read: \(file) (\(error.localizedDescription))")
            }
        }
        guard let secret, !secret.isEmpty else {
            throw ConfigurationError(
                variable: "ROLLCALL_OIDC_CLIENT_SECRET",
                problem: "(or ROLLCALL_OIDC_CLIENT_SECRET_FILE) must be set with ROLLCALL_OIDC_ISSUER")
        }
        let teachers = (value("ROLLCALL_OIDC_TEACHER_VALUES") ?? "").split(separator: ",")
            .map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        let roleClaim = value("ROLLCALL_OIDC_ROLE_CLAIM")
        if roleClaim != nil, teachers.isEmpty {
            throw ConfigurationError(
                variable: "ROLLCALL_OIDC_TEACHER_VALUES",
                problem: "must name the values of ROLLCALL_OIDC_ROLE_CLAIM that make a teacher, such as faculty,staff")
        }
        var settings = SingleSignOnSettings(
            issuer: issuerText, clientID: clientID, clientSecret: secret,
            name: value("ROLLCALL_OIDC_NAME").map { MailHeader.singleLine($0) } ?? defaultName,
            studentNumberClaim: value("ROLLCALL_OIDC_STUDENT_NUMBER_CLAIM"), roleClaim: roleClaim,
            teacherValues: Set(teachers))
        settings.extraScopes = try scopes(value("ROLLCALL_OIDC_SCOPES"))
        settings.trustedEmailDomains = try domains(value("ROLLCALL_OIDC_TRUSTED_EMAIL_DOMAINS"))
        return settings
    }

    /// Scopes as RFC 6749 §3.3 writes them (printable ASCII but space, quote and backslash), by spaces or commas.
    package static func scopes(_ raw: String?) throws -> [String] {
        let scopes = (raw ?? "").split(whereSeparator: { $0 == " " || $0 == "," }).map(String.init)
        for scope in scopes
        where !scope.unicodeScalars.allSatisfy({ $0.value >= 0x21 && $0.value <= 0x7E && $0 != "\"" && $0 != "\\" }) {
            throw ConfigurationError(
                variable: "ROLLCALL_OIDC_SCOPES",
                problem: "must be scopes separated by spaces, such as “eduperson school”; “\(scope)” is not one")
        }
        return scopes
    }

    /// Domains by commas, such as `school.edu,students.school.edu`.
    package static func domains(_ raw: String?) throws -> Set<String> {
        let domains = (raw ?? "").split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
            .filter { !$0.isEmpty }
        for domain in domains where (try? AccountRules.email("x@" + domain)) == nil || domain.contains("@") {
            throw ConfigurationError(
                variable: "ROLLCALL_OIDC_TRUSTED_EMAIL_DOMAINS",
                problem: "must be domains separated by commas, such as school.edu; “\(domain)” is not one")
        }
        return Set(domains)
    }
}
