import Foundation
import Hummingbird
import RollcallCore

/// A session's page: its settings and records for students; the live room, flags and audit log for its teacher.
struct SessionPage: Sendable {
    let sessions: SessionStore
    let checkIns: CheckInStore
    let passkeys: PasskeyStore
    let records: RecordStore
    let rooms: RoomStore
    let access: AccessRule
    let pages: PageRenderer

    func addRoutes(to router: Router<AppRequestContext>) {
        router.get(SessionRoutes.sessionPage, use: session)
    }

    @Sendable func session(_ request: Request, context: AppRequestContext) async throws -> Response {
        let (session, course, access) = try await self.access.session(in: context)
        let counts = (try await sessions.tallies(courseID: course.id)[session.id] ?? .init()).counted
        let phase = session.phase(at: Date())
        var page = SessionPageModel(
            id: session.id, title: session.title, courseId: course.id, courseName: course.name,
            phase: phase.rawValue, isOpen: phase == .open, isScheduled: phase == .scheduled,
            opened: session.openedAt?.pageText ?? "", closes: session.closesAt?.pageText ?? "",
            present: counts[.present] ?? 0, late: counts[.late] ?? 0, facts: Self.facts(session.settings))
        if access == .manage {
            let flags = try await checkIns.flags(sessionID: session.id).map { flag in
                SessionPageModel.FlagRow(detail: flag.detail, when: flag.createdAt.pageText)
            }
            let verifications = try await passkeys.verifications(sessionID: session.id).map(\.pageRow)
            page.manage = true
            page.projector = phase == .open && session.settings.mode != .spot
            page.flags = flags
            page.hasFlags = !flags.isEmpty
            page.verifications = verifications
            page.hasVerifications = !verifications.isEmpty
            page.auditLog = AuditLogView(try await records.audit(sessionID: session.id))
            page.room = RoomView(try await rooms.room(sessionID: session.id, courseID: course.id), phase: phase)
        }
        return try pages.render(page, title: "\(session.title) · Rollcall", context: context)
    }

    /// The session's settings in words, for students and teacher alike.
    static func facts(_ settings: SessionSettings) -> [SessionPageModel.Fact] {
        var facts: [SessionPageModel.Fact] = [
            .init(label: "Check-in", value: settings.mode.pageText),
            .init(label: "Open for", value: "\(settings.openMinutes) minutes"),
            .init(label: "Late after", value: settings.lateAfterMinutes.map { "\($0) minutes" } ?? "never"),
        ]
        if settings.mode != .spot {
            facts.append(.init(label: "Code changes every", value: "\(settings.period) s (grace \(settings.grace))"))
        }
        if let fence = settings.geofence {
            let place = String(
                format: "within %.0f m of %.5f, %.5f", fence.radius, fence.center.latitude, fence.center.longitude)
            facts.append(.init(label: "Location", value: place))
        }
        if !settings.allowedNetworks.isEmpty {
            let networks = settings.allowedNetworks.map(\.description).joined(separator: ", ")
            facts.append(.init(label: "Networks", value: networks))
        }
        return facts
    }
}

/// What a session's page shows: its settings and counts for everyone; the room, flags, passkey evidence and
/// audit log for its teacher.
struct SessionPageModel: PageModel {
    static let template = "session"

    struct Fact: Sendable {
        var label: String
        var value: String
    }

    struct FlagRow: Sendable {
        var detail: String
        var when: String
    }

    var id: Int64
    var title: String
    var courseId: Int64
    var courseName: String
    var phase: String
    var isOpen: Bool
    var isScheduled: Bool
    var opened: String
    var closes: String
    var present: Int
    var late: Int
    var facts: [Fact]
    var manage = false
    var projector = false
    var flags: [FlagRow] = []
    var hasFlags = false
    var verifications: [CheckInVerificationRecord.PageRow] = []
    var hasVerifications = false
    var auditLog: AuditLogView?
    var room: RoomView?
}
