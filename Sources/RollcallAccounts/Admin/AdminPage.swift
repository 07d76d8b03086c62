import Foundation
import Hummingbird
import RollcallCore
import RollcallModel
import RollcallWeb
import RollcallWords

/// The admin's page: people, teacher approval, the outbox and the grades on their way to learning platforms.
struct AdminPage: Sendable {
    let users: UserStore
    let outbox: Outbox
    let jobs: JobQueue
    let exposure: ExposureStore
    let platforms: PlatformStore
    let pages: PageRenderer
    let publicURL: String

    func addRoutes(to router: Router<AppRequestContext>) {
        router.get(AdminRoutes.adminPage, use: admin)
    }

    @Sendable func admin(_ request: Request, context: AppRequestContext) async throws -> Response {
        let reader = context.reader
        let time = try AccessRule.admin(context).timeText(in: reader)
        let query = try check { () throws(RuleViolation) in try TextRules.search(request.query("q")) }
        // Teachers waiting for approval first, then everyone else, in pages a screen can hold.
        let everyone = try await self.users.directory.list(query: query, role: nil)
        let waiting = everyone.filter { $0.role == .teacher && !$0.approved }
        let listed = waiting + everyone.filter { !($0.role == .teacher && !$0.approved) }
        let (users, peoplePages) = PageLinks.page(
            listed, requested: Int(request.query("page") ?? "") ?? 1, size: Self.peoplePage, path: "/admin",
            query: query, anchor: "people", in: reader)
        let outboxPage = try await outbox.page(limit: 30, before: try OutboxPage.cursor(request))
        let messages = outboxPage.messages.map { message in
            AdminPageModel.Message(
                recipient: message.recipient, subject: message.subject, body: message.body,
                when: time.moment(message.createdAt), channel: message.channel, status: message.status,
                statusText: Self.statusText(message.status, in: reader),
                delivery: Self.delivery(message, time: time, in: reader))
        }
        let viewer = context.user?.id
        var secondAdminGrants = false
        if let viewer { secondAdminGrants = try await self.users.directory.hasOtherAdmin(than: viewer) }
        var page = AdminPageModel(
            users: users.map { Self.person($0, viewer: viewer, secondAdminGrants: secondAdminGrants, in: reader) },
            q: query ?? "", messages: messages, noMessages: messages.isEmpty,
            olderMessages: outboxPage.nextCursor.map { Self.olderLink(query: query, before: $0) },
            newestMessages: request.query("before") == nil ? nil : Self.olderLink(query: query, before: nil),
            exposureReports: try await exposure.list(limit: 50).map { entry in
                AdminPageModel.Report(
                    requestedByName: entry.requestedByName, personName: entry.personName, reason: entry.reason,
                    window: "\(time.day(entry.windowFrom)) – \(time.day(entry.windowUntil))",
                    when: time.moment(entry.createdAt))
            },
            accountChanges: try await accountChanges(time: time, in: reader))
        page.platforms = try await platforms.list().map { platform in
            AdminPageModel.Platform(
                id: platform.id, name: platform.name, issuer: platform.issuer, clientId: platform.clientId,
                deployments: platform.deploymentIds.joined(separator: ", "))
        }
        page.tool = AdminPageModel.Tool(
            loginUrl: publicURL + LearningPlatformRoutes.login.description,
            launchUrl: publicURL + LearningPlatformRoutes.launch.description,
            jwksUrl: publicURL + LearningPlatformRoutes.jwks.description)
        page.peopleCount = listed.count
        page.waitingCount = waiting.count
        page.peoplePages = peoplePages
        page.grades = try await grades(time: time, in: reader)
        page.noGrades = page.grades.isEmpty
        return try pages.render(page, title: "Admin · Rollcall", context: context)
    }

    /// One row of the people list. The page offers only what the API takes: an admin is made a health officer by
    /// another admin where there is one (`ExposureController`).
    static func person(_ user: User, viewer: Int64?, secondAdminGrants: Bool, in reader: Reader)
        -> AdminPageModel.Person
    {
        let isSelf = user.id == viewer
        return AdminPageModel.Person(
            id: user.id, name: user.name, email: user.email, role: user.role.pageText(in: reader),
            pending: user.role == .teacher && !user.approved, disabled: user.disabled,
            isSelf: isSelf, healthOfficer: user.healthOfficer,
            mayBecomeOfficer: !user.healthOfficer && !(isSelf && secondAdminGrants),
            deleted: user.deletedAt != nil,
            roleSource: Self.roleSource(user.roleSource, in: reader), showsRoleSource: user.role != .admin,
            mayTeach: user.role == .student, mayStudy: user.role == .teacher)
    }

    /// The latest changes to people's accounts by others, in words.
    func accountChanges(time: TimeText, in reader: Reader) async throws -> [String] {
        try await AccountAudit.entries(in: users.database).map {
            "\($0.sentence(in: reader)) · \(time.moment($0.at))"
        }
    }

    /// People on one page of the admin's list.
    static let peoplePage = 50

