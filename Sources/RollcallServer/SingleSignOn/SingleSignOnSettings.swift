import Foundation
import RollcallCore

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
    /// How long Rollcall waits for the provider's discovery, keys and token answers.
    public var timeout: Duration = .seconds(10)

    public init(
        issuer: String, clientID: String, clientSecret: String, name: String = "Sign in with your school account",
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
    static func fromEnvironment(_ value: (String) -> String?) throws -> SingleSignOnSettings? {
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
            guard let text = try? String(contentsOfFile: file, encoding: .utf8) else {
                throw ConfigurationError(
                    variable: "ROLLCALL_OIDC_CLIENT_SECRET_FILE", problem: "names no readable file: \(file)")
            }
            secret = text.trimmingCharacters(in: .whitespacesAndNewlines)
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
        return SingleSignOnSettings(
            issuer: issuerText, clientID: clientID, clientSecret: secret,
            name: value("ROLLCALL_OIDC_NAME").map { MailHeader.singleLine($0) } ?? "Sign in with your school account",
            studentNumberClaim: value("ROLLCALL_OIDC_STUDENT_NUMBER_CLAIM"), roleClaim: roleClaim,
            teacherValues: Set(teachers))
    }
}
