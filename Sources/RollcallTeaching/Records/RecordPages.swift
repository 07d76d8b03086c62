import Foundation
import Hummingbird
import RollcallCore
import RollcallModel
import RollcallWeb
import RollcallWords

/// The pages of attendance records: a student's record in a course, for that student and for the teacher, who
/// corrects statuses there.
struct RecordPages: Sendable {
    let records: RecordStore
    let sessions: SessionStore
    let access: AccessRule
    let pages: PageRenderer

    func addRoutes(to router: Router<AppRequestContext>) {
        router.get(RecordRoutes.studentPage, use: student)
        router.get(RecordRoutes.gridPage, use: grid)
    }

    /// The course's students × sessions: every status as a colour, each student's figures at the end of the row.
    @Sendable func grid(_ request: Request, context: AppRequestContext) async throws -> Response {
        let course = try await access.course(in: context, needing: .manage).0
        let reader = context.reader
        let records = try await self.records.courseRecords(
            course, sessions: try await sessions.list(courseID: course.id), in: reader)
        let gradebook = try await self.records.gradebook(records)
        let columns = records.sessions.map { session in
            let title = session.title(in: reader)
            return GridPage.Column(
                id: session.id, title: title, short: GridPage.short(title),
                day: session.openedAt.map { CourseTimeZone.day($0, in: course.zone) } ?? "")
        }
        let percent = { (value: Double?) in value.map { "\(Int($0.rounded()))%" } ?? "—" }
        let rows = records.students.filter { $0.enrolled }.map { student in
            let figures = gradebook.figures(studentID: student.id)
            return GridPage.Row(
                id: student.id, name: student.name, studentNumber: student.studentNumber ?? "",
                cells: records.sessions.map { session in
                    let status = records.countedStatus(session: session, studentID: student.id)
                    return GridPage.Cell(
                        status: status?.rawValue ?? "none", letter: status.map { Self.letter($0, in: reader) } ?? "")
                },
                attendance: percent(figures.attendance.percentage), grade: percent(figures.attendance.grade),
                quizzes: percent(figures.quizzes.percentage), courseGrade: percent(figures.courseGrade))
        }
        let points = course.points
        let page = GridPage(
            courseId: course.id, courseName: course.name, columns: columns, rows: rows, empty: rows.isEmpty,
            sizeText: reader.say(rows.count, one: "{0} student", other: "{0} students") + " × "
                + reader.say(columns.count, one: "{0} session", other: "{0} sessions"),
            attendanceRule: reader.say(
                "Attendance: sessions present or late, out of those that count and are not excused. A session counts once it has closed, or once the student has a record in it."
            ),
            gradeRule: reader.say(
                "Grade: points earned out of a perfect record's (present \(points.present), late \(points.late), excused \(points.excused), absent \(points.absent))."
            ),
            courseRule: reader.say(
                "Course grade: \(course.gradeWeights.attendance)% attendance grade + \(course.gradeWeights.quizzes)% quizzes; a part with nothing counted yet gives its weight to the other."
            )
        )
        return try pages.render(
            page, title: "Grid · \(course.name) · Rollcall", context: context, zone: course.timeText(in: reader))
    }

    static func letter(_ status: AttendanceStatus, in reader: Reader) -> String {
        switch status {
        case .present: reader.say("P")
        case .late: reader.say("L")
        case .excused: reader.say("E")
        case .absent: reader.say("A")
        }
    }

    @Sendable func student(_ request: Request, context: AppRequestContext) async throws -> Response {
        let user = try context.requireUser()
        let studentID = try context.id("studentID", .studentNotFound, "student")
        let (course, access) = try await self.access.studentRecords(
            courseID: try context.id("courseID", .courseNotFound, "course"), studentID: studentID, for: user)
        let reader = context.reader
        let time = course.timeText(in: reader)
        let records = try await self.records.courseRecords(
            course, sessions: try await sessions.list(courseID: course.id), in: reader)
        guard let student = records.students.first(where: { $0.id == studentID }) else {
            throw AppError(.notFound, .studentNotFound, "That student is not on this course's roster.")
        }
        let manage = access == .manage
        let rows = records.sessions.reversed().map { session in
            let status = records.countedStatus(session: session, studentID: studentID)
            return StudentPage.SessionRow(
                sessionId: session.id, studentId: studentID, title: session.title(in: reader),
                when: session.openedAt.map(time.moment) ?? "", manage: manage,
                statusClass: status?.rawValue ?? "pending",
                statusText: status?.pageText(in: reader) ?? reader.say("not yet"),
                choices: AttendanceStatus.allCases.map { choice in
                    StudentPage.Choice(
                        value: choice.rawValue, label: choice.pageLabel(in: reader), selected: choice == status)
                })
        }
        let figures = try await self.records.gradebook(records, studentID: studentID).figures(studentID: studentID)
        let page = StudentPage(
            courseId: course.id, courseName: course.name, name: student.name, email: student.email,
            studentNumber: student.studentNumber, enrolled: student.enrolled, sessions: rows, noSessions: rows.isEmpty,
            summary: SummaryView(figures, points: course.points, in: reader),
            auditLog: AuditLogView(
                try await self.records.audit(courseID: course.id, studentID: studentID, in: reader), time: time,
                in: reader))
        return try pages.render(
            page, title: "\(student.name) · \(course.name) · Rollcall", context: context, zone: time)
    }
}

