import Foundation
import Hummingbird
import RollcallCore

/// The pages of checking in: the scanned link, the student's check-in page, and the projector.
struct CheckInPages: Sendable {
    let stores: Stores
    let checkInController: CheckInController
    let pages: PageRenderer

    func addRoutes(to router: Router<AppRequestContext>) {
        // Both cases: the QR code holds an upper-case link so it can use the compact alphanumeric mode.
        router.get("c/:code", use: scan)
        router.get("C/:code", use: scan)
        router.get("check-in/:ticket", use: checkInPage)
        router.get("sessions/:sessionID/projector", use: projector)
    }

    /// Opening the link in the QR code records the scan at once, before anything else can make the code expire.
    @Sendable func scan(_ request: Request, context: AppRequestContext) async throws -> Response {
        let code = context.parameters.get("code") ?? ""
        do {
            let ticket = try await checkInController.scan(code: code, studentID: context.user?.id, now: Date())
            return .redirect(to: "/check-in/\(ticket)", type: .found)
        } catch let error as AppError {
            return try pages.render(
                "check-in-refused", title: "Check-in · Rollcall", data: ["message": error.message, "code": error.code],
                context: context, status: error.status
            )
        }
    }

    @Sendable func checkInPage(_ request: Request, context: AppRequestContext) async throws -> Response {
        let token = context.parameters.get("ticket") ?? ""
        guard let user = context.user else {
            return .redirect(to: "/sign-in?next=%2Fcheck-in%2F\(token)", type: .found)
        }
        guard let ticket = try await stores.checkIns.ticket(token),
            let session = try await stores.sessions.find(id: ticket.sessionId)
        else {
            return try pages.render(
                "check-in-refused", title: "Check-in · Rollcall",
                data: ["message": CheckInRefusal(.invalidCode).message, "code": CheckInError.invalidCode.code],
                context: context, status: .notFound
            )
        }
        let course = try await stores.courses.find(id: session.courseId)
        let verification = try await stores.passkeys.policy(courseID: session.courseId)
        let data: [String: Any] = [
            "needsPasskey": verification.required,
            "ticket": token, "sessionTitle": session.title, "courseName": course?.name ?? "",
            "needsLocation": session.settings.geofence != nil, "isStudent": user.role == .student,
            "expiresAt": ISO8601DateFormatter().string(from: ticket.expiresAt),
        ]
        return try pages.render("check-in", title: "Check in · Rollcall", data: data, context: context)
    }

    @Sendable func projector(_ request: Request, context: AppRequestContext) async throws -> Response {
        let user = try context.requireUser()
        guard let session = try await stores.sessions.find(id: try context.id("sessionID", "session")) else {
            throw AppError.notFound("session")
        }
        let course = try await stores.managedCourse(session.courseId, for: user)
        let data: [String: Any] = [
            "id": session.id, "title": session.title, "courseName": course.name, "courseId": course.id,
        ]
        return try pages.render(
            "projector", title: "\(session.title) · Projector", data: data, context: context, layout: "bare"
        )
    }
}
