import Foundation
import Hummingbird
import RollcallCore
import RollcallModel
import RollcallWeb
import RollcallWords

/// The pages of courses: the course list and a course's page, for its teacher and for its students.
struct CoursePages: Sendable {
    let courses: CourseStore
    let sessions: SessionStore
    let passkeys: PasskeyStore
    let records: RecordStore
    let timetable: TimetableStore
    let access: AccessRule
    let pages: PageRenderer
    let platforms: PlatformStore
    let linkedCourses: PlatformCourses
    /// Each teacher's allowance of invitation letters a day, for the page to explain those waiting.
    let invitationsPerDay: Int
    /// The zone a new course takes when its teacher's profile and browser name none.
    var schoolTimeZone = CourseTimeZone.serverDefault

    func addRoutes(to router: Router<AppRequestContext>) {
        router.get(CourseRoutes.coursesPage, use: list)
        router.get(CourseRoutes.coursePage, use: course)
    }

    @Sendable func list(_ request: Request, context: AppRequestContext) async throws -> Response {
        let user = try context.requireUser()
        let reader = context.reader
        let all = try await courses.list(for: user)
        let card = { (summary: CourseSummary) in
            CourseListPage.Card(
                id: summary.course.id, name: summary.course.name, teacher: summary.teacherName,
                students: reader.say(summary.studentCount, one: "{0} student", other: "{0} students"),
                description: summary.course.description, cardLang: summary.course.contentLang(for: reader))
        }
        // Archived courses go below, folded: last term's are kept, not in the way.
        let cards = all.filter { $0.course.archivedAt == nil }.map(card)
        let archived = all.filter { $0.course.archivedAt != nil }.map(card)
        // The new course's zone: the profile's, else the browser's (the page's script picks it), else the school's.
        let zone = user.timeZone.flatMap { CourseTimeZone.isKnown($0) ? $0 : nil }
        let page = CourseListPage(
            courses: cards, archived: archived, hasArchived: !archived.isEmpty, empty: cards.isEmpty,
            teaches: user.role != .student, mayTeach: user.mayTeach,
            isStudent: user.role == .student, unverified: user.emailVerifiedAt == nil,
            schoolAccount: user.passwordHash == UserStore.noPassword,
            timeZones: CourseTimeZone.choices(selected: zone ?? schoolTimeZone).map {
                TimeZoneChoice(id: $0, selected: $0 == (zone ?? schoolTimeZone))
            },
            zoneFromBrowser: zone == nil,
            languages: CourseLanguage.choices(selected: try CourseLanguage.forNewCourse(chosen: nil, reader: reader)))
        return try pages.render(page, title: "Courses · Rollcall", context: context, framing: .launch)
    }

    @Sendable func course(_ request: Request, context: AppRequestContext) async throws -> Response {
        let user = try context.requireUser()
        let (course, access) = try await self.access.course(in: context)
        let reader = context.reader
        let time = course.timeText(in: reader)
        let sessions = try await self.sessions.list(courseID: course.id)
        let records = try await self.records.courseRecords(course, sessions: sessions, in: reader)
        let verification = try await passkeys.policy(courseID: course.id)
        var page = CoursePage(course: course, reader: reader)
        let rows = try await sessionRows(
            sessions, records: records, student: access == .attend ? user.id : nil, verification: verification,
            in: reader)
        page.fold(rows, in: reader)
        page.assisting = access == .assist
        page.noSessions = sessions.isEmpty
        if access == .manage {
            page.teacher = try await teacherPart(
                course, records: records,
                query: try check { () throws(RuleViolation) in try TextRules.search(request.query("q")) },
                page: max(1, Int(request.query("page") ?? "") ?? 1), verification: verification, in: reader)
            page.teacher?.mayReachPeople = user.mayReachPeople
            if let linked = try await linkedCourses.linkedCourse(courseID: course.id),
                let platform = try await platforms.find(id: linked.platformId)
            {
                page.teacher?.platformLink = PlatformLink(
                    platform: platform.name, title: linked.title,
                    synced: linked.syncedAt.map { time.moment($0) },
                    graded: linked.gradedThrough.map { time.moment($0) })
            }
        } else if access == .attend {
            let figures = try await self.records.gradebook(records, studentID: user.id).figures(studentID: user.id)
            // Whether this student turned the notes off matters only while the course sends them.
            let receives =
                course.absenceNoticesSince != nil
                ? try await courses.receivesAbsenceNotices(courseID: course.id, studentID: user.id) : false
            page.myAttendance = CoursePage.MyAttendance(
                summary: SummaryView(figures, points: course.points, in: reader), studentId: user.id,
                courseId: course.id, noticesOn: course.absenceNoticesSince != nil,
                receivesNotices: receives,
                threshold: course.absenteeThreshold)
        }
        return try pages.render(
            page, title: "\(course.name) · Rollcall", context: context, zone: time, framing: .launch)
    }

