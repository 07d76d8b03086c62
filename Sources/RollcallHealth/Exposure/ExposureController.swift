import Foundation
import Hummingbird
import RollcallCore
import RollcallModel
import RollcallWeb
import RollcallWords

/// Exposure reports: a health officer asks who shared a room with a person, every report is audited, the person
/// sees that a report about them was made, and an admin sees the audit.
struct ExposureController: Sendable {
    let exposure: ExposureStore
    let reports: ExposureReports
    let users: UserStore
    /// `ROLLCALL_EVIDENCE_DAYS`: how far back a report may reach.
    let evidenceDays: Int
    /// The clock reports are measured against; tests move it.
    var now: @Sendable () -> Date = { Date() }

    static let reasonLength = 3...500

    struct ReportRequest: Decodable {
        var personId: Int64?
        var email: String?
        var studentNumber: String?
        var reason: String?
        /// A whole number of days; read as a number so that `2.5` is refused as days, not as JSON.
        var days: Double?
        /// The last day of the window (`2026-09-14`) or a moment (`2026-09-14T12:00:00Z`); default now.
        var until: String?
    }
    struct ReportEnvelope: Codable, ResponseEncodable {
        var report: ExposureReport
    }
    struct AuditList: Codable, ResponseEncodable {
        var reports: [ExposureAuditEntry]
    }

    /// What a person sees of a report about them: that it was made, and when; not who asked, why, or what it found.
    struct Notice: Codable, Sendable {
        var createdAt: Date
    }
    struct Notices: Codable, ResponseEncodable {
        var reports: [Notice]
    }
    struct UserEnvelope: Codable, ResponseEncodable {
        var user: UserView
    }

    func addRoutes(to router: Router<AppRequestContext>) {
        router.post(ExposureRoutes.reports, use: run)
        router.get(ExposureRoutes.report, use: show)
        router.get(ExposureRoutes.reportCSV, use: csv)
        router.get(ExposureRoutes.audit, use: audit)
        router.get(ExposureRoutes.aboutMe, use: aboutMe)
        router.post(ExposureRoutes.grant, use: grant)
        router.delete(ExposureRoutes.grant, use: revoke)
    }

    /// Runs a report: checks every input, writes the audit entry, and answers the report.
    @Sendable func run(_ request: Request, context: AppRequestContext) async throws -> Response {
        let officer = try AccessRule.officer(context)
        let input = try await request.decodeJSON(as: ReportRequest.self, context: context)
        let reason = try check { () throws(RuleViolation) in try Self.reason(input.reason) }
        let person = try await person(input)
        let now = self.now()
        let until = try input.until.nonBlank.map { try Self.until($0, now: now) }
        let days = try input.days.map { try Self.days($0, retention: evidenceDays) }
        let window = try Self.window(until: until, days: days, days: evidenceDays, now: now)
        let entry = try await exposure.audit(
            requestedBy: officer.id, personID: person.id, reason: reason, window: window, now: now)
        return try ReportEnvelope(report: try await reports.report(entry, now: now, in: context.reader))
            .response(from: request, context: context, status: .created)
    }

    /// A report again, for the health officer who ran it, over the same window.
    @Sendable func show(_ request: Request, context: AppRequestContext) async throws -> ReportEnvelope {
        let entry = try await reports.own(context)
        return ReportEnvelope(report: try await reports.report(entry, now: now(), in: context.reader))
    }

    @Sendable func csv(_ request: Request, context: AppRequestContext) async throws -> Response {
        let entry = try await reports.own(context)
        let reader = context.reader
        let report = try await reports.report(entry, now: now(), in: reader)
        let zone = try context.requireUser().timeText(in: reader).zone
        return try CSVDownload.response(
            report.csv(zone: zone, in: reader), name: reader.say("exposure report \(entry.id)"), request: request)
    }

    @Sendable func audit(_ request: Request, context: AppRequestContext) async throws -> AuditList {
        _ = try AccessRule.admin(context)
        return AuditList(reports: try await exposure.list())
    }

    @Sendable func aboutMe(_ request: Request, context: AppRequestContext) async throws -> Notices {
        let user = try context.requireUser()
        return Notices(reports: try await exposure.list(about: user.id).map { Notice(createdAt: $0.createdAt) })
    }

