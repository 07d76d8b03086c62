import Foundation
import Hummingbird
import RollcallCore

/// The admin's page: people, teacher approval and the outbox.
struct AdminPage: Sendable {
    let users: UserStore
    let outbox: Outbox
    let pages: PageRenderer

    func addRoutes(to router: Router<AppRequestContext>) {
        router.get(AdminRoutes.adminPage, use: admin)
    }

    @Sendable func admin(_ request: Request, context: AppRequestContext) async throws -> Response {
        _ = try AdminController.requireAdmin(context)
        let query = request.query("q")
        let users = try await self.users.list(query: query, role: nil)
        let rows: [[String: Any]] = users.map { user in
            [
                "id": user.id, "name": user.name, "email": user.email, "role": user.role.rawValue,
                "pending": user.role == .teacher && !user.approved, "disabled": user.disabled,
                "self": user.id == context.user?.id,
            ]
        }
        let messages: [[String: Any]] = try await outbox.list(limit: 30).map { message in
            [
                "recipient": message.recipient, "subject": message.subject, "body": message.body,
                "when": message.createdAt.pageText, "channel": message.channel,
            ]
        }
        return try pages.render(
            "admin", title: "Admin · Rollcall",
            data: ["users": rows, "q": query ?? "", "messages": messages, "noMessages": messages.isEmpty],
            context: context
        )
    }
}
