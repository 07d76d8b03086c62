import Foundation
import Hummingbird
import RollcallCore
import RollcallDelivery
import RollcallModel
import RollcallParts
import RollcallStorage
import RollcallWeb
import RollcallWords

/// Registration, email verification, sign-in and sign-out, and each person's own profile.
struct AccountsController: Sendable {
    let users: UserStore
    let tokens: AccessTokenStore
    let images: ImageStore
    /// Where a confirmed student's course invitations are accepted.
    let courses: CourseStore
    let signIns: SignIns
    let site: SiteSettings
    let passwords: PasswordHasher
    let mail: any MessageSender
    let counters: AttemptCounters
    let throttle = SignInThrottle()
    /// New accounts from one address per hour: a lecture hall's first morning fits, a script does not.
    static let registrations = RateLimit(limit: 300, window: 3600)

    struct Registration: Decodable {
        var name: String
        var email: String
        var password: String
        var role: Role?
        var studentNumber: String?
        /// Signs the new account in with the same request, so that its password is hashed once, not hashed and then
        /// checked again by a second request.
        var signIn: RegistrationSignIn?
    }
    /// How a registration that signs in answers: a browser's session or an API client's token.
    enum RegistrationSignIn: String, Decodable {
        case session, token
    }
    struct Credentials: Decodable {
        var email: String
        var password: String
    }
    struct VerificationToken: Decodable {
        var token: String
    }
    struct ProfileUpdate: Decodable {
        var name: String?
        var phone: String?
        var about: String?
        /// An IANA zone such as Europe/Paris, for the person's pages not tied to a course.
        var timeZone: String?
        /// A language Rollcall speaks (`fr`), or an empty string to follow the browser's.
        var language: String?
    }
    struct PasswordChange: Decodable {
        var currentPassword: String
        var newPassword: String
    }
    struct UserEnvelope: Codable, ResponseEncodable {
        var user: UserView
    }

    func addRoutes(to router: Router<AppRequestContext>) {
        router.post(AccountRoutes.register, use: register)
        router.post(AccountRoutes.verifyEmail, use: verifyEmail)
        router.post(AccountRoutes.resendVerification, use: resendVerification)
        router.post(AccountRoutes.webSession, use: signInWeb)
        router.delete(AccountRoutes.webSession, use: signOutWeb)
        router.post(AccountRoutes.tokens, use: signInAPI)
        router.delete(AccountRoutes.currentToken, use: signOutAPI)
        router.get(AccountRoutes.me, use: me)
        router.patch(AccountRoutes.me, use: updateProfile)
        router.put(AccountRoutes.password, use: changePassword)
        router.put(AccountRoutes.picture, use: uploadPicture)
        router.get(AccountRoutes.userPicture, use: picture)
    }

    /// The refusal of a password where the school signs people in itself.
    var passwordSignInOff: AppError {
        AppError(
            .forbidden, .passwordSignInOff,
            "This school signs people in through its own sign-in: choose “\(site.singleSignOn?.name ?? "your school account")” on the sign-in page."
        )
    }

    /// The refusal of every password but an admin's right one where the school signs people in itself. Admins keep
    /// their passwords (made with `create-admin`): someone must be able to sign in when the school's provider is
    /// down.
    var passwordsOff: AppError {
        AppError(
            .forbidden, .passwordSignInOff,
            "This school signs people in through its own sign-in: choose “\(site.singleSignOn?.name ?? "your school account")” on the sign-in page. Only an admin's password is taken here."
        )
    }

    @Sendable func register(_ request: Request, context: AppRequestContext) async throws -> Response {
        guard site.passwordSignIn else { throw passwordSignInOff }
        let input = try await request.decodeJSON(as: Registration.self, context: context)
        let role = input.role ?? .student
        guard Role.selfRegistrable.contains(role) else {
            throw AppError(.badRequest, .invalidRole, "Register as a student or a teacher.")
        }
        let name = try check { () throws(RuleViolation) in try AccountRules.name(input.name) }
        let email = try check { () throws(RuleViolation) in try AccountRules.email(input.email) }
        let password = try check { () throws(RuleViolation) in try AccountRules.password(input.password) }
        let number = try input.studentNumber.nonBlank.map { raw in
            try check { () throws(RuleViolation) in try AccountRules.studentNumber(raw) }
        }
        try await counters.admit(
            .registration, key: context.clientAddress ?? "-", under: Self.registrations,
            refusal: "Too many new accounts from this network for now. Try again later, or ask your school's admin.")
        let user = try await users.create(
            NewUser(
                name: name, email: email, passwordHash: try await passwords.hash(password), role: role,
                studentNumber: number, approved: role != .teacher || !site.teacherApproval,
                firstLanguage: context.reader.keptLanguage
            )
        )
        try await sendVerification(to: user, in: context.reader)
        var response: Response
        switch input.signIn {
        case nil:
            return try UserEnvelope(user: UserView(user)).response(from: request, context: context, status: .created)
        case .session: response = try await signIns.startWebSession(for: user, request: request, context: context)
        case .token: response = try await signIns.issueAPIToken(for: user, request: request, context: context)
        }
        response.status = .created
        return response
    }

