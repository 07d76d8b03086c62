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
        let counts = try await sessions.attendanceCounts(courseID: course.id)[session.id] ?? [:]
        let phase = session.phase(at: Date())
        let settings = session.settings
        let flags: [[String: String]] =
            access == .manage
            ? try await checkIns.flags(sessionID: session.id).map { flag in
                ["detail": flag.detail, "when": flag.createdAt.pageText]
            } : []
        let verifications = access == .manage ? try await passkeys.verifications(sessionID: session.id) : []
        var data: [String: Any] = [
            "verifications": verifications.map(\.pageRow), "hasVerifications": !verifications.isEmpty,
            "id": session.id, "title": session.title, "courseId": course.id, "courseName": course.name,
            "phase": phase.rawValue, "isOpen": phase == .open, "isScheduled": phase == .scheduled,
            "manage": access == .manage, "facts": Self.facts(settings), "flags": flags, "hasFlags": !flags.isEmpty,
            "projector": access == .manage && phase == .open && settings.mode != .spot,
            "opened": session.openedAt?.pageText ?? "", "closes": session.closesAt?.pageText ?? "",
            "present": counts[.present] ?? 0, "late": counts[.late] ?? 0,
        ]
        if access == .manage {
            data.merge(RecordPages.auditData(try await records.audit(sessionID: session.id))) { $1 }
            let room = try await rooms.room(sessionID: session.id, courseID: course.id)
            data["room"] = RoomView(room, phase: phase)
        }
        return try pages.render("session", title: "\(session.title) · Rollcall", data: data, context: context)
    }

    /// The session's settings in words, for students and teacher alike.
    static func facts(_ settings: SessionSettings) -> [[String: String]] {
        var facts: [[String: String]] = [
            ["label": "Check-in", "value": settings.mode.pageText],
            ["label": "Open for", "value": "\(settings.openMinutes) minutes"],
            ["label": "Late after", "value": settings.lateAfterMinutes.map { "\($0) minutes" } ?? "never"],
        ]
        if settings.mode != .spot {
            facts.append(["label": "Code changes every", "value": "\(settings.period) s (grace \(settings.grace))"])
        }
        if let fence = settings.geofence {
            facts.append([
                "label": "Location",
                "value": String(
                    format: "within %.0f m of %.5f, %.5f", fence.radius, fence.center.latitude, fence.center.longitude),
            ])
        }
        if !settings.allowedNetworks.isEmpty {
            facts.append([
                "label": "Networks", "value": settings.allowedNetworks.map(\.description).joined(separator: ", "),
            ])
        }
        return facts
    }
}