    /// The course's sessions, newest first; for a student, with their own status and the ways to check in.
    private func sessionRows(
        _ sessions: [ClassSession], records: CourseRecords, student: Int64?, verification: CourseVerification,
        in reader: Reader
    ) async throws -> [CoursePage.SessionRow] {
        let time = records.course.timeText(in: reader)
        let tallies = try await self.sessions.tallies(courseID: records.course.id)
        let now = Date()
        return sessions.map { session in
            let count = tallies[session.id]?.statuses ?? [:]
            let open = session.phase(at: now) == .open
            let mine = student.flatMap { records.countedStatus(session: session, studentID: $0) }
            // Already in: no "scan the code" nor a code box for a student who has checked in.
            let waiting = open && mine != .present && mine != .late
            return CoursePage.SessionRow(
                id: session.id, title: session.title(in: reader),
                titleLang: session.defaultTitle == nil ? records.course.contentLang(for: reader) : nil,
                phase: session.badge(at: now),
                phaseText: session.badgeText(at: now, in: reader), myStatus: mine?.rawValue,
                myStatusText: mine?.pageText(in: reader),
                when: time.moment(session.openedAt ?? session.scheduledAt ?? session.createdAt),
                presentText: reader.say(
                    (count[.present] ?? 0) + (count[.late] ?? 0), one: "{0} checked in", other: "{0} checked in"),
                studentView: student != nil, open: open,
                spot: waiting && session.settings.mode == .spot, typed: waiting && session.settings.allowTyping,
                scan: waiting && session.settings.mode == .qr, passkey: verification.required,
                needsLocation: session.settings.geofence != nil,
                upcoming: session.phase(at: now) == .scheduled && (session.scheduledAt ?? now) > now)
        }
    }

