import Foundation
import Hummingbird
import RollcallCore
import RollcallModel
import RollcallWeb
import RollcallWords

/// A session's page: for a student, their own status, how it came to be and the changes made to it; for its
/// teacher, the live room, flags and audit log. Never the geofence's centre or the grace to a student: both help
/// whoever wants to fake a location or a code.
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
        let phase = session.phase(at: Date())
        let reader = context.reader
        let time = course.timeText(in: reader)
        var page = SessionPageModel(
            id: session.id, title: session.title(in: reader), courseId: course.id, courseName: course.name,
            phase: session.badge(at: Date()), phaseText: session.badgeText(at: Date(), in: reader),
            isOpen: phase == .open, isScheduled: phase == .scheduled,
            timing: Self.timing(session, phase: phase, time: time, in: reader),
            facts: Self.facts(session.settings, forTeacher: access == .manage, in: reader))
        page.courseLang = course.contentLang(for: reader)
        page.titleLang = session.defaultTitle == nil ? course.contentLang(for: reader) : nil
        if access == .attend, let user = context.user, user.role == .student {
            page.mine = try await mine(
                session, course: course, studentID: user.id, phase: phase, time: time, in: reader)
        }
        if access != .attend {
            let stored = try await checkIns.flags(sessionID: session.id)
            let flags = stored.map { flag in
                SessionPageModel.FlagRow(detail: reader.say(flag.words), when: time.moment(flag.createdAt))
            }
            page.refusedSummary = Self.refusedSummary(stored, in: reader)
            let verifications = try await passkeys.verifications(sessionID: session.id).map {
                $0.pageRow(time, in: reader)
            }
            page.manage = true
            page.projector = phase == .open && session.settings.mode != .spot
            page.flags = flags
            page.hasFlags = !flags.isEmpty
            page.verifications = verifications
            page.hasVerifications = !verifications.isEmpty
            page.auditLog = AuditLogView(
                try await records.audit(sessionID: session.id, in: reader), time: time, in: reader)
            page.room = RoomView(
                try await rooms.room(
                    sessionID: session.id, courseID: course.id, proximity: session.settings.countsProximity,
                    in: reader),
                phase: phase, time: time, countsProximity: session.settings.countsProximity, in: reader)
            page.batches = Self.batchRows(try await records.batches(sessionID: session.id), time: time, in: reader)
            page.hasBatches = !page.batches.isEmpty
            // An assistant marks attendance in the room; correcting the session is the teachers'.
            if access == .manage { page.corrections = try await corrections(session, phase: phase, in: reader) }
            page.missed = access == .manage && session.missed(at: Date())
            page.assistant = access == .assist
        }
        return try pages.render(
            page, title: "\(session.title(in: reader)) · Rollcall", context: context, zone: time, framing: .launch)
    }

    /// What the teacher may correct now, and what deleting would take with it.
    private func corrections(_ session: ClassSession, phase: SessionPhase, in reader: Reader) async throws
        -> SessionPageModel.Corrections
    {
        let title = session.title(in: reader)
        let contents = try await sessions.contents(id: session.id)
        let other =
            phase == .open ? try await sessions.openSessions(courseID: session.courseId, except: session.id).first : nil
        let deleteQuestion =
            contents.records == 0 && contents.attempts == 0
            ? reader.say("Delete “\(title)”? Nothing was recorded in it.")
            : reader.say(
                "Delete “\(title)” and its \(contents.phrase)? The course's audit log keeps a line of it; they cannot be brought back."
            )
        return SessionPageModel.Corrections(
            id: session.id, title: title, isClosed: phase == .closed,
            scheduledSettings: phase == .scheduled
                ? SettingsForm(SettingsForm.draft(session.settings), in: reader) : nil,
            records: contents.records, attempts: contents.attempts,
            recordsText: contents.records == 0 && contents.attempts == 0
                ? reader.say("Nothing recorded goes with it.")
                : reader.say(
                    contents.records + contents.attempts, one: "{1} goes with it.", other: "{1} go with it.",
                    .phrase(contents.phrase)),
            deleteQuestion: deleteQuestion,
            deleteLabel: phase == .scheduled ? reader.say("Cancel this session") : reader.say("Delete this session"),
            otherOpen: other.map {
                reader.say(
                    "“\($0.title(in: reader))” is still open in this course too: students may check in to the wrong session."
                )
            },
            otherOpenId: other?.id)
    }

    /// The student's own standing in the session: the status it counts with, how it came to be, and the changes
    /// a teacher made to it.
    private func mine(
        _ session: ClassSession, course: Course, studentID: Int64, phase: SessionPhase, time: TimeText,
        in reader: Reader
    ) async throws -> SessionPageModel.Mine {
        let courseRecords = try await records.courseRecords(course, sessions: [session], in: reader)
        let record = courseRecords.records[session.id]?[studentID]
        let status = courseRecords.countedStatus(session: session, studentID: studentID)
        let changes = try await records.audit(courseID: course.id, studentID: studentID, in: reader).filter {
            $0.sessionId == session.id
        }
        return SessionPageModel.Mine(
            status: status?.rawValue ?? "pending",
            statusText: status?.pageText(in: reader) ?? reader.say("not checked in"),
            how: Self.how(record, status: status, phase: phase, time: time, in: reader),
            changes: AuditLogView(changes, time: time, in: reader),
            sessionId: session.id, sessionOpen: phase == .open)
    }

    /// The latest changes to many students, each undoable from the page, after a reload too; only the newest not
    /// undone offers Undo, as only it can be.
    static func batchRows(_ batches: [(batch: AttendanceBatch, by: String)], time: TimeText, in reader: Reader)
        -> [SessionPageModel.BatchRow]
    {
        let undoable = batches.first { $0.batch.undoneAt == nil }?.batch.id
        return batches.map { batch, by in
            let marked = reader.say(
                batch.changed, one: "{0} student marked {1}", other: "{0} students marked {1}",
                .phrase(batch.status.pagePhrase))
            return SessionPageModel.BatchRow(
                id: batch.id,
                text: batch.reason.isEmpty ? marked : reader.say("\(marked) — “\(batch.reason)”"),
                when: "\(by), \(time.moment(batch.createdAt))",
                undone: batch.undoneAt.map { reader.say("undone \(time.moment($0))") }, undoable: batch.id == undoable)
        }
    }

    /// The refused check-ins in one line, as `live.js` writes it too: "2 tried from too far · …".
    static func refusedSummary(_ flags: [Flag], in reader: Reader) -> String? {
        func students(_ kind: FlagKind) -> Int {
            Set(flags.filter { $0.kind == kind }.compactMap(\.studentId)).count
        }
        let far = students(.triedOutOfRange)
        let imprecise = students(.triedImpreciseLocation)
        let parts = [
            far == 0 ? nil : reader.say(far, one: "{0} tried from too far", other: "{0} tried from too far"),
            imprecise == 0
                ? nil
                : reader.say(
                    imprecise, one: "{0} had a location too imprecise", other: "{0} had a location too imprecise"),
        ]
        .compactMap { $0 }
        return parts.isEmpty
            ? nil : reader.say("\(parts.joined(separator: " · ")): mark them by hand if they are in the room.")
    }

    /// How a student's status came to be, in one sentence.
    static func how(
        _ record: AttendanceRecord?, status: AttendanceStatus?, phase: SessionPhase, time: TimeText, in reader: Reader
    ) -> String {
        guard let record else {
            switch (phase, status) {
            case (.scheduled, _): return reader.say("The session has not opened yet.")
            case (.open, _): return reader.say("You have not checked in yet.")
            case (_, .some): return reader.say("You did not check in before the session closed.")
            case (_, .none): return reader.say("This session does not count for you.")
            }
        }
        let when = time.momentWithZone(record.recordedAt)
        return switch record.source {
        case .qr: reader.say("You checked in by scanning the code on the screen, \(when).")
        case .typed: reader.say("You checked in by typing the code on the screen, \(when).")
        case .spot: reader.say("You checked in at the check-in spot, \(when).")
        case .api: reader.say("You checked in from the app, \(when).")
        case .manual: reader.say("Your teacher set this by hand, \(when).")
        case .closed: reader.say("You had not checked in when the session closed, \(when).")
        case .demo: reader.say("Recorded for the demonstration, \(when).")
        }
    }

    /// When the session opened and closes (or closed), as its phase has it, in the course's zone, named once at the
    /// end: a student abroad reads the course's clock, not their phone's.
    static func timing(_ session: ClassSession, phase: SessionPhase, time: TimeText, in reader: Reader) -> String {
        let zone = time.zoneName(at: session.openedAt ?? session.scheduledAt ?? session.createdAt)
        let words: String
        switch phase {
        case .scheduled:
            if session.missed(at: Date()), let scheduledAt = session.scheduledAt {
                return reader.say("scheduled for \(time.moment(scheduledAt)) \(zone), and never opened")
            }
            guard let scheduledAt = session.scheduledAt else { return reader.say("not opened yet") }
            words = reader.say("scheduled for \(time.moment(scheduledAt))")
        case .open:
            let opened = session.openedAt.map { reader.say("opened \(time.moment($0))") } ?? reader.say("open")
            words = opened + (session.closesAt.map { " · " + reader.say("closes \(time.moment($0))") } ?? "")
        case .closed:
            let opened = session.openedAt.map { reader.say("opened \(time.moment($0))") }
            let closed = (session.closedAt ?? session.closesAt).map { reader.say("closed \(time.moment($0))") }
            words = [opened, closed].compactMap { $0 }.joined(separator: " · ")
        }
        return "\(words) \(zone)"
    }

    /// The session's settings in words. A student learns what to do, not where the fence's centre is, how far it
    /// reaches, or how much grace a code has.
    static func facts(_ settings: SessionSettings, forTeacher: Bool, in reader: Reader) -> [SessionPageModel.Fact] {
        var facts: [SessionPageModel.Fact] = [
            .init(label: reader.say("Check-in"), value: settings.mode.pageText(in: reader)),
            .init(
                label: reader.say("Open for"),
                value: reader.say(settings.openMinutes, one: "{0} minute", other: "{0} minutes")),
            .init(
                label: reader.say("Late after"),
                value: settings.lateAfterMinutes.map { reader.say($0, one: "{0} minute", other: "{0} minutes") }
                    ?? reader.say("never")),
        ]
        if settings.mode != .spot, forTeacher {
            facts.append(
                .init(
                    label: reader.say("Code changes every"),
                    value: reader.say("\(settings.period) s (grace \(settings.grace))")))
        }
        if let fence = settings.geofence {
            let radius = String(format: "%.0f", fence.radius)
            let latitude = String(format: "%.5f", fence.center.latitude)
            let longitude = String(format: "%.5f", fence.center.longitude)
            let place =
                forTeacher
                ? reader.say("within \(radius) m of \(latitude), \(longitude)")
                : reader.say("your phone's location must be in the classroom")
            facts.append(.init(label: reader.say("Location"), value: place))
        }
        if !settings.allowedNetworks.isEmpty {
            let networks =
                forTeacher
                ? settings.allowedNetworks.map(\.description).joined(separator: ", ")
                : reader.say("only from the school's network")
            facts.append(.init(label: reader.say("Networks"), value: networks))
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

    /// A change to many students at once, in the list of recent ones.
    struct BatchRow: Sendable {
        var id: Int64
        var text: String
        var when: String
        var undone: String?
        var undoable: Bool
    }

    /// A student's own standing in the session.
    struct Mine: Sendable {
        /// The status pill's class: `present`, `late`, `excused`, `absent`, or `pending` before it counts.
        var status: String
        var statusText: String
        var how: String
        var changes: AuditLogView
        /// While the session is open, the page announces a quiz running in it.
        var sessionId: Int64
        var sessionOpen: Bool
    }

    var id: Int64
    var title: String
    var courseId: Int64
    var courseName: String
    /// `lang` of the teacher's words (the course's name, a typed title), where the course is taught in another
    /// language than the page's; a default title is said in the reader's.
    var courseLang: String?
    var titleLang: String?
    /// The badge's class and the live script's: `scheduled`, `open`, `closed` or `missed`.
    var phase: String
    /// The badge in the reader's words.
    var phaseText: String
    var isOpen: Bool
    var isScheduled: Bool
    /// When it opened and closes or closed, in words fitting its phase.
    var timing: String
    var facts: [Fact]
    var manage = false
    var projector = false
    var flags: [FlagRow] = []
    var hasFlags = false
    /// The refused check-ins, summed up above the flags.
    var refusedSummary: String?
    var verifications: [CheckInVerificationRecord.PageRow] = []
    var hasVerifications = false
    var auditLog: AuditLogView?
    var batches: [BatchRow] = []
    var hasBatches = false
    var room: RoomView?
    var mine: Mine?
    var corrections: Corrections?
    /// A teaching assistant: the room and marking, without the session's own actions.
    var assistant = false
    /// Scheduled, never opened, past its time: the page asks the teacher to open it late or cancel it.
    var missed = false

    /// The teacher's ways to undo a mistake: rename, extend, reopen, delete.
    struct Corrections: Sendable {
        var id: Int64
        var title: String
        var isClosed: Bool
        /// Before it opens, a session's check-in settings may be changed.
        var scheduledSettings: SettingsForm?
        var records: Int
        var attempts: Int
        var recordsText: String
        var deleteQuestion: String
        var deleteLabel: String
        /// Another of the course's sessions open at the same time, in a sentence.
        var otherOpen: String?
        var otherOpenId: Int64?
    }
}

extension ClassSession {
    /// The badge in words: missed, scheduled, open or closed (`badge(at:)` in the reader's language).
    func badgeText(at now: Date, in reader: Reader) -> String {
        if missed(at: now) { return reader.say("missed") }
        switch phase(at: now) {
        case .scheduled: return reader.say("scheduled")
        case .open: return reader.say("open")
        case .closed: return reader.say("closed")
        }
    }
}
