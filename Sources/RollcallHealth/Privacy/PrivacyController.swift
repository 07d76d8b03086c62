import Foundation
import Hummingbird
import RollcallCore
import RollcallModel
import RollcallParts
import RollcallWeb
import RollcallWords

/// A person's own data: downloading all of it, and deleting an account by its owner or an admin.
struct PrivacyController: Sendable {
    let personal: PersonalData
    let users: UserStore
    let signIns: SignIns

    struct DataEnvelope: Codable, ResponseEncodable {
        var data: PersonalDataExport
    }

    func addRoutes(to router: Router<AppRequestContext>) {
        router.get(PrivacyRoutes.myData, use: myData)
        router.delete(PrivacyRoutes.me, use: deleteMe)
        router.delete(PrivacyRoutes.user, use: deleteUser)
    }

    @Sendable func myData(_ request: Request, context: AppRequestContext) async throws -> Response {
        let user = try context.requireUser()
        var response = try DataEnvelope(data: try await personal.export(user, in: context.reader)).response(
            from: request, context: context)
        response.headers[.contentDisposition] = "attachment; filename=\"rollcall-my-data.json\""
        response.headers[.cacheControl] = "no-store"
        return response
    }

    @Sendable func deleteMe(_ request: Request, context: AppRequestContext) async throws -> Response {
        let user = try context.requireUser()
        if let refusal = try await personal.refusalOfSelfDeletion(user) { throw Self.error(refusal) }
        try await personal.erase(user)
        var response = Response(status: .noContent)
        response.setCookie(signIns.sessionCookie("", maxAge: 0))
        return response
    }

    @Sendable func deleteUser(_ request: Request, context: AppRequestContext) async throws -> Response {
        let admin = try AccessRule.admin(context)
        guard let user = try await users.find(id: try context.id("userID", .userNotFound, "user")) else {
            throw AppError.notFound(.userNotFound, "user")
        }
        guard user.id != admin.id else {
            throw AppError(.badRequest, .cannotDeleteSelf, "You cannot delete your own admin account here.")
        }
        guard user.deletedAt == nil else { throw Self.error(.alreadyDeleted) }
        try await personal.erase(user)
        return Response(status: .noContent)
    }

    static func error(_ refusal: DeletionRefusal) -> AppError {
        switch refusal {
        case .recordsMustBeKept(let message): AppError.conflict(.recordsMustBeKept, message)
        case .alreadyDeleted: AppError.conflict(.accountDeleted, "This account has already been deleted.")
        }
    }
}
