import Foundation
import Hummingbird
import RollcallCore

/// The pages of accounts: the front door, signing in, registering, confirming the email address, the profile.
struct AccountPages: Sendable {
    let pages: PageRenderer

    func addRoutes(to router: Router<AppRequestContext>) {
        router.get(AccountRoutes.home, use: home)
        router.get(AccountRoutes.signInPage, use: signIn)
        router.get(AccountRoutes.registerPage, use: register)
        router.get(AccountRoutes.verifyEmailPage, use: verifyEmail)
        router.get(AccountRoutes.profilePage, use: profile)
    }

    @Sendable func home(_ request: Request, context: AppRequestContext) async throws -> Response {
        .redirect(to: context.user == nil ? "/sign-in" : "/courses")
    }

    /// Where to go after signing in or registering: a path on this site only, so the link cannot send people away.
    static func next(_ request: Request) -> String {
        request.query("next").flatMap { $0.hasPrefix("/") && !$0.hasPrefix("//") && !$0.hasPrefix("/\\") ? $0 : nil }
            ?? "/courses"
    }

    @Sendable func signIn(_ request: Request, context: AppRequestContext) async throws -> Response {
        let next = Self.next(request)
        return try pages.render(
            "sign-in", title: "Sign in · Rollcall",
            data: ["next": next, "nextQuery": next.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""],
            context: context
        )
    }

    @Sendable func register(_ request: Request, context: AppRequestContext) async throws -> Response {
        let next = Self.next(request)
        return try pages.render(
            "register", title: "Create your account · Rollcall",
            data: [
                "next": next, "nextQuery": next.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "",
                "email": request.query("email") ?? "",
            ],
            context: context
        )
    }

    @Sendable func verifyEmail(_ request: Request, context: AppRequestContext) async throws -> Response {
        try pages.render(
            "verify-email", title: "Confirm your email · Rollcall", data: ["token": request.query("token") ?? ""],
            context: context
        )
    }

    @Sendable func profile(_ request: Request, context: AppRequestContext) async throws -> Response {
        let user = try context.requireUser()
        let data: [String: Any] = [
            "id": user.id, "name": user.name, "email": user.email, "phone": user.phone ?? "", "about": user.about,
            "role": user.role.rawValue, "studentNumber": user.studentNumber ?? "", "hasPicture": user.pictureId != nil,
            "verified": user.emailVerifiedAt != nil,
        ]
        return try pages.render("profile", title: "Your profile · Rollcall", data: data, context: context)
    }
}