    /// Writes to a person whose proof of their address just ended sign-in links made before it.
    static func tellLinksEnded(
        _ count: Int, to user: User, mail: any MessageSender, site: SiteSettings
    ) async throws {
        guard count > 0 else { return }
        let letters = Letters(school: site.schoolName, language: site.defaultLanguage)
        let letter = letters.written(for: user.letterLanguage).linksEnded(
            name: user.name, count: count, profile: site.publicURL + AccountRoutes.profilePage.description)
        try await mail.send(letter.email(to: user.email, name: user.name))
    }

    /// In the language of the person asking, who is the one it is for.
    func sendVerification(to user: User, in reader: Reader) async throws {
        let token = try await tokens.issueVerification(userID: user.id)
        let link = "\(site.publicURL)/verify-email?token=\(token)"
        try await mail.send(
            Letters(school: site.schoolName, reader: reader).emailConfirmation(name: user.name, link: link)
                .email(to: user.email, name: user.name))
    }

    @Sendable func verifyEmail(_ request: Request, context: AppRequestContext) async throws -> UserEnvelope {
        let input = try await request.decodeJSON(as: VerificationToken.self, context: context)
        guard let userID = try await tokens.redeemVerification(token: input.token) else {
            throw AppError(
                .badRequest, .invalidVerificationToken,
                "This confirmation link is unknown, used or expired. Sign in and ask for a new one."
            )
        }
        let ended = try await users.markEmailVerified(id: userID)
        guard var user = try await users.find(id: userID) else { throw AppError.notFound(.userNotFound, "user") }
        try await Self.tellLinksEnded(ended, to: user, mail: mail, site: site)
        // Only a confirmed address may take the places (and the student number) a roster import kept for it.
        if user.role == .student {
            try await courses.roster.acceptInvitations(studentID: user.id, email: user.email)
            user = try await users.find(id: userID) ?? user
        }
        return UserEnvelope(user: UserView(user))
    }

    @Sendable func resendVerification(_ request: Request, context: AppRequestContext) async throws -> Response {
        let user = try context.requireUser()
        guard user.emailVerifiedAt == nil else {
            throw AppError.conflict(.alreadyVerified, "Your email address is already confirmed.")
        }
        try await sendVerification(to: user, in: context.reader)
        return Response(status: .accepted)
    }

    /// Checks a password under two throttles: one per account and client address (slowed after a few failures,
    /// refused for a while after more), so that nobody can lock an account for everyone else, and one per address
    /// across all accounts, so that a spray of a few guesses at many accounts is bounded. Each attempt is counted
    /// as a failure before the password is checked, atomically, so that concurrent guesses cannot all see the count
    /// from before any of them; a right password takes it back.
    func authenticate(_ credentials: Credentials, from address: String?) async throws -> User {
        let email = try check { () throws(RuleViolation) in try AccountRules.email(credentials.email) }
        let now = Date()
        let accountKey = "\(email) \(address ?? "-")"
        let addressKey = address ?? "-"
        let account = try await reserve(.signInAccount, key: accountKey, under: throttle, now: now)
        let spray = try await reserve(.signInAddress, key: addressKey, under: Self.addressThrottle, now: now)
        for decision in [account, spray] {
            if case .refuse(let retryAfter) = decision {
                let minutes = Int((retryAfter / 60).rounded(.up))
                throw TooManyAttempts(
                    retryAfter: Int(retryAfter),
                    message: .counting(
                        minutes, one: "Too many failed sign-ins. Try again in {0} minute.",
                        other: "Too many failed sign-ins. Try again in {0} minutes."))
            }
        }
        if case .delay(let seconds) = account { try await Task.sleep(for: .seconds(seconds)) }
        let user = try await users.find(email: email)
        // Hash even for unknown addresses so that timing does not tell which addresses have accounts.
        let matches = try await passwords.verify(credentials.password, hash: user?.passwordHash ?? passwords.decoy)
        // Where the school signs people in itself, only an admin's right password is answered apart: anyone else's
        // password, right or wrong, or an unknown address, gets one refusal and keeps its failure, so that old
        // passwords cannot be guessed through the answer nor through the throttle.
        guard site.passwordSignIn || (matches && user?.role == .admin) else { throw passwordsOff }
        guard let user, matches else {
            throw AppError(.unauthorized, .invalidCredentials, "The email address or password is wrong.")
        }
        try await counters.reset(.signInAccount, key: accountKey)
        try await counters.update(.signInAddress, key: addressKey) { current in
            (current.map { AttemptCounters.Counter(count: max(0, $0.count - 1), since: $0.since, last: $0.last) }, ())
        }
        guard !user.disabled else { throw AppError.accountDisabled }
        return user
    }

    /// Failures from one client address across all accounts: a classroom behind one address makes a few typos,
    /// a spray at many accounts makes many.
    static let addressThrottle = SignInThrottle(freeFailures: 100, lockoutAfter: 100)

