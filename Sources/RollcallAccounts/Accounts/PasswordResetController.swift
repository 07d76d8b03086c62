import Foundation
import Hummingbird
import RollcallCore
import RollcallDelivery
import RollcallModel
import RollcallParts
import RollcallStorage
import RollcallWeb
import RollcallWords

/// "Forgot password?": a link by email to set a new password, asked by the person or sent by an admin.
struct PasswordResetController: Sendable {
    let users: UserStore
    let tokens: AccessTokenStore
    let resets: PasswordResets
    let passwords: PasswordHasher
    let mail: any MessageSender
    let counters: AttemptCounters
    let site: SiteSettings

    /// Requests from one client address per hour: a class that forgot together fits, a scan of addresses does not.
    static let perAddress = RateLimit(limit: 30, window: 3600)
    /// Emails to one address per hour; more requests get the same answer and no more mail.
    static let perEmail = RateLimit(limit: 3, window: 3600)

    struct ResetRequest: Decodable {
        var email: String
    }
    struct ResetCompletion: Decodable {
        var token: String
        var newPassword: String
    }

    func addRoutes(to router: Router<AppRequestContext>) {
        router.post(AccountRoutes.passwordReset, use: request)
        router.post(AccountRoutes.passwordResetCompletion, use: complete)
        router.post(AccountRoutes.adminPasswordReset, use: sendByAdmin)
    }

    /// Answers 202 whether or not the address has an account, so that the answer tells nobody which addresses do.
    @Sendable func request(_ request: Request, context: AppRequestContext) async throws -> Response {
        let input = try await request.decodeJSON(as: ResetRequest.self, context: context)
        let email = try check { () throws(RuleViolation) in try AccountRules.email(input.email) }
        try await counters.admit(
            .passwordResetAddress, key: context.clientAddress ?? "-", under: Self.perAddress,
            refusal: "Too many requests for new passwords from this network. Try again in an hour.")
        // Where the school signs people in itself, only admins have passwords to forget; the answer is the same.
        if let user = try await users.find(email: email), user.deletedAt == nil, !user.disabled,
            site.passwordSignIn || user.role == .admin
        {
            do {
                try await counters.admit(
                    .passwordResetEmail, key: email, under: Self.perEmail, refusal: "too many links for \(email)")
                try await sendLink(to: user, by: nil, asking: context.reader)
            } catch is TooManyAttempts {
                // The same answer: the links already sent are in the person's inbox.
            }
        }
        return Response(status: .accepted)
    }

    /// `asking`: the reader of the request that asks for the link.
    func sendLink(to user: User, by admin: User?, asking: Reader) async throws {
        let token = try await resets.issue(userID: user.id, requestedBy: admin?.id)
        let link = "\(site.publicURL)/reset-password?token=\(token)"
        // Asked for by the person: in their language now; sent by an admin: in the one they chose or first acted
        // in, else the school's.
        var letters = Letters(school: site.schoolName, language: site.defaultLanguage)
            .written(for: user.letterLanguage)
        if admin == nil && user.language == nil { letters.reader = asking }
        let letter = letters.passwordReset(
            name: user.name, link: link, minutes: Int(PasswordResets.lifetime / 60), byAdmin: admin != nil)
        try await mail.send(letter.email(to: user.email, name: user.name))
    }

    /// Sets the new password from a link, and signs the person out everywhere.
    @Sendable func complete(_ request: Request, context: AppRequestContext) async throws -> Response {
        let input = try await request.decodeJSON(as: ResetCompletion.self, context: context)
        let password = try check { () throws(RuleViolation) in
            try AccountRules.password(input.newPassword, field: "newPassword")
        }
        guard let userID = try await resets.redeem(token: input.token), let user = try await users.find(id: userID),
            user.deletedAt == nil
        else {
            throw AppError(
                .badRequest, .invalidResetToken,
                "This link to set a new password is unknown, used or expired. Ask for a new one from the sign-in page.")
        }
        try await users.setPasswordHash(id: user.id, try await passwords.hash(password))
        try await tokens.revokeAll(userID: user.id, except: nil)
        // The link arrived at the address: it is confirmed.
        let ended = try await users.markEmailVerified(id: user.id)
        try await AccountsController.tellLinksEnded(ended, to: user, mail: mail, site: site)
        try await resets.audit(userID: user.id, .passwordReset, actor: user)
        return Response(status: .noContent)
    }

    @Sendable func sendByAdmin(_ request: Request, context: AppRequestContext) async throws -> Response {
        let admin = try AccessRule.admin(context)
        guard let user = try await users.find(id: try context.id("userID", .userNotFound, "user")),
            user.deletedAt == nil
        else {
            throw AppError.notFound(.userNotFound, "user")
        }
        try await sendLink(to: user, by: admin, asking: context.reader)
        try await resets.audit(userID: user.id, .passwordResetLinkSent, actor: admin)
        return Response(status: .accepted)
    }
}