    /// What only the course's teacher sees: the join code, the roster (searched with `query`), the absentees and
    /// the settings.
    private func teacherPart(
        _ course: Course, records: CourseRecords, query: String?, page requested: Int,
        verification: CourseVerification, in reader: Reader
    ) async throws -> CoursePage.TeacherPart {
        let everyone = try await courses.roster.list(courseID: course.id, query: query, in: reader)
        // A lecture hall's roster in pages, so that the rest of the page stays within reach.
        let (roster, rosterPages) = PageLinks.page(
            everyone, requested: requested, size: Self.rosterPage, path: "/courses/\(course.id)", query: query,
            anchor: "roster", in: reader)
        let absentees = Self.absentees(records, below: course.absenteeThreshold, in: reader)
        let invitations = try await courses.roster.invitations(courseID: course.id)
        let staff = try await courses.staff(courseID: course.id, in: reader).map { member in
            CoursePage.Staff(
                id: member.id, name: member.name, email: member.email,
                roleText: member.role == .teacher ? reader.say("co-teacher") : reader.say("teaching assistant"))
        }
        let slots = try await slotRows(course, in: reader)
        let defaults = try course.defaults()
        return CoursePage.TeacherPart(
            openSettings: SettingsForm(defaults, in: reader),
            timetableSettings: SettingsForm(defaults, withOpenMinutes: false, in: reader),
            defaultSettings: SettingsForm(defaults, prefix: "sessionDefaults", in: reader),
            joinCode: course.joinCode, q: query ?? "",
            roster: roster.map { entry in
                CoursePage.RosterRow(
                    id: entry.id, name: entry.name, email: entry.email, studentNumber: entry.studentNumber ?? "",
                    joined: course.timeText(in: reader).moment(entry.joinedAt))
            },
            rosterEmpty: everyone.isEmpty, rosterCount: everyone.count,
            rosterPages: rosterPages,
            absenteesShown: Array(absentees.prefix(Self.absenteesShown)),
            absenteesMore: Array(absentees.dropFirst(Self.absenteesShown)),
            absenteesMoreText: reader.say(
                max(0, absentees.count - Self.absenteesShown), one: "Show all ({0} more)", other: "Show all ({0} more)"),
            hasMoreAbsentees: absentees.count > Self.absenteesShown,
            verificationRequired: verification.required,
            reuseChoices: CourseVerification.reuseChoices(selected: verification.reuseSeconds, in: reader),
            absentees: absentees, noAbsentees: absentees.isEmpty, absenteeThreshold: course.absenteeThreshold,
            points: CoursePage.Points(
                present: course.pointsPresent, late: course.pointsLate, excused: course.pointsExcused,
                absent: course.pointsAbsent),
            markAbsentOnClose: course.markAbsentOnClose, joinFromScan: course.joinFromScan,
            absenceNotices: course.absenceNoticesSince != nil,
            absenceNoticesLast: try await absenceNoticesText(course, in: reader),
            gradeWeights: course.gradeWeights,
            timeZones: CourseTimeZone.choices(selected: course.timeZone).map {
                TimeZoneChoice(id: $0, selected: $0 == course.timeZone)
            },
            timeZone: course.timeZone,
            invitations: invitations.map {
                CoursePage.Invitation(name: $0.name, email: $0.email, waiting: $0.mailedAt == nil)
            },
            hasInvitations: !invitations.isEmpty,
            waitingText: Self.waitingText(
                invitations.count { $0.mailedAt == nil }, perDay: invitationsPerDay, in: reader),
            slots: slots, hasSlots: !slots.isEmpty, staff: staff,
            hasStaff: !staff.isEmpty)
    }
}

extension CoursePages {
    /// The students under the course's threshold, with their share and absences in words.
    static func absentees(_ records: CourseRecords, below threshold: Int, in reader: Reader) -> [CoursePage.Absentee] {
        records.absentees(below: Double(threshold)).map { student, summary in
            CoursePage.Absentee(
                id: student.id, name: student.name, percentText: "\(Int((summary.percentage ?? 0).rounded()))%",
                absentText: reader.say(
                    summary.sessions, one: "{1} absent of {0} session", other: "{1} absent of {0} sessions",
                    .number(summary.counts[.absent] ?? 0)))
        }
    }
}

extension CoursePages {
    /// The course's weekly classes in words, their times named with the course's zone, which they are in.
    private func slotRows(_ course: Course, in reader: Reader) async throws -> [CoursePage.Slot] {
        try await timetable.list(courseID: course.id).map { slot in
            CoursePage.Slot(
                id: slot.id, title: slot.title,
                when: reader.say(
                    slot.minutes, one: "{1} at {2} ({3}), {0} minute", other: "{1} at {2} ({3}), {0} minutes",
                    .text(Self.weekly(slot.weekday, in: reader)), .text(slot.time), .text(course.timeZone)),
                term: reader.say(
                    "\(CourseTimeZone.day(slot.startsOn, in: course.zone)) to \(CourseTimeZone.day(slot.endsOn, in: course.zone))"
                )
            )
        }
    }

    static func waitingText(_ waiting: Int, perDay: Int, in reader: Reader) -> String? {
        guard waiting > 0 else { return nil }
        return reader.say(
            waiting,
            one:
                "{0} invitation waits to be mailed: at most {1} go out for you in a day, and the rest follow as the day’s allowance frees up.",
            other:
                "{0} invitations wait to be mailed: at most {1} go out for you in a day, and the rest follow as the day’s allowance frees up.",
            .number(perDay))
    }

    /// A weekday of the timetable (ISO: 1 is Monday) as a weekly habit: “Mondays”.
    static func weekly(_ weekday: Int, in reader: Reader) -> String {
        switch (weekday - 1) % 7 {
        case 0: reader.say("Mondays")
        case 1: reader.say("Tuesdays")
        case 2: reader.say("Wednesdays")
        case 3: reader.say("Thursdays")
        case 4: reader.say("Fridays")
        case 5: reader.say("Saturdays")
        default: reader.say("Sundays")
        }
    }
    /// Students on one page of the roster.
    static let rosterPage = 25
    /// Absentees listed before "Show all".
    static let absenteesShown = 10