    /// Where a message's delivery stands, in words.
    static func delivery(_ message: OutboxMessage, time: TimeText, in reader: Reader) -> String {
        let tries = reader.say(message.attempts, one: "{0} attempt", other: "{0} attempts")
        switch message.status {
        case "stored": return reader.say("kept in the outbox: no provider is configured for \(message.channel)")
        case "sent": return reader.say("sent \(message.sentAt.map(time.moment) ?? "") after \(tries)")
        case "failed": return reader.say("failed after \(tries): \(message.lastError ?? "")")
        case "sending": return reader.say("being sent (\(tries))")
        default:
            guard message.attempts > 0 else { return reader.say("waiting to be sent") }
            let next = message.nextAttemptAt.map(time.moment) ?? reader.say("soon")
            return reader.say("waiting: \(tries) failed, next \(next): \(message.lastError ?? "")")
        }
    }

    /// A message's status in words, for its badge: the badge's class stays `status`.
    static func statusText(_ status: String, in reader: Reader) -> String {
        switch status {
        case "stored": reader.say("stored")
        case "queued": reader.say("queued")
        case "sending": reader.say("sending")
        case "sent": reader.say("sent")
        case "failed": reader.say("failed")
        default: status
        }
    }

    /// The admin page with the search kept, at the outbox page that starts before `before` (the newest when `nil`).
    static func olderLink(query: String?, before: Int64?) -> String {
        var items: [URLQueryItem] = []
        if let query { items.append(URLQueryItem(name: "q", value: query)) }
        if let before { items.append(URLQueryItem(name: "before", value: String(before))) }
        var components = URLComponents()
        components.path = "/admin"
        components.queryItems = items.isEmpty ? nil : items
        return (components.string ?? "/admin") + "#outbox"
    }
}

/// What the admin page shows: people found by the search, and the latest messages of the outbox.
extension AdminPage {
    static func roleSource(_ source: RoleSource, in reader: Reader) -> String {
        switch source {
        case .registration: reader.say("chosen at registration")
        case .school: reader.say("from the school's sign-in")
        case .admin: reader.say("set by an admin")
        }
    }
}

struct AdminPageModel: PageModel {
    static let template = "admin"

    struct Person: Sendable {
        var id: Int64
        var name: String
        var email: String
        /// The role in the reader's words.
        var role: String
        /// A teacher waiting for approval.
        var pending: Bool
        var disabled: Bool
        /// The admin looking at the page, who cannot disable themselves.
        var isSelf: Bool
        var healthOfficer: Bool
        /// "Make health officer" is offered: not one yet, and the API would take it from this admin.
        var mayBecomeOfficer: Bool
        var deleted: Bool
        /// Where the role came from, in words; not shown for admins, who are made with `create-admin`.
        var roleSource: String
        var showsRoleSource: Bool
        /// The role an admin may give instead.
        var mayTeach: Bool
        var mayStudy: Bool
    }

    /// One exposure report in the audit.
    struct Report: Sendable {
        var requestedByName: String
        var personName: String
        var reason: String
        var window: String
        var when: String
    }

    struct Message: Sendable {
        var recipient: String
        var subject: String
        var body: String
        var when: String
        var channel: String
        /// `stored`, `queued`, `sending`, `sent` or `failed`.
        var status: String
        /// The status in the reader's words.
        var statusText: String
        var delivery: String
    }

    var users: [Person]
    var q: String
    var messages: [Message]
    /// Stored, like every field a template reads: templates see stored properties only.
    var noMessages: Bool
    /// The link to the next 30 older messages, when there are any.
    var olderMessages: String?
    /// The link back to the newest messages, on an older page.
    var newestMessages: String?
    var exposureReports: [Report]
    var noExposureReports: Bool
    /// Changes to people's accounts by others: roles granted, approvals, password links.
    var accountChanges: [String]
    var noAccountChanges: Bool
    /// People found, on every page; teachers waiting for approval among them.
    var peopleCount = 0
    var waitingCount = 0
    /// A learning platform registered, as the admin page lists it.
    struct Platform: Sendable {
        var id: Int64
        var name: String
        var issuer: String
        var clientId: String
        var deployments: String
    }
    /// What a platform's registration form asks of Rollcall.
    struct Tool: Sendable {
        var loginUrl: String
        var launchUrl: String
        var jwksUrl: String
    }
    var platforms: [Platform] = []
    var tool: Tool? = nil
    var peoplePages: PageLinks?
    /// Scores for learning platforms still to send, or refused for good.
    var grades: [Grade] = []
    var noGrades = true

    init(
        users: [Person], q: String, messages: [Message], noMessages: Bool, olderMessages: String?,
        newestMessages: String?, exposureReports: [Report], accountChanges: [String]
    ) {
        self.users = users
        self.q = q
        self.messages = messages
        self.noMessages = noMessages
        self.olderMessages = olderMessages
        self.newestMessages = newestMessages
        self.exposureReports = exposureReports
        noExposureReports = exposureReports.isEmpty
        self.accountChanges = accountChanges
        noAccountChanges = accountChanges.isEmpty
    }
}
