import Foundation
import Hummingbird
import RollcallCore
import RollcallModel
import RollcallWeb
import RollcallWords

/// The pages of checking in: the scanned link, the student's check-in page, and the projector.
struct CheckInPages: Sendable {
    let desk: CheckInDesk
    let sessions: SessionStore
    let passkeys: PasskeyStore
    let access: AccessRule
    let pages: PageRenderer

    func addRoutes(to router: Router<AppRequestContext>) {
        router.get(CheckInRoutes.scan, use: scan)
        router.get(CheckInRoutes.scanUpperCase, use: scan)
        router.get(CheckInRoutes.checkInPage, use: checkInPage)
        router.get(CheckInRoutes.projectorPage, use: projector)
    }

    /// A scan as a native client reads it: the ticket, when it runs out, and the session it is for.
    struct ScanAnswer: Codable, ResponseEncodable {
        struct Session: Codable {
            var id: Int64
            var title: String
            var courseName: String
        }
        var ticket: String
        var expiresAt: Date
        var session: Session

        /// Written by hand: every student of a room asks for it at once.
        func response(status: HTTPResponse.Status) -> Response {
            var json = JSONWriter()
            json.field("ticket", ticket)
            json.field("expiresAt", expiresAt)
            json.object("session") { inner in
                inner.field("id", session.id)
                inner.field("title", session.title)
                inner.field("courseName", session.courseName)
            }
            return json.response(status: status)
        }
    }

    /// Opening the link in the QR code records the scan at once, before anything else can make the code expire. A
    /// phone's browser is sent on to the check-in page; a program (bearer token, or JSON asked for) gets the ticket.
    @Sendable func scan(_ request: Request, context: AppRequestContext) async throws -> Response {
        let code = context.parameters.get("code") ?? ""
        if request.wantsJSON { return try await scanAnswer(code: code, request: request, context: context) }
        do {
            let scan = try await desk.scan(code: code, studentID: context.user?.id, now: Date())
            return .redirect(to: CheckInRoutes.checkInPage(ticket: scan.ticket), type: .found)
        } catch let refusal as CheckInRefusal {
            let error = AppError(domain: refusal)!
            return try pages.render(
                CheckInRefusedPage(message: error.message(to: context.reader), code: error.code),
                title: "Check-in · Rollcall",
                context: context, status: error.status, framing: .launch)
        }
    }

    private func scanAnswer(code: String, request: Request, context: AppRequestContext) async throws -> Response {
        let scan = try await desk.scan(code: code, studentID: context.user?.id, now: Date())
        return ScanAnswer(
            ticket: scan.ticket, expiresAt: scan.expiresAt,
            session: .init(
                id: scan.session.id, title: scan.session.title(in: context.reader), courseName: scan.session.courseName)
        ).response(status: .ok)
    }

    @Sendable func checkInPage(_ request: Request, context: AppRequestContext) async throws -> Response {
        let token = context.parameters.get("ticket") ?? ""
        guard let user = context.user else {
            return .redirect(to: AccountRoutes.signIn(next: CheckInRoutes.checkInPage(ticket: token)), type: .found)
        }
        guard let ticket = try await desk.tickets.read(token),
            let session = try await sessions.find(id: ticket.sessionId)
        else {
            let refusal = CheckInRefusal(.invalidCode)
            return try pages.render(
                CheckInRefusedPage(message: context.reader.say(refusal.message), code: refusal.code.rawValue),
                title: "Check-in · Rollcall",
                context: context, status: .notFound, framing: .launch)
        }
        let verification = try await passkeys.policy(courseID: session.courseId)
        let page = CheckInPage(
            ticket: token, sessionTitle: session.title(in: context.reader), courseName: session.courseName,
            needsLocation: session.settings.geofence != nil, needsPasskey: verification.required,
            isStudent: user.role == .student, expiresAt: ISO8601DateFormatter().string(from: ticket.expiresAt))
        // The deadline and the answer's time on the course's clock, as the course's other pages write them.
        let zone = try await access.courses.find(id: session.courseId)?.timeText(in: context.reader)
        return try pages.render(page, title: "Check in · Rollcall", context: context, zone: zone, framing: .launch)
    }

    @Sendable func projector(_ request: Request, context: AppRequestContext) async throws -> Response {
        let (session, course, _) = try await access.session(in: context, needing: .manage)
        let title = session.title(in: context.reader)
        let page = ProjectorPage(
            id: session.id, title: title, courseName: course.name, courseId: course.id,
            joinCode: course.joinFromScan ? course.joinCode : nil, typedOnly: session.settings.mode == .typed)
        return try pages.render(page, title: "\(title) · Projector", context: context, layout: "bare")
    }
}

/// A scanned link or ticket that cannot check anyone in, and what to do instead.
struct CheckInRefusedPage: PageModel {
    static let template = "check-in-refused"
    var message: String
    var code: String
}

/// The student's check-in page, reached from a scan with its ticket.
struct CheckInPage: PageModel {
    static let template = "check-in"
    var ticket: String
    var sessionTitle: String
    var courseName: String
    var needsLocation: Bool
    var needsPasskey: Bool
    var isStudent: Bool
    /// When the ticket runs out, for the page's countdown.
    var expiresAt: String
}

/// The projector page; `projector.js` fills it from the live feed.
struct ProjectorPage: PageModel {
    static let template = "projector"
    var id: Int64
    var title: String
    var courseName: String
    var courseId: Int64
    /// Shown where the course takes students from class, for those not on the roster yet.
    var joinCode: String?
    /// A session without a QR code: the typed code is the centre of the screen.
    var typedOnly: Bool
}
