import Foundation
import Hummingbird
import RollcallCore
import RollcallModel
import RollcallProtocol
import RollcallWeb
import RollcallWords

/// Sessions of a course: scheduling or opening one with its check-in settings, and closing it.
struct SessionsController: Sendable {
    let sessions: SessionStore
    let timetable: TimetableStore
    let access: AccessRule

    struct NewSession: Decodable {
        var title: String?
        /// When to open, as ISO-8601 text; absent or in the past means now.
        var scheduledAt: String?
        var settings: SessionSettingsDraft?
    }
    struct SessionEnvelope: Codable, ResponseEncodable {
        var session: SessionView
        /// Said when another session of the course is open too, so that students may check in to the wrong one.
        var warning: String?
    }
    struct SessionChanges: Decodable {
        var title: String?
        var scheduledAt: String?
        var settings: SessionSettingsDraft?
    }
    struct Extension: Decodable {
        var minutes: Int
    }
    struct Reopening: Decodable {
        var minutes: Int?
        var late: Bool?
    }
    struct CourseAudit: Codable, ResponseEncodable {
        var entries: [CourseAuditEntry]
    }
    struct NewSlot: Decodable {
        var weekday: Int
        var time: String
        var minutes: Int
        var title: String?
        /// The term's first and last days, `YYYY-MM-DD` in the course's time zone.
        var from: String
        var until: String
        /// Whether the term's weeks already past are scheduled too (as sessions that did not take place); by
        /// default the classes start from today.
        var pastWeeks: Bool?
        var settings: SessionSettingsDraft?
    }
    struct SlotAnswer: Codable, ResponseEncodable {
        var slot: TimetableEntry
        /// Sessions scheduled for the term.
        var sessions: Int
    }
    struct Timetable: Codable, ResponseEncodable {
        var slots: [TimetableEntry]
    }

    /// Minutes a session may be extended or reopened by at once.
    static let extraMinutes = 1...240
    struct SessionList: Codable, ResponseEncodable {
        var sessions: [SessionView]
        /// The course's sessions in all, of which `sessions` is a page.
        var total: Int
    }

    /// Sessions in one page of the list.
    static let pageSizes = 1...500

    func addRoutes(to router: Router<AppRequestContext>) {
        router.get(SessionRoutes.courseSessions, use: list)
        router.post(SessionRoutes.courseSessions, use: create)
        router.get(SessionRoutes.session, use: show)
        router.post(SessionRoutes.open, use: open)
        router.post(SessionRoutes.close, use: close)
        router.patch(SessionRoutes.session, use: edit)
        router.delete(SessionRoutes.session, use: delete)
        router.post(SessionRoutes.extend, use: extend)
        router.post(SessionRoutes.reopen, use: reopen)
        router.get(SessionRoutes.courseAudit, use: courseAudit)
        router.get(SessionRoutes.timetable, use: listTimetable)
        router.post(SessionRoutes.timetable, use: addSlot)
        router.delete(SessionRoutes.timetableSlot, use: removeSlot)
    }

    @Sendable func listTimetable(_ request: Request, context: AppRequestContext) async throws -> Timetable {
        let course = try await access.course(in: context, needing: .manage).0
        return Timetable(slots: try await timetable.list(courseID: course.id))
    }

    /// A weekly slot: the term's sessions are scheduled at once, each opening by itself at its time.
    @Sendable func addSlot(_ request: Request, context: AppRequestContext) async throws -> Response {
        let course = try await access.course(in: context, needing: .manage, changing: true).0
        let input = try await request.decodeJSON(as: NewSlot.self, context: context)
        let slot = TimetableSlot(weekday: input.weekday, time: input.time, minutes: input.minutes)
        let from = try Self.day(input.from, field: "from", in: course.zone)
        let until = try Self.day(input.until, field: "until", in: course.zone)
        let starts = try check { () throws(RuleViolation) in
            try TimetableSlot.toSchedule(
                try slot.starts(from: from, until: until, in: course.zone), minutes: input.minutes,
                pastWeeks: input.pastWeeks ?? false, now: Date())
        }
        let defaults = try course.defaults()
        let settings = try check { () throws(RuleViolation) in
            var draft = (input.settings ?? SessionSettingsDraft()).filling(from: defaults)
            draft.openMinutes = input.minutes
            draft.lateAfterMinutes = draft.lateAfterMinutes.map { min($0, input.minutes) }
            return try draft.validated()
        }
        let title = try Self.title(input.title) ?? "Class"
        let added = try await timetable.add(
            courseID: course.id, slot: slot, title: title, starts: starts, from: from, until: until,
            settings: settings)
        return try SlotAnswer(slot: added.entry, sessions: added.sessions).response(
            from: request, context: context, status: .created)
    }

    @Sendable func removeSlot(_ request: Request, context: AppRequestContext) async throws -> Response {
        let course = try await access.course(in: context, needing: .manage, changing: true).0
        guard
            try await timetable.remove(
                courseID: course.id, slotID: try context.id("slotID", .timetableSlotNotFound, "timetable slot"))
        else { throw AppError.notFound(.timetableSlotNotFound, "timetable slot") }
        return Response(status: .noContent)
    }

