import Foundation
import Hummingbird
import RollcallCore
import RollcallModel
import RollcallParts
import RollcallWeb
import RollcallWords

/// The pages of accounts: the front door, signing in, registering, confirming the email address, the profile.
struct AccountPages: Sendable {
    let pages: PageRenderer
    /// For the profile: whether exposure reports about the person were made.
    let exposure: ExposureStore
    let personal: PersonalData
    /// For the sign-in page: whom a remembered browser may continue as.
    let devices: RememberedDevices
    let users: UserStore
    /// For the sign-in page: the school's sign-in, and whether passwords are offered.
    let site: SiteSettings
    /// The school's provider, whose sign-out the page offers after signing out of Rollcall.
    let school: OpenIDProvider?
    /// For a sign-in on the way to a check-in: the scan's class, and how long it is held.
    let tickets: ScanTickets
    let sessions: SessionStore

    func addRoutes(to router: Router<AppRequestContext>) {
        router.get(AccountRoutes.home, use: home)
        router.get(AccountRoutes.signInPage, use: signIn)
        router.get(AccountRoutes.registerPage, use: register)
        router.get(AccountRoutes.verifyEmailPage, use: verifyEmail)
        router.get(AccountRoutes.profilePage, use: profile)
        router.get(AccountRoutes.forgotPasswordPage, use: forgotPassword)
        router.get(AccountRoutes.resetPasswordPage, use: resetPassword)
    }

    @Sendable func forgotPassword(_ request: Request, context: AppRequestContext) async throws -> Response {
        try pages.render(
            ForgotPasswordPage(email: request.query("email") ?? ""), title: "Forgot your password? · Rollcall",
            context: context)
    }

    @Sendable func resetPassword(_ request: Request, context: AppRequestContext) async throws -> Response {
        try pages.render(
            ResetPasswordPage(token: request.query("token") ?? ""), title: "Set a new password · Rollcall",
            context: context)
    }

    @Sendable func home(_ request: Request, context: AppRequestContext) async throws -> Response {
        .redirect(to: context.user == nil ? AccountRoutes.signInPage.description : CourseRoutes.coursesPage.description)
    }

    /// Where to go after signing in or registering: a path on this site only, so the link cannot send people away.
    static func next(_ request: Request) -> String {
        request.query("next").flatMap(LocalPath.init)?.text ?? CourseRoutes.coursesPage.description
    }

    /// The school sign-in button's words: the name the school gave it, else the default said in the reader's
    /// language (the default is English in the settings, which know no reader).
    static func schoolSignInName(_ settings: SingleSignOnSettings, in reader: Reader) -> String {
        SingleSignOnSettings.buttonWords(settings.name, in: reader)
    }

    /// The cookie that carries a signed-out session's school ID token to the signed-out page.
    static let signOutHintCookie = "rollcall_sso_hint"

    @Sendable func signIn(_ request: Request, context: AppRequestContext) async throws -> Response {
        let next = Self.next(request)
        var page = SignInPage(
            next: next, nextQuery: Self.queryValue(next), passwordSignIn: site.passwordSignIn,
            hasSchoolSignIn: site.singleSignOn != nil,
            schoolSignIn: site.singleSignOn.map { Self.schoolSignInName($0, in: context.reader) } ?? "")
        if request.query("signed-out") != nil, let school, let settings = site.singleSignOn,
            let endpoint = try? await school.discovery().endSessionEndpoint,
            var link = URLComponents(string: endpoint)
        {
            // Rollcall's session is gone; the school's own may be open still, on a shared computer too.
            link.queryItems =
                (link.queryItems ?? []) + [
                    URLQueryItem(name: "client_id", value: settings.clientID),
                    URLQueryItem(name: "post_logout_redirect_uri", value: site.publicURL + "/sign-in"),
                ]
                + (request.cookies[Self.signOutHintCookie].map {
                    [URLQueryItem(name: "id_token_hint", value: $0.value)]
                }
                    ?? [])
            page.schoolSignOut = link.string ?? ""
            page.signedOut = true
        }
        page.scan = try await scanNotice(next: next, in: context.reader)
        if let (device, user) = try await devices.recognised(request, users: users) {
            page.remembered = true
            page.rememberedName = user.name
            page.rememberedPhone = PhoneNumber.masked(device.phone)
        }
        var response = try pages.render(page, title: "Sign in · Rollcall", context: context)
        if request.cookies[Self.signOutHintCookie] != nil {
            response.setCookie(
                Cookie(
                    name: Self.signOutHintCookie, value: "", maxAge: 0, path: "/sign-in",
                    secure: site.secureCookies, httpOnly: true, sameSite: .lax))
        }
        return response
    }

    @Sendable func register(_ request: Request, context: AppRequestContext) async throws -> Response {
        let next = Self.next(request)
        // Where the school signs people in itself, there is nothing to register: its button is on the sign-in page.
        guard site.passwordSignIn else {
            return .redirect(to: AccountRoutes.signIn(next: next), type: .found)
        }
        var page = RegisterPage(next: next, nextQuery: Self.queryValue(next), email: request.query("email") ?? "")
        page.scan = try await scanNotice(next: next, in: context.reader)
        return try pages.render(page, title: "Create your account · Rollcall", context: context)
    }

