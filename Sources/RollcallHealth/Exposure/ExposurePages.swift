import Foundation
import Hummingbird
import RollcallCore
import RollcallModel
import RollcallParts
import RollcallWeb
import RollcallWords

/// The health officer's pages: the form that runs a report, and a report to read, download or print.
struct ExposurePages: Sendable {
    let reports: ExposureReports
    let exposure: ExposureStore
    /// How long evidence is kept: a report reaches no further back.
    let evidenceDays: Int
    /// The clock reports are made by (a test's may stand still).
    let clock: @Sendable () -> Date
    let pages: PageRenderer

    func addRoutes(to router: Router<AppRequestContext>) {
        router.get(ExposureRoutes.exposurePage, use: form)
        router.get(ExposureRoutes.reportPage, use: report)
    }

    @Sendable func form(_ request: Request, context: AppRequestContext) async throws -> Response {
        let officer = try AccessRule.officer(context)
        let reader = context.reader
        let time = officer.timeText(in: reader)
        let earlier = try await exposure.list(by: officer.id, limit: 20).map { entry in
            ExposurePage.Earlier(
                id: entry.id, personName: entry.personName, when: time.moment(entry.createdAt),
                window: "\(time.day(entry.windowFrom)) – \(time.day(entry.windowUntil))")
        }
        let page = ExposurePage(
            defaultDays: min(Exposure.defaultDays, evidenceDays), maxDays: evidenceDays,
            keptText: reader.say(
                evidenceDays,
                one: "Rollcall keeps what a report needs for {0} day; a window cannot reach further back.",
                other: "Rollcall keeps what a report needs for {0} days; a window cannot reach further back."),
            today: time.isoDay(clock()), earlier: earlier, noEarlier: earlier.isEmpty)
        return try pages.render(page, title: "Exposure report · Rollcall", context: context)
    }

    @Sendable func report(_ request: Request, context: AppRequestContext) async throws -> Response {
        let entry = try await reports.own(context)
        let reader = context.reader
        let report = try await reports.report(entry, now: clock(), in: reader)
        return try pages.render(
            ExposureReportPage(report, time: try context.requireUser().timeText(in: reader), in: reader),
            title: "Exposure report: \(report.person.name) · Rollcall", context: context)
    }
}

/// The form that runs a report, and the officer's earlier reports.
struct ExposurePage: PageModel {
    static let template = "exposure"

    struct Earlier: Sendable {
        var id: Int64
        var personName: String
        var when: String
        var window: String
    }

    var defaultDays: Int
    var maxDays: Int
    var keptText: String
    var today: String
    var earlier: [Earlier]
    var noEarlier: Bool
}

/// A report as the page draws it.
struct ExposureReportPage: PageModel {
    static let template = "exposure-report"

    struct Contact: Sendable {
        var rank: Int
        var personId: Int64
        var name: String
        var totalMinutes: Int
        var sessions: Int
        var proximityMinutes: Int
        var evidence: String
    }
    struct PhoneContact: Sendable {
        var personId: Int64
        var name: String
        var minutes: Int
        var when: String
    }
    struct SessionRow: Sendable {
        var sessionId: Int64
        var course: String
        var title: String
        var room: String
        var when: String
        var arrived: String
        var contacts: [SessionContact]
        var noContacts: Bool
    }
    struct SessionContact: Sendable {
        var personId: Int64
        var name: String
        var minutes: Int
    }

    var id: Int64
    var personName: String
    var requestedByName: String
    var reason: String
    var window: String
    var createdAt: String
    var method: String
    var contacts: [Contact]
    var noContacts: Bool
    /// How many contacts, in words, and how many shared 15 minutes or more.
    var contactTotal: String
    var sessions: [SessionRow]
    var noSessions: Bool
    var phones: [PhoneContact]
    var noPhones: Bool
    /// Where the request for the person's phone encounters stands, in words; `nil` before any.
    var phoneRequest: String?

    /// The shared time from which a contact counts as close in the total, as public-health guidance often does.
    static let closeMinutes = 15

    /// `time`: the officer's zone; a report spans courses, each of which may have its own.
    init(_ report: ExposureReport, time: TimeText, in reader: Reader) {
        id = report.id
        personName = report.person.name
        requestedByName = report.requestedBy.name
        reason = report.reason
        window = "\(time.moment(report.from)) – \(time.momentWithZone(report.until))"
        createdAt = time.moment(report.createdAt)
        method = report.method
        contacts = report.contacts.enumerated().map { index, contact in
            Contact(
                rank: index + 1, personId: contact.personId, name: contact.name, totalMinutes: contact.totalMinutes,
                sessions: contact.sessions, proximityMinutes: contact.proximityMinutes,
                evidence: ExposureReport.both(
                    contact.evidence.map { $0 == .attendance ? reader.say("attendance") : reader.say("phones") },
                    in: reader))
        }
        phones = report.phones.map { phone in
            PhoneContact(
                personId: phone.personId, name: phone.name, minutes: phone.minutes,
                when: time.isoDay(phone.firstSeen) == time.isoDay(phone.lastSeen)
                    ? "\(time.moment(phone.firstSeen)) – \(time.time(phone.lastSeen))"
                    : "\(time.moment(phone.firstSeen)) – \(time.moment(phone.lastSeen))")
        }
        noPhones = phones.isEmpty
        phoneRequest = report.phoneRequest.map { request in
            if let answered = request.answeredAt {
                return reader.say(
                    "Asked \(time.moment(request.requestedAt)); \(report.person.name) uploaded \(time.moment(answered))."
                )
            }
            return reader.say(
                "Asked \(time.moment(request.requestedAt)); not uploaded yet. The report includes it once they do.")
        }
        noContacts = contacts.isEmpty
        let close = contacts.count { max($0.totalMinutes, $0.proximityMinutes) >= Self.closeMinutes }
        contactTotal = reader.say(
            contacts.count, one: "{0} contact, {1} of them for {2} minutes or more",
            other: "{0} contacts, {1} of them for {2} minutes or more", .number(close), .number(Self.closeMinutes))
        sessions = report.sessions.map { session in
            SessionRow(
                sessionId: session.sessionId, course: session.course, title: session.title, room: session.room ?? "—",
                when: "\(time.moment(session.openedAt)) – \(time.time(session.endedAt))",
                arrived: session.checkedInAt.map { reader.say("checked in \(time.time($0))") }
                    ?? reader.say("marked by hand"),
                contacts: session.contacts.map {
                    SessionContact(personId: $0.personId, name: $0.name, minutes: $0.minutes)
                },
                noContacts: session.contacts.isEmpty)
        }
        noSessions = sessions.isEmpty
    }
}