    /// A calendar day, `YYYY-MM-DD`, as its first instant in `zone`.
    static func day(_ text: String, field: String, in zone: TimeZone) throws -> Date {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false).map { Int($0) }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zone
        guard parts.count == 3, text.count == 10, let year = parts[0], let month = parts[1], let day = parts[2],
            let date = calendar.date(from: DateComponents(year: year, month: month, day: day)),
            calendar.component(.day, from: date) == day, calendar.component(.month, from: date) == month
        else {
            throw AppError.invalid(
                RuleViolation(field: field, message: "Give “\(field)” as a date such as 2026-09-01."))
        }
        return date
    }

    @Sendable func list(_ request: Request, context: AppRequestContext) async throws -> SessionList {
        let (course, access) = try await access.course(in: context)
        let tallies = try await sessions.tallies(courseID: course.id)
        let limit = try Self.number(request.query("limit"), in: Self.pageSizes, code: .invalidLimit, name: "limit")
        let offset = try Self.number(request.query("offset"), in: 0...Int.max, code: .invalidOffset, name: "offset")
        let list = try await sessions.list(courseID: course.id)
        let page = list.dropFirst(offset ?? 0).prefix(limit ?? Self.pageSizes.upperBound)
        return SessionList(
            sessions: page.map {
                SessionView($0, tally: tallies[$0.id] ?? .init(), access: access, in: context.reader)
            }, total: list.count)
    }

    /// A whole number from the query within `range`, or `nil` when absent.
    static func number(_ text: String?, in range: ClosedRange<Int>, code: ErrorCode, name: String) throws -> Int? {
        guard let text else { return nil }
        guard let number = Int(text), range.contains(number) else {
            throw AppError(
                .badRequest, code,
                range.upperBound == Int.max
                    ? "“\(name)” must be a whole number from \(range.lowerBound)."
                    : "“\(name)” must be a whole number from \(range.lowerBound) to \(range.upperBound).")
        }
        return number
    }

    @Sendable func create(_ request: Request, context: AppRequestContext) async throws -> Response {
        let course = try await access.course(in: context, needing: .manage, changing: true).0
        let input = try await request.decodeJSON(as: NewSession.self, context: context)
        let defaults = try course.defaults()
        let settings = try check { () throws(RuleViolation) in
            try (input.settings ?? SessionSettingsDraft()).filling(from: defaults).validated()
        }
        let now = Date()
        let scheduledAt = try input.scheduledAt.nonBlank.map(Self.date)
        let typed = try Self.title(input.title)
        // A title Rollcall makes is kept as a key and said in each reader's language; its English stays in `title`.
        let english = TimeText(zone: course.zone, locale: TimeText.english)
        let made: Phrase = "Session of \(english.moment(scheduledAt ?? now))"
        let title = typed ?? made.description
        let openNow = scheduledAt.map { $0 <= now } ?? true
        let session = try await sessions.create(
            courseID: course.id, title: title, settings: settings, scheduledAt: scheduledAt, openNow: openNow,
            now: now, titleKey: typed == nil ? ClassSession.defaultTitleKey : nil
        )
        return try SessionEnvelope(
            session: SessionView(session, tally: .init(), access: .manage, in: context.reader),
            warning: try await warning(for: session, in: context.reader)
        ).response(from: request, context: context, status: .created)
    }

    static func date(_ text: String) throws -> Date {
        guard let date = Date(isoText: text) else {
            throw AppError(
                .badRequest, .invalidScheduledAt,
                "“scheduledAt” must be a date and time such as 2026-09-01T09:00:00Z."
            )
        }
        return date
    }

    static func title(_ text: String?) throws -> String? {
        try text.nonBlank.map { raw in
            try check { () throws(RuleViolation) in try AccountRules.name(raw, field: "title") }
        }
    }

    /// A sentence when the session is open beside another of its course's.
    func warning(for session: ClassSession, in reader: Reader) async throws -> String? {
        guard session.phase(at: Date()) == .open,
            let other = try await sessions.openSessions(courseID: session.courseId, except: session.id).first
        else { return nil }
        return reader.say(
            "“\(other.title(in: reader))” is still open in this course too: students may check in to the wrong session. Close it if it is over."
        )
    }

    /// The session and what the person may do with its course.
    func session(_ context: AppRequestContext, changing: Bool = false) async throws
        -> (ClassSession, CourseAccess, Course)
    {
        let found = try await access.session(in: context, changing: changing)
        return (found.session, found.access, found.course)
    }

    func tally(_ session: ClassSession) async throws -> SessionTally {
        try await sessions.tallies(courseID: session.courseId)[session.id] ?? .init()
    }

    @Sendable func show(_ request: Request, context: AppRequestContext) async throws -> SessionEnvelope {
        let (session, access, _) = try await session(context)
        return SessionEnvelope(
            session: SessionView(session, tally: try await tally(session), access: access, in: context.reader))
    }

    @Sendable func open(_ request: Request, context: AppRequestContext) async throws -> SessionEnvelope {
        let (session, access, _) = try await session(context, changing: true)
        guard access == .manage else { throw AppError.forbidden("Only the course's teacher can open a session.") }
        let opened = try await sessions.open(id: session.id)
        return SessionEnvelope(
            session: SessionView(opened, tally: try await tally(opened), access: access, in: context.reader),
            warning: try await warning(for: opened, in: context.reader))
    }

    @Sendable func close(_ request: Request, context: AppRequestContext) async throws -> SessionEnvelope {
        let (session, access, course) = try await session(context, changing: true)
        guard access == .manage else { throw AppError.forbidden("Only the course's teacher can close a session.") }
        let closed = try await sessions.close(
            id: session.id, markAbsentBy: course.markAbsentOnClose ? try context.requireUser().id : nil)
        return SessionEnvelope(
            session: SessionView(closed, tally: try await tally(closed), access: access, in: context.reader))
    }

    /// The session named by the path, for the course's teacher.
    func managed(_ context: AppRequestContext, refusal: Phrase) async throws -> (ClassSession, Course) {
        let (session, access, course) = try await session(context)
        guard access == .manage else { throw AppError.forbidden(refusal) }
        try AccessRule.requireActive(course)
        return (session, course)
    }

    @Sendable func edit(_ request: Request, context: AppRequestContext) async throws -> SessionEnvelope {
        let (session, _) = try await managed(context, refusal: "Only the course's teacher can change a session.")
        let input = try await request.decodeJSON(as: SessionChanges.self, context: context)
        let changes = SessionEdit(
            title: try input.title.map { raw in
                try check { () throws(RuleViolation) in try AccountRules.name(raw, field: "title") }
            },
            scheduledAt: try input.scheduledAt.map(Self.date),
            settings: try input.settings.map { draft in
                try check { () throws(RuleViolation) in try draft.validated() }
            })
        let edited = try await sessions.edit(id: session.id, changes)
        return SessionEnvelope(
            session: SessionView(edited, tally: try await tally(edited), access: .manage, in: context.reader))
    }

    static func minutes(_ value: Int?, field: String) throws -> Int? {
        guard let value else { return nil }
        guard extraMinutes.contains(value) else {
            throw AppError(
                .badRequest, .invalidMinutes,
                "Give “\(field)” as \(extraMinutes.lowerBound) to \(extraMinutes.upperBound) minutes.")
        }
        return value
    }

    @Sendable func extend(_ request: Request, context: AppRequestContext) async throws -> SessionEnvelope {
        let (session, _) = try await managed(context, refusal: "Only the course's teacher can extend a session.")
        let input = try await request.decodeJSON(as: Extension.self, context: context)
        let extended = try await sessions.extend(
            id: session.id, minutes: try Self.minutes(input.minutes, field: "minutes") ?? 0)
        return SessionEnvelope(
            session: SessionView(extended, tally: try await tally(extended), access: .manage, in: context.reader))
    }

    @Sendable func reopen(_ request: Request, context: AppRequestContext) async throws -> SessionEnvelope {
        let (session, _) = try await managed(context, refusal: "Only the course's teacher can reopen a session.")
        let input = try await request.decodeJSON(as: Reopening.self, context: context)
        let reopened = try await sessions.reopen(
            id: session.id, minutes: try Self.minutes(input.minutes, field: "minutes") ?? 15, late: input.late ?? true)
        return SessionEnvelope(
            session: SessionView(reopened, tally: try await tally(reopened), access: .manage, in: context.reader),
            warning: try await warning(for: reopened, in: context.reader))
    }

    @Sendable func delete(_ request: Request, context: AppRequestContext) async throws -> Response {
        let (session, course) = try await managed(context, refusal: "Only the course's teacher can delete a session.")
        func count(_ name: String, _ code: ErrorCode, refusal: Phrase) throws -> Int {
            guard let text = request.query(name) else { return 0 }
            guard let count = Int(text), count >= 0 else {
                throw AppError(.badRequest, code, refusal)
            }
            return count
        }
        let confirmed = SessionContents(
            records: try count(
                "records", .invalidRecords,
                refusal: "“records” must be the number of attendance records the session holds, as a whole number."),
            attempts: try count(
                "attempts", .invalidAttempts,
                refusal: "“attempts” must be the number of quiz attempts the session holds, as a whole number."))
        try await sessions.delete(
            id: session.id, confirmed: confirmed, by: try context.requireUser(),
            time: course.timeText(in: context.reader))
        return Response(status: .noContent)
    }

    @Sendable func courseAudit(_ request: Request, context: AppRequestContext) async throws -> CourseAudit {
        let course = try await access.course(in: context, needing: .manage).0
        return CourseAudit(entries: try await sessions.courseAudit(courseID: course.id, in: context.reader))
    }
}
