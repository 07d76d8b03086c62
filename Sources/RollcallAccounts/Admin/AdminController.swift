import Foundation
import Hummingbird
import RollcallCore
import RollcallModel
import RollcallWeb
import RollcallWords

/// The admin's tools: people, teacher approval, disabling accounts, and the outbox.
struct AdminController: Sendable {
    let users: UserStore
    let outbox: Outbox

    struct UserList: Codable, ResponseEncodable {
        var users: [UserView]
    }
    struct UserEnvelope: Codable, ResponseEncodable {
        var user: UserView
    }
    struct Messages: Codable, ResponseEncodable {
        var messages: [OutboxMessage]
        /// The `before` of the next page; left out on the last.
        var nextCursor: Int64?
    }

    func addRoutes(to router: Router<AppRequestContext>) {
        router.get(AdminRoutes.users, use: listUsers)
        router.post(AdminRoutes.approve, use: approve)
        router.post(AdminRoutes.disable, use: disable)
        router.post(AdminRoutes.enable, use: enable)
        router.put(AdminRoutes.role, use: setRole)
        router.get(AdminRoutes.outbox, use: listOutbox)
    }

    @Sendable func listUsers(_ request: Request, context: AppRequestContext) async throws -> UserList {
        _ = try AccessRule.admin(context)
        let role = try request.query("role").map { text in
            guard let role = Role(rawValue: text) else {
                throw AppError(.badRequest, .invalidRole, "Filter by role student, teacher, admin or health_officer.")
            }
            return role
        }
        return UserList(
            users: try await users.directory.list(
                query: try check { () throws(RuleViolation) in try TextRules.search(request.query("q")) }, role: role
            ).map(UserView.init))
    }

    func target(_ context: AppRequestContext) async throws -> User {
        guard let user = try await users.find(id: try context.id("userID", .userNotFound, "user")) else {
            throw AppError.notFound(.userNotFound, "user")
        }
        return user
    }

    @Sendable func approve(_ request: Request, context: AppRequestContext) async throws -> UserEnvelope {
        let admin = try AccessRule.admin(context)
        let user = try await target(context)
        try await users.approve(id: user.id, by: admin)
        return UserEnvelope(user: UserView(try await target(context)))
    }

    @Sendable func disable(_ request: Request, context: AppRequestContext) async throws -> UserEnvelope {
        let admin = try AccessRule.admin(context)
        let user = try await target(context)
        guard user.id != admin.id else {
            throw AppError(.badRequest, .cannotDisableSelf, "You cannot disable your own account.")
        }
        try await users.setDisabled(id: user.id, true, by: admin)
        return UserEnvelope(user: UserView(try await target(context)))
    }

    @Sendable func enable(_ request: Request, context: AppRequestContext) async throws -> UserEnvelope {
        let admin = try AccessRule.admin(context)
        let user = try await target(context)
        try await users.setDisabled(id: user.id, false, by: admin)
        return UserEnvelope(user: UserView(try await target(context)))
    }

    struct RoleChange: Decodable {
        var role: String
    }

    /// Makes someone a teacher or a student by hand, whatever their registration or the school's sign-in said.
    @Sendable func setRole(_ request: Request, context: AppRequestContext) async throws -> UserEnvelope {
        let admin = try AccessRule.admin(context)
        let input = try await request.decodeJSON(as: RoleChange.self, context: context)
        guard let role = Role(rawValue: input.role), Role.selfRegistrable.contains(role) else {
            throw AppError(.badRequest, .invalidRole, "Choose teacher or student; “\(input.role)” is neither.")
        }
        let user = try await target(context)
        guard user.id != admin.id, user.role != .admin else {
            throw AppError(
                .conflict, .adminRoleFixed, "An admin stays an admin here; admins are made with rollcall create-admin.")
        }
        try await users.setRole(id: user.id, role, by: admin)
        return UserEnvelope(user: UserView(try await target(context)))
    }

    @Sendable func listOutbox(_ request: Request, context: AppRequestContext) async throws -> Messages {
        _ = try AccessRule.admin(context)
        let limit = try Self.outboxLimit(request)
        let page = try await outbox.page(
            limit: limit, before: try OutboxPage.cursor(request), recipient: request.query("recipient"))
        return Messages(messages: page.messages, nextCursor: page.nextCursor)
    }

    static let outboxLimits = 1...100

    /// `?limit=N`: how many messages a page holds, 30 unless asked.
    static func outboxLimit(_ request: Request) throws -> Int {
        guard let text = request.query("limit") else { return 30 }
        guard let limit = Int(text), outboxLimits.contains(limit) else {
            throw AppError(
                .badRequest, .invalidLimit,
                "“limit” must be a whole number from \(outboxLimits.lowerBound) to \(outboxLimits.upperBound).")
        }
        return limit
    }
}
