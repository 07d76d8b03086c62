import Foundation
import Hummingbird
import RollcallCore
import RollcallModel
import RollcallParts
import RollcallWeb
import RollcallWords

/// Launches that wait for their person: whether the account Rollcall has for the platform's address is theirs
/// (`/lti/link`), and which of a teacher's courses the platform's course is (`/lti/course`); the answer goes on with
/// the launch and signs the person in where it leads.
struct WaitingLaunchController: Sendable {
    let platforms: PlatformStore
    let launches: LaunchStates
    let people: PlatformPeople
    let linkedCourses: PlatformCourses
    let destinations: LaunchDestinations
    let tokens: AccessTokenStore
    let signIns: SignIns
    let pages: PageRenderer

    func addRoutes(to router: AppRouter) {
        router.get(LearningPlatformRoutes.linkPage, use: linkPage)
        router.get(LearningPlatformRoutes.coursePage, use: coursePage)
        router.post(LearningPlatformRoutes.pendingAnswer, use: answer)
    }

    /// The page that asks whether the account Rollcall has for the platform's address is the person's: signed in
    /// to it, they link it; else they sign in first, or go on with a new account.
    @Sendable func linkPage(_ request: Request, context: AppRequestContext) async throws -> Response {
        let code = request.query("code") ?? ""
        guard let pending = try await launches.pending(code: code), pending.kind == .account,
            let platform = try await platforms.find(id: pending.platformID)
        else { throw Self.waitedTooLong }
        let address = pending.launch.email.flatMap { try? AccountRules.email($0) } ?? ""
        let here = LearningPlatformRoutes.linkPage.description + "?code=" + code
        return try pages.render(
            LinkAccountPage(
                code: code, platform: platform.name, email: address,
                owner: context.user.map { $0.email == address } ?? false, signedInAs: context.user?.email,
                signIn: AccountRoutes.signIn(next: here)),
            title: "Link your account · Rollcall", context: context, framing: .launch)
    }

    /// The page where a teacher picks which of their courses the platform's course is, or a new one.
    @Sendable func coursePage(_ request: Request, context: AppRequestContext) async throws -> Response {
        let code = request.query("code") ?? ""
        guard let user = context.user else {
            return .redirect(
                to: AccountRoutes.signIn(next: LearningPlatformRoutes.coursePage.description + "?code=" + code),
                type: .found)
        }
        guard let pending = try await launches.pending(code: code), pending.kind == .course,
            pending.userID == user.id, let platform = try await platforms.find(id: pending.platformID)
        else { throw Self.waitedTooLong }
        return try pages.render(
            CourseChoicePage(
                code: code, platform: platform.name, title: pending.launch.context?.title ?? "",
                courses: try await linkedCourses.linkableCourses(teacherID: user.id).map {
                    CourseChoicePage.Choice(id: $0.id, name: $0.name)
                }),
            title: "Which course? · Rollcall", context: context, framing: .launch)
    }

    /// What a person answers a waiting launch: `{"link": true|false}` for an account, `{"courseId": n}` (or
    /// nothing, for a new course) for a course. The launch goes on, and the person is signed in where it leads.
    @Sendable func answer(_ request: Request, context: AppRequestContext) async throws -> Response {
        struct Answer: Decodable {
            var link: Bool?
            var courseId: Int64?
        }
        struct Next: Codable, ResponseEncodable {
            var next: String
        }
        let code = context.parameters.get("code") ?? ""
        guard let pending = try await launches.pending(code: code),
            let platform = try await platforms.find(id: pending.platformID)
        else { throw Self.waitedTooLong }
        let input = try await request.decodeJSON(as: Answer.self, context: context)
        let (user, next) =
            switch pending.kind {
            case .account:
                try await answerAccount(input.link, code: code, pending: pending, platform: platform, context: context)
            case .course:
                try await answerCourse(
                    input.courseId, code: code, pending: pending, platform: platform, context: context)
            }
        guard !user.disabled, user.deletedAt == nil else { throw AppError.accountDisabled }
        let issued = try await tokens.issue(userID: user.id, kind: .web)
        var response = try Next(next: next).response(from: request, context: context, status: .ok)
        response.setCookie(signIns.sessionCookie(issued.token, maxAge: Int(AccessTokenStore.webLifetime)))
        return response
    }

    /// Links the platform's person to the account of its address, only by the account's owner signed in to it, or
    /// makes a new account; answers the person and where the launch leads.
    private func answerAccount(
        _ link: Bool?, code: String, pending: LaunchStates.Pending, platform: LearningPlatform,
        context: AppRequestContext
    ) async throws -> (User, String) {
        let launch = pending.launch
        guard let link else {
            throw AppError(.badRequest, .missingField, "Say whether to link the account: {\"link\": true} or false.")
        }
        let address = launch.email.flatMap { try? AccountRules.email($0) } ?? ""
        let user: User
        if link {
            guard let me = context.user, me.email == address else {
                throw AppError(
                    .forbidden, .ltiLaunchRefused,
                    "Sign in to the Rollcall account of \(address) first: only its owner links it to \(platform.name)."
                )
            }
            guard try await launches.takePending(code: code) != nil else { throw Self.waitedTooLong }
            try await people.linkIdentity(platformID: platform.id, subject: launch.subject, to: me.id)
            user = me
        } else {
            guard try await launches.takePending(code: code) != nil else { throw Self.waitedTooLong }
            user = try await people.account(
                platformID: platform.id, subject: launch.subject, person: FederatedPerson(launch: launch),
                logger: context.logger)
        }
        return (user, try await destinations.destination(launch, platform: platform, user: user))
    }

    /// Links the platform's course to the teacher's pick, or a new course; answers the teacher and the course.
    private func answerCourse(
        _ chosen: Int64?, code: String, pending: LaunchStates.Pending, platform: LearningPlatform,
        context: AppRequestContext
    ) async throws -> (User, String) {
        guard let me = context.user, me.id == pending.userID, let platformCourse = pending.launch.context else {
            throw AppError(
                .forbidden, .ltiLaunchRefused, "Only the teacher who opened Rollcall from the course picks its course.")
        }
        if let chosen, try await !linkedCourses.linkableCourses(teacherID: me.id).contains(where: { $0.id == chosen }) {
            throw AppError.invalid(
                RuleViolation(
                    field: "courseId",
                    message: "Pick one of your own courses that is not archived nor linked yet, or a new course."))
        }
        guard try await launches.takePending(code: code) != nil else { throw Self.waitedTooLong }
        let next = try await destinations.linkCourse(
            pending.launch, context: platformCourse, platform: platform, user: me, existing: chosen)
        return (me, next)
    }

    static let waitedTooLong = AppError(
        .badRequest, .ltiStateInvalid,
        "This launch was answered already or waited too long. Open Rollcall again from the course.")
}

/// Whether the account Rollcall has for the platform's address is the person's.
struct LinkAccountPage: PageModel {
    static let template = "lti-link"
    var code: String
    var platform: String
    var email: String
    /// Signed in to that account: one button links it.
    var owner: Bool
    /// Signed in to another account.
    var signedInAs: String?
    var signIn: String
}
/// Which of a teacher's courses the platform's course is.
struct CourseChoicePage: PageModel {
    static let template = "lti-course"
    struct Choice: Sendable {
        var id: Int64
        var name: String
    }
    var code: String
    var platform: String
    var title: String
    var courses: [Choice]
}