    private func absenceNoticesText(_ course: Course, in reader: Reader) async throws -> String {
        guard course.absenceNoticesSince != nil else { return "" }
        guard let last = try await courses.latestAbsenceNotices(courseID: course.id) else {
            return reader.say("The first go out next Monday at 8:00.")
        }
        let students = reader.say(last.students, one: "{0} student", other: "{0} students")
        return reader.say("Last sent \(course.timeText(in: reader).momentWithZone(last.dueAt)), to \(students).")
    }
}

/// What a course's page shows: its sessions for everyone, the student's own figures, and the teacher's part.
struct CoursePage: PageModel {
    static let template = "course"

    struct SessionRow: Sendable {
        var id: Int64
        var title: String
        /// `lang` of a title the teacher typed, where the course is taught in another language than the page's.
        var titleLang: String?
        /// The badge's class: `scheduled`, `open`, `closed` or `missed`.
        var phase: String
        /// The badge in the reader's words.
        var phaseText: String
        /// The student's own status; none for a teacher, or before anything counts (no empty pill).
        var myStatus: String?
        /// The same in the reader's words.
        var myStatusText: String?
        var when: String
        /// "12 checked in", counted: French says "12 présents".
        var presentText: String
        var studentView: Bool
        var open: Bool
        var spot: Bool
        var typed: Bool
        var scan: Bool
        var passkey: Bool
        /// Every way of checking in sends the phone's location when the session has a geofence.
        var needsLocation: Bool
        /// Scheduled for a time still to come (a scheduled session whose time has passed was missed).
        var upcoming = false
    }

    struct MyAttendance: Sendable {
        var summary: SummaryView
        var studentId: Int64
        var courseId: Int64
        /// The course sends weekly absence notes, and whether this student gets them.
        var noticesOn: Bool
        var receivesNotices: Bool
        var threshold: Int
    }

    /// A co-teacher or assistant, as the staff card lists them.
    struct Staff: Sendable {
        var id: Int64
        var name: String
        var email: String
        var roleText: String
    }

    /// A weekly class of the timetable, in words.
    struct Slot: Sendable {
        var id: Int64
        var title: String
        var when: String
        var term: String
    }

    /// Where a paged list is, and the links to its neighbours.
    /// The part only the course's teacher sees; the template reads it inside `{{#teacher}}`.
    struct TeacherPart: Sendable {
        /// The check-in settings of the open-session and timetable forms, from the course's defaults, and the form
        /// that sets those defaults.
        var openSettings: SettingsForm
        var timetableSettings: SettingsForm
        var defaultSettings: SettingsForm
        var joinCode: String
        var q: String
        var roster: [RosterRow]
        var rosterEmpty: Bool
        var rosterCount: Int
        var rosterPages: PageLinks?
        var absenteesShown: [Absentee]
        var absenteesMore: [Absentee]
        var absenteesMoreText: String
        var hasMoreAbsentees: Bool
        var verificationRequired: Bool
        var reuseChoices: [CourseVerification.ReuseChoice]
        var absentees: [Absentee]
        var noAbsentees: Bool
        var absenteeThreshold: Int
        var points: Points
        var markAbsentOnClose: Bool
        var joinFromScan: Bool
        var absenceNotices: Bool
        /// When the last notices went out, or when the first will.
        var absenceNoticesLast: String
        var gradeWeights: GradeWeights
        /// Every zone the course may take, its own selected.
        var timeZones: [TimeZoneChoice]
        /// The course's zone, which the timetable's times are in.
        var timeZone: String
        var invitations: [Invitation]
        var hasInvitations: Bool
        /// How many invitations wait for the teacher's daily allowance, when any do.
        var waitingText: String?
        /// Whether the person may add, import and invite (`User.mayReachPeople`); else the page asks them to confirm
        /// their address first.
        var mayReachPeople = true
        /// The learning platform's course this one is linked to, with its last sync and grades.
        var platformLink: PlatformLink? = nil
        var slots: [Slot]
        var hasSlots: Bool
        var staff: [Staff]
        var hasStaff: Bool
    }