    /// Decides an attempt from the failures before it and, unless refused, counts it as one more.
    private func reserve(
        _ scope: AttemptCounters.Scope, key: String, under throttle: SignInThrottle, now: Date
    ) async throws -> SignInThrottle.Decision {
        try await counters.update(scope, key: key) { current in
            let since = current.map { now.timeIntervalSince($0.last) }
            let decision = throttle.decide(failures: current?.count ?? 0, secondsSinceLastFailure: since)
            if case .refuse = decision { return (current, decision) }
            let count = throttle.failuresAfterFailure(failures: current?.count ?? 0, secondsSinceLastFailure: since)
            return (AttemptCounters.Counter(count: count, since: current?.since ?? now, last: now), decision)
        }
    }

    @Sendable func signInWeb(_ request: Request, context: AppRequestContext) async throws -> Response {
        let user = try await authenticate(
            try await request.decodeJSON(as: Credentials.self, context: context), from: context.clientAddress)
        return try await signIns.startWebSession(for: user, request: request, context: context)
    }

    @Sendable func signOutWeb(_ request: Request, context: AppRequestContext) async throws -> Response {
        var idToken: String?
        if let identity = context.identity, identity.viaCookie {
            idToken = try await tokens.revoke(tokenHash: identity.tokenHash)
        }
        var response = Response(status: .noContent)
        response.setCookie(signIns.sessionCookie("", maxAge: 0))
        if let idToken {
            // Read once by the signed-out page, for the school's sign-out (`id_token_hint`), then cleared.
            response.setCookie(
                Cookie(
                    name: AccountPages.signOutHintCookie, value: idToken, maxAge: 300, path: "/sign-in",
                    secure: site.secureCookies, httpOnly: true, sameSite: .lax))
        }
        return response
    }

    @Sendable func signInAPI(_ request: Request, context: AppRequestContext) async throws -> Response {
        let user = try await authenticate(
            try await request.decodeJSON(as: Credentials.self, context: context), from: context.clientAddress)
        return try await signIns.issueAPIToken(for: user, request: request, context: context)
    }

    @Sendable func signOutAPI(_ request: Request, context: AppRequestContext) async throws -> Response {
        guard let identity = context.identity, !identity.viaCookie else {
            throw AppError(.unauthorized, .invalidToken, "Send the access token to revoke as a bearer token.")
        }
        try await tokens.revoke(tokenHash: identity.tokenHash)
        return Response(status: .noContent)
    }

    @Sendable func me(_ request: Request, context: AppRequestContext) async throws -> UserEnvelope {
        UserEnvelope(user: UserView(try context.requireUser()))
    }

    @Sendable func updateProfile(_ request: Request, context: AppRequestContext) async throws -> UserEnvelope {
        let user = try context.requireUser()
        let input = try await request.decodeJSON(as: ProfileUpdate.self, context: context)
        var change = ProfileChange()
        if let name = input.name { change.name = try check { () throws(RuleViolation) in try AccountRules.name(name) } }
        if let phone = input.phone {
            change.phone = .some(
                try phone.nonBlankOrNil.map { raw in
                    try check { () throws(RuleViolation) in
                        try PhoneNumber.normalized(raw, defaultRegion: site.defaultRegion)
                    }
                }
            )
        }
        if let about = input.about {
            change.about = try check { () throws(RuleViolation) in try AccountRules.about(about) }
        }
        if let zone = input.timeZone { change.timeZone = try CourseTimeZone.validated(zone) }
        if let language = input.language { change.language = .some(try Catalogs.shipped.chosen(language)) }
        return UserEnvelope(user: UserView(try await users.update(id: user.id, change)))
    }

    @Sendable func changePassword(_ request: Request, context: AppRequestContext) async throws -> Response {
        let user = try context.requireUser()
        let input = try await request.decodeJSON(as: PasswordChange.self, context: context)
        guard try await passwords.verify(input.currentPassword, hash: user.passwordHash) else {
            throw AppError(.badRequest, .invalidCurrentPassword, "Your current password is not right.")
        }
        let new = try check { () throws(RuleViolation) in
            try AccountRules.password(input.newPassword, field: "newPassword")
        }
        try await users.setPasswordHash(id: user.id, try await passwords.hash(new))
        try await tokens.revokeAll(userID: user.id, except: context.identity?.tokenHash)
        return Response(status: .noContent)
    }

    @Sendable func uploadPicture(_ request: Request, context: AppRequestContext) async throws -> Response {
        let user = try context.requireUser()
        try await users.setPicture(id: user.id, image: try await request.imageUpload())
        return Response(status: .noContent)
    }

    @Sendable func picture(_ request: Request, context: AppRequestContext) async throws -> Response {
        _ = try context.requireUser()
        let id = try context.id("userID", .userNotFound, "user")
        guard let user = try await users.find(id: id) else { throw AppError.notFound(.userNotFound, "user") }
        guard let pictureID = user.pictureId, let image = try await images.find(id: pictureID) else {
            throw AppError.notFound(.pictureNotFound, "picture")
        }
        return image.response
    }
}

extension String {
    /// `nil` when blank, so that clearing a field in a form removes the value.
    var nonBlankOrNil: String? { Optional(self).nonBlank }
}