    /// What a person who scanned the projected code before signing in is told: which class the scan is for, and
    /// that it is held for a while, or that it ran out.
    func scanNotice(next: String, in reader: Reader, now: Date = Date()) async throws -> String? {
        let prefix = CheckInRoutes.checkInPage(ticket: "")
        guard next.hasPrefix(prefix), let ticket = try await tickets.read(String(next.dropFirst(prefix.count))),
            let session = try await sessions.find(id: ticket.sessionId)
        else { return nil }
        let held = Int(ScanTickets.lifetime / 60)
        let title = session.title(in: reader)
        guard ticket.expiresAt > now else {
            return reader.say(
                "Your scan for \(session.courseName) — \(title) has run out. Sign in, then scan the code on the screen again."
            )
        }
        return reader.say(
            held,
            one:
                "Sign in to check in to {1} — {2}. Your scan is held for {0} minute from when you scanned: sign in or create your account now, and you are checked in.",
            other:
                "Sign in to check in to {1} — {2}. Your scan is held for {0} minutes from when you scanned: sign in or create your account now, and you are checked in.",
            .text(session.courseName), .text(title))
    }

    @Sendable func verifyEmail(_ request: Request, context: AppRequestContext) async throws -> Response {
        try pages.render(
            VerifyEmailPage(token: request.query("token") ?? ""), title: "Confirm your email · Rollcall",
            context: context)
    }

    @Sendable func profile(_ request: Request, context: AppRequestContext) async throws -> Response {
        let user = try context.requireUser()
        let reader = context.reader
        var page = ProfilePage(
            id: user.id, name: user.name, email: user.email, phone: user.phone ?? "", about: user.about,
            phoneConfirmed: user.phone != nil && user.phoneConfirmedAt != nil,
            role: user.role.pageText(in: reader), studentNumber: user.studentNumber ?? "",
            hasPicture: user.pictureId != nil,
            verified: user.emailVerifiedAt != nil,
            reports: try await exposure.list(about: user.id).map { user.timeText(in: reader).moment($0.createdAt) },
            refusal: try await personal.refusalOfSelfDeletion(user), in: reader)
        let zone = user.timeZone ?? CourseTimeZone.serverDefault
        page.timeZones = CourseTimeZone.choices(selected: zone).map {
            TimeZoneChoice(id: $0, selected: $0 == zone)
        }
        page.languages = Catalogs.shipped.choices.map {
            ProfilePage.LanguageChoice(id: $0.language, name: $0.name, selected: $0.language == user.language)
        }
        page.followsBrowser = user.language == nil
        return try pages.render(page, title: "Your profile · Rollcall", context: context)
    }

    static func queryValue(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""
    }
}

struct SignInPage: PageModel {
    static let template = "sign-in"
    /// Where to go after signing in.
    var next: String
    var nextQuery: String
    /// This browser was remembered after a texted-code sign-in: it may continue as the person without a code.
    var remembered = false
    var rememberedName = ""
    var rememberedPhone = ""
    /// Passwords are offered to everyone; without them, only admins use the (folded) password form.
    var passwordSignIn = true
    var hasSchoolSignIn = false
    /// Just signed out of Rollcall, with the school's provider offering a sign-out of its own.
    var signedOut = false
    var schoolSignOut = ""
    /// The school's sign-in button's label.
    var schoolSignIn = ""
    /// On the way to a check-in: the class scanned, and how long the scan is held.
    var scan: String?
}

struct RegisterPage: PageModel {
    static let template = "register"
    var next: String
    var nextQuery: String
    /// Filled in from an invitation's link.
    var email: String
    /// On the way to a check-in: the class scanned, and how long the scan is held.
    var scan: String?
}

struct ForgotPasswordPage: PageModel {
    static let template = "forgot-password"
    var email: String
}

struct ResetPasswordPage: PageModel {
    static let template = "reset-password"
    var token: String
}

struct VerifyEmailPage: PageModel {
    static let template = "verify-email"
    var token: String
}

struct ProfilePage: PageModel {
    static let template = "profile"
    var id: Int64
    var name: String
    var email: String
    var phone: String
    /// Stored, as templates see stored properties only: an empty string would count as present.
    var hasPhone: Bool
    var phoneConfirmed: Bool
    var about: String
    var role: String
    var studentNumber: String
    var hasPicture: Bool
    var verified: Bool
    /// When exposure reports about the person were made; nothing of what they found.
    var reports: [String]
    var noReports: Bool
    var mayDelete: Bool
    var deleteRule: String
    /// The zones the person may choose for the pages not tied to a course, theirs selected.
    var timeZones: [TimeZoneChoice] = []
    /// The languages the person may choose, each in its own words, theirs selected.
    var languages: [LanguageChoice] = []
    /// No language chosen: the pages follow the browser's.
    var followsBrowser = true

    /// One language on the profile's list.
    struct LanguageChoice: Sendable {
        var id: String
        var name: String
        var selected: Bool
    }

    init(
        id: Int64, name: String, email: String, phone: String, about: String, phoneConfirmed: Bool, role: String,
        studentNumber: String,
        hasPicture: Bool, verified: Bool, reports: [String], refusal: DeletionRefusal?, in reader: Reader
    ) {
        self.id = id
        self.name = name
        self.email = email
        self.phone = phone
        hasPhone = !phone.isEmpty
        self.phoneConfirmed = phoneConfirmed
        self.about = about
        self.role = role
        self.studentNumber = studentNumber
        self.hasPicture = hasPicture
        self.verified = verified
        self.reports = reports
        noReports = reports.isEmpty
        mayDelete = refusal == nil
        deleteRule =
            switch refusal {
            case .recordsMustBeKept(let message): reader.say(message)
            case .alreadyDeleted: reader.say("This account has been deleted.")
            case nil: ""
            }
    }
}