    struct RosterRow: Sendable {
        var id: Int64
        var name: String
        var email: String
        var studentNumber: String
        var joined: String
    }

    struct Absentee: Sendable {
        var id: Int64
        var name: String
        var percentText: String
        /// "3 absent of 12 sessions".
        var absentText: String
    }

    struct Points: Sendable {
        var present: Int
        var late: Int
        var excused: Int
        var absent: Int
    }

    struct Invitation: Sendable {
        var name: String
        var email: String
        /// Not mailed yet: beyond the teacher's daily allowance.
        var waiting: Bool
    }

    var id: Int64
    var courseId: Int64
    var name: String
    var description: String
    var hasPoster: Bool
    var plannedSessions: String
    /// The sessions open now, first on the page with their ways to check in: on a phone they are what a student
    /// came for.
    var current: [SessionRow] = []
    var hasCurrent = false
    /// With nothing open, the next session to come, named near the top.
    var nextSession: SessionRow?
    /// Nothing but the open sessions: the list below says so rather than stand empty.
    var onlyCurrent = false
    /// The sessions in reach below: the next few to come (soonest first) and the latest held.
    var sessions: [SessionRow] = []
    /// The rest, folded, so that a term's timetable does not push everything else off the page.
    var laterSessions: [SessionRow] = []
    var earlierSessions: [SessionRow] = []
    var noSessions = true

    /// Sessions shown unfolded: the next to come, and the latest held.
    static let nextShown = 3
    static let latestShown = 10

    /// Sorts the course's sessions (newest first) into what is shown and what is folded.
    mutating func fold(_ rows: [SessionRow], in reader: Reader) {
        let open = rows.filter(\.open)
        let upcoming = rows.filter(\.upcoming).reversed()
        let held = rows.filter { !$0.open && !$0.upcoming }
        current = open
        hasCurrent = !open.isEmpty
        nextSession = open.isEmpty ? upcoming.first : nil
        sessions = Array(upcoming.prefix(Self.nextShown)) + Array(held.prefix(Self.latestShown))
        onlyCurrent = hasCurrent && upcoming.isEmpty && held.isEmpty
        laterSessions = Array(upcoming.dropFirst(Self.nextShown))
        earlierSessions = Array(held.dropFirst(Self.latestShown))
        laterText = reader.say(laterSessions.count, one: "{0} more to come", other: "{0} more to come")
        earlierText = reader.say(earlierSessions.count, one: "{0} earlier", other: "{0} earlier")
        hasLater = !laterSessions.isEmpty
        hasEarlier = !earlierSessions.isEmpty
    }

    // Stored, not computed: templates read a model's stored properties only.
    var laterText = ""
    var earlierText = ""
    var hasLater = false
    var hasEarlier = false
    var myAttendance: MyAttendance?
    var teacher: TeacherPart?

    /// Archived: records kept, no new sessions nor students.
    var archived = false
    /// A teaching assistant's view: the sessions, to open their rooms and mark attendance.
    var assisting = false

    /// `lang` of the course's name and description, where the course is taught in another language than the page's.
    var contentLang: String?
    /// The languages the course may be taught in, its own selected, for the course's details form.
    var languages: [CourseLanguage.Choice] = []

    init(course: Course, reader: Reader) {
        id = course.id
        courseId = course.id
        name = course.name
        description = course.description
        contentLang = course.contentLang(for: reader)
        // A course made before Rollcall kept its language offers the reader's, which saving the form then keeps.
        languages = CourseLanguage.choices(selected: course.language ?? reader.language)
        hasPoster = course.posterId != nil
        plannedSessions = course.plannedSessions.map(String.init) ?? ""
        archived = course.archivedAt != nil
    }
}

extension CheckInMode {
    func pageText(in reader: Reader) -> String {
        switch self {
        case .qr: reader.say("QR code on the projector")
        case .spot: reader.say("Check-in spot (location only)")
        case .typed: reader.say("Typed code")
        }
    }
}

/// A course's link to its learning platform, as its page shows it.
struct PlatformLink: Sendable {
    var platform: String
    var title: String
    var synced: String?
    var graded: String?
}