    @Sendable func grant(_ request: Request, context: AppRequestContext) async throws -> UserEnvelope {
        try await setOfficer(context, true)
    }

    @Sendable func revoke(_ request: Request, context: AppRequestContext) async throws -> UserEnvelope {
        try await setOfficer(context, false)
    }

    private func setOfficer(_ context: AppRequestContext, _ granted: Bool) async throws -> UserEnvelope {
        let admin = try AccessRule.admin(context)
        guard let user = try await users.find(id: try context.id("userID", .userNotFound, "user")) else {
            throw AppError.notFound(.userNotFound, "user")
        }
        guard user.deletedAt == nil else {
            throw AppError.conflict(.accountDeleted, "This account was deleted; it cannot be given a role.")
        }
        // Exposure reports see who sat beside whom: a second person grants the role, unless nobody else could.
        if granted, user.id == admin.id, try await users.directory.hasOtherAdmin(than: admin.id) {
            throw AppError(
                .forbidden, .secondAdminRequired,
                "Another admin grants you the health-officer role: a second person is involved where there is one.")
        }
        try await users.setHealthOfficer(id: user.id, granted, by: admin)
        guard let changed = try await users.find(id: user.id) else { throw AppError.notFound(.userNotFound, "user") }
        return UserEnvelope(user: UserView(changed))
    }

    static func reason(_ raw: String?) throws(RuleViolation) -> String {
        let reason = (raw ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
        guard reasonLength.contains(reason.count) else {
            throw RuleViolation(
                field: "reason",
                message:
                    "Say why this report is needed (3 to 500 characters); the person and the admin can see a report was made."
            )
        }
        return reason
    }

    /// The person a report is about, named by exactly one of id, email or student number.
    func person(_ input: ReportRequest) async throws -> User {
        let email = input.email.nonBlank
        let number = input.studentNumber.nonBlank
        let given = [input.personId != nil, email != nil, number != nil].filter { $0 }.count
        guard given == 1 else {
            throw AppError(
                .badRequest, .invalidPerson,
                "Name the person by one of personId, email or student number.")
        }
        let found: User?
        if let id = input.personId {
            found = try await users.find(id: id)
        } else if let email {
            found = try await users.find(email: email.trimmingCharacters(in: .whitespaces).lowercased())
        } else {
            found = try await users.directory.find(studentNumber: number!.trimmingCharacters(in: .whitespaces))
        }
        guard let found, found.deletedAt == nil else {
            throw AppError(
                .notFound, .personNotFound, "Nobody with this id, email or student number has an account.")
        }
        return found
    }

    /// `until` as a moment: a day means the end of that day (UTC), or now for today; a day still to come is
    /// refused like a moment still to come.
    static func until(_ text: String, now: Date) throws -> Date {
        if let moment = RFC3339.moment(text) { return moment }
        if let day = RFC3339.day(text) {
            guard day <= now else {
                let refusal = ExposureWindow.Refusal.future
                throw AppError(.badRequest, refusal.code, refusal.message)
            }
            return min(day.addingTimeInterval(86_400 - 1), now)
        }
        throw AppError(
            .badRequest, .invalidUntil,
            "“until” must be a day such as 2026-09-14 or a moment with its offset such as 2026-09-14T12:00:00Z.")
    }

    /// `days` as a whole number; the range is the window's to check.
    static func days(_ number: Double, retention: Int) throws -> Int {
        guard let days = Int(exactly: number) else {
            let refusal = ExposureWindow.Refusal.days(maximum: retention)
            throw AppError(.badRequest, refusal.code, "\(refusal.message) Give a whole number of days.")
        }
        return days
    }

    static func window(until: Date?, days: Int?, days retention: Int, now: Date) throws -> ExposureWindow {
        do {
            return try ExposureWindow.make(until: until, days: days, retentionDays: retention, now: now)
        } catch {
            let status: HTTPResponse.Status =
                error == .future || error.code == .invalidDays ? .badRequest : .unprocessableContent
            throw AppError(status, error.code, error.message)
        }
    }
}