/// A course's students × sessions, as the teacher reads a term at a glance.
struct GridPage: PageModel {
    static let template = "grid"

    struct Column: Sendable {
        var id: Int64
        var title: String
        /// The title cut to fit a column's head; several sessions on one day differ by it.
        var short: String
        var day: String
    }

    /// A title of at most `shortLength` characters, cut with an ellipsis.
    static func short(_ title: String) -> String {
        title.count <= shortLength ? title : String(title.prefix(shortLength - 1)) + "…"
    }
    static let shortLength = 18
    struct Cell: Sendable {
        /// `present`, `late`, `excused`, `absent`, or `none` while the session does not count for the student.
        var status: String
        var letter: String
    }
    struct Row: Sendable {
        var id: Int64
        var name: String
        var studentNumber: String
        var cells: [Cell]
        var attendance: String
        var grade: String
        var quizzes: String
        var courseGrade: String
    }

    var courseId: Int64
    var courseName: String
    var columns: [Column]
    var rows: [Row]
    var empty: Bool
    /// "12 students × 8 sessions", each counted in the reader's language.
    var sizeText: String
    var attendanceRule: String
    var gradeRule: String
    var courseRule: String
}

/// A student's record in a course: their figures, every session with its status, and the changes by hand.
struct StudentPage: PageModel {
    static let template = "student"

    struct SessionRow: Sendable {
        var sessionId: Int64
        var studentId: Int64
        var title: String
        var when: String
        /// Whether the teacher is looking, who may change the status.
        var manage: Bool
        var statusClass: String
        var statusText: String
        var choices: [Choice]
    }

    struct Choice: Sendable {
        var value: String
        var label: String
        var selected: Bool
    }

    var courseId: Int64
    var courseName: String
    var name: String
    var email: String
    var studentNumber: String?
    var enrolled: Bool
    var sessions: [SessionRow]
    var noSessions: Bool
    var summary: SummaryView
    var auditLog: AuditLogView
}

/// What the attendance-summary partial shows: the meter, the counts and the grade.
struct SummaryView: Sendable {
    var percentValue: String
    var hasPercentage: Bool
    var percentText: String
    var meterTone: String
    var present: Int
    var late: Int
    var excused: Int
    var absent: Int
    var gradeText: String
    /// "12 of 16 points over 8 sessions": one sentence, so that a language can decline the noun after its number.
    var pointsText: String
    /// Whether any session counts yet.
    var counts: Bool
    /// Shown once the course weighs quizzes or has run one.
    var showsQuizzes: Bool
    var quizText: String
    var courseGradeText: String
    var attendanceExplanation: String
    var gradeExplanation: String
    var quizExplanation: String
    var courseGradeExplanation: String

    init(_ figures: Gradebook.Figures, points: StatusPoints, in reader: Reader) {
        let summary = figures.attendance
        showsQuizzes = figures.weights.quizzes > 0 || figures.quizzes.quizzes > 0
        quizText = figures.quizzes.percentage.map { "\(Int($0.rounded()))%" } ?? "—"
        courseGradeText = figures.courseGrade.map { "\(Int($0.rounded()))%" } ?? "—"
        attendanceExplanation = reader.say(figures.attendanceExplanation)
        gradeExplanation = reader.say(figures.gradeExplanation(points: points))
        quizExplanation = reader.say(figures.quizzes.explanation)
        courseGradeExplanation = reader.say(figures.courseGradeExplanation)
        let percentage = summary.percentage
        percentValue = String(format: "%.1f", percentage ?? 0)
        hasPercentage = percentage != nil
        percentText = percentage.map { "\(Int($0.rounded()))%" } ?? "—"
        meterTone = percentage.map { $0 >= 80 ? "good" : $0 >= 60 ? "warn" : "bad" } ?? "good"
        present = summary.counts[.present] ?? 0
        late = summary.counts[.late] ?? 0
        excused = summary.counts[.excused] ?? 0
        absent = summary.counts[.absent] ?? 0
        gradeText = summary.grade.map { "\(Int($0.rounded()))%" } ?? "—"
        pointsText = reader.say(
            summary.sessions, one: "{1} of {2} points over {0} session", other: "{1} of {2} points over {0} sessions",
            .number(summary.points), .number(summary.maxPoints))
        counts = summary.sessions > 0
    }
}

/// What the audit-log partial shows: the changes by hand, newest first.
struct AuditLogView: Sendable {
    struct Entry: Sendable {
        var studentName: String
        var sessionTitle: String
        var oldText: String
        var newStatus: String
        /// `nil` when empty, so that no empty quotes show.
        var reason: String?
        var changedByName: String
        var when: String
    }

    var audit: [Entry]
    var noAudit: Bool

    init(_ entries: [AuditEntry], time: TimeText, in reader: Reader) {
        audit = entries.map { entry in
            Entry(
                studentName: entry.studentName, sessionTitle: entry.sessionTitle,
                oldText: entry.oldStatus?.pageText(in: reader) ?? reader.say("no record"),
                newStatus: entry.newStatus?.pageText(in: reader) ?? reader.say("not yet"),
                reason: entry.reason.isEmpty ? nil : entry.reason, changedByName: entry.changedByName,
                when: time.moment(entry.changedAt))
        }
        noAudit = entries.isEmpty
    }
}
