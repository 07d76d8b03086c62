import Foundation
import Hummingbird
import RollcallCore

/// Sessions of a course: scheduling or opening one with its check-in settings, and closing it.
struct SessionsController: Sendable {
    let sessions: SessionStore
    let access: AccessRule

    struct NewSession: Decodable {
        var title: String?
        /// When to open, as ISO-8601 text; absent or in the past means now.
        var scheduledAt: String?
        var settings: SessionSettingsDraft?
    }
    struct SessionEnvelope: Codable, ResponseEncodable {
        var session: SessionView
    }
    struct SessionList: Codable, ResponseEncodable {
        var sessions: [SessionView]
    }

    func addRoutes(to router: Router<AppRequestContext>) {
        router.get(SessionRoutes.courseSessions, use: list)
        router.post(SessionRoutes.courseSessions, use: create)
        router.get(SessionRoutes.session, use: show)
        router.post(SessionRoutes.open, use: open)
        router.post(SessionRoutes.close, use: close)
    }

    @Sendable func list(_ request: Request, context: AppRequestContext) async throws -> SessionList {
        let (course, access) = try await access.course(in: context)
        let tallies = try await sessions.tallies(courseID: course.id)
        let list = try await sessions.list(courseID: course.id)
        return SessionList(sessions: list.map { SessionView($0, tally: tallies[$0.id] ?? .init(), access: access) })
    }

    @Sendable func create(_ request: Request, context: AppRequestContext) async throws -> Response {
        let course = try await access.course(in: context, needing: .manage).0
        let input = try await request.decodeJSON(as: NewSession.self, context: context)
        let settings = try check { () throws(RuleViolation) in
            try (input.settings ?? SessionSettingsDraft()).validated()
        }
        let now = Date()
        let scheduledAt = try input.scheduledAt.nonBlank.map { text in
            guard let date = Date(isoText: text) else {
                throw AppError(
                    .badRequest, "invalid_scheduled_at",
                    "“scheduledAt” must be a date and time such as 2026-09-01T09:00:00Z."
                )
            }
            return date
        }
        let title =
            try input.title.nonBlank.map { raw in
                try check { () throws(RuleViolation) in try AccountRules.name(raw, field: "title") }
            } ?? Self.defaultTitle(for: scheduledAt ?? now)
        let openNow = scheduledAt.map { $0 <= now } ?? true
        let session = try await sessions.create(
            courseID: course.id, title: title, settings: settings, scheduledAt: scheduledAt, openNow: openNow,
            now: now
        )
        return try SessionEnvelope(session: SessionView(session, tally: .init(), access: .manage)).response(
            from: request, context: context, status: .created
        )
    }

    static func defaultTitle(for date: Date) -> String {
        "Session of " + date.formatted(.dateTime.year().month(.abbreviated).day().hour().minute())
    }

    /// The session and what the person may do with its course.
    func session(_ context: AppRequestContext) async throws -> (ClassSession, CourseAccess, Course) {
        let found = try await access.session(in: context)
        return (found.session, found.access, found.course)
    }

    func tally(_ session: ClassSession) async throws -> SessionTally {
        try await sessions.tallies(courseID: session.courseId)[session.id] ?? .init()
    }

    @Sendable func show(_ request: Request, context: AppRequestContext) async throws -> SessionEnvelope {
        let (session, access, _) = try await session(context)
        return SessionEnvelope(session: SessionView(session, tally: try await tally(session), access: access))
    }

    @Sendable func open(_ request: Request, context: AppRequestContext) async throws -> SessionEnvelope {
        let (session, access, _) = try await session(context)
        guard access == .manage else { throw AppError.forbidden("Only the course's teacher can open a session.") }
        let opened = try await sessions.open(id: session.id)
        return SessionEnvelope(session: SessionView(opened, tally: try await tally(opened), access: access))
    }

    @Sendable func close(_ request: Request, context: AppRequestContext) async throws -> SessionEnvelope {
        let (session, access, course) = try await session(context)
        guard access == .manage else { throw AppError.forbidden("Only the course's teacher can close a session.") }
        let closed = try await sessions.close(
            id: session.id, markAbsentBy: course.markAbsentOnClose ? try context.requireUser().id : nil)
        return SessionEnvelope(session: SessionView(closed, tally: try await tally(closed), access: access))
    }
}
