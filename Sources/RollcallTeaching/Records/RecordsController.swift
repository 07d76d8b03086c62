import Foundation
import Hummingbird
import NIOCore
import RollcallCore
import RollcallModel
import RollcallWeb
import RollcallWords

/// Attendance records after the check-in: a teacher's corrections with their audit log, each student's figures,
/// and the reports.
struct RecordsController: Sendable {
    let records: RecordStore
    let sessions: SessionStore
    let courses: CourseStore
    let access: AccessRule

    struct StatusInput: Decodable {
        var status: String
        var reason: String?
        /// For the teacher only; the student never sees it.
        var note: String?
    }
    struct BulkInput: Decodable {
        var studentIds: [Int64]?
        /// `not_checked_in`: everyone on the roster without a record yet.
        var filter: String?
        var status: String
        var reason: String?
        var note: String?
    }
    struct BatchEnvelope: Codable, ResponseEncodable {
        var batch: AttendanceBatch
    }

    /// Students one bulk change may name: a lecture hall and then some.
    static let bulkSize = 1...2000
    struct StatusAnswer: Codable, ResponseEncodable {
        var studentId: Int64
        var status: AttendanceStatus
        var recordedAt: Date
        var source: RecordSource
        /// `false` when the student already had this status, so nothing was written.
        var changed: Bool
        var audit: AuditEntry?
    }
    struct AuditLog: Codable, ResponseEncodable {
        var entries: [AuditEntry]
    }
    struct StudentAttendance: Codable, ResponseEncodable {
        var student: StudentView
        var summary: SummaryView
        var quizzes: QuizScoreView
        var courseGrade: CourseGradeView
        var explanations: Explanations
        var sessions: [SessionRecord]
        var audit: [AuditEntry]
    }
    struct StudentView: Codable, Sendable {
        var id: Int64
        var name: String
        var email: String
        var studentNumber: String?
        var enrolled: Bool
    }
    struct SummaryView: Codable, Sendable {
        var present: Int
        var late: Int
        var excused: Int
        var absent: Int
        var sessions: Int
        /// Attended out of sessions not excused, in percent; absent while nothing counts.
        var percentage: Double?
        var points: Int
        var maxPoints: Int
        var grade: Double?
    }
    struct QuizScoreView: Codable, Sendable {
        /// Stopped quizzes that count for the student.
        var quizzes: Int
        var points: Double
        var maxPoints: Int
        /// Short answers still waiting for the teacher's mark.
        var pending: Int
        var percentage: Double?
    }
    struct CourseGradeView: Codable, Sendable {
        /// Absent while nothing with a weight counts.
        var value: Double?
        var weights: GradeWeights
    }
    /// One sentence per figure saying how it is made.
    struct Explanations: Codable, Sendable {
        var attendance: String
        var grade: String
        var quizzes: String
        var courseGrade: String
    }
    struct SessionRecord: Codable, Sendable {
        var sessionId: Int64
        var title: String
        var openedAt: Date?
        /// The status the session counts with; absent while the session is open and the student not in yet.
        var status: AttendanceStatus?
        var recordedAt: Date?
        var source: RecordSource?
    }
    struct Absentees: Codable, ResponseEncodable {
        var threshold: Double
        var students: [Absentee]
    }
    struct Absentee: Codable, Sendable {
        var student: StudentView
        var summary: SummaryView
    }

    func addRoutes(to router: Router<AppRequestContext>) {
        router.put(RecordRoutes.attendance, use: setStatus)
        router.post(RecordRoutes.bulkAttendance, use: setStatuses)
        router.post(RecordRoutes.undoBatch, use: undo)
        router.get(RecordRoutes.sessionAudit, use: sessionAudit)
        router.get(RecordRoutes.sessionReport, use: sessionReport)
        router.get(RecordRoutes.courseReport, use: courseReport)
        router.get(RecordRoutes.absentees, use: absentees)
        router.get(RecordRoutes.studentAttendance, use: studentAttendance)
    }

    /// The session and its course, for the course's teachers and its assistants, who mark attendance too.
    func managedSession(_ context: AppRequestContext, changing: Bool = false) async throws -> (ClassSession, Course) {
        let found = try await access.session(in: context, needing: .assist, changing: changing)
        return (found.session, found.course)
    }

    @Sendable func setStatus(_ request: Request, context: AppRequestContext) async throws -> StatusAnswer {
        let (session, course) = try await managedSession(context, changing: true)
        let user = try context.requireUser()
        let studentID = try context.id("studentID", .studentNotFound, "student")
        guard studentID != user.id else { throw Self.ownRecord }
        let input = try await request.decodeJSON(as: StatusInput.self, context: context)
        let (status, reason, note) = try Self.mark(
            status: input.status, reason: input.reason, note: input.note, in: session)
        let records = try await self.records.courseRecords(course, sessions: [session], in: context.reader)
        guard records.students.contains(where: { $0.id == studentID }) else {
            throw AppError(.notFound, .studentNotFound, "That student is not on this course's roster.")
        }
        let change = try await self.records.setStatus(
            session: session, studentID: studentID, status: status, reason: reason, note: note, by: user,
            in: context.reader)
        return StatusAnswer(
            studentId: studentID, status: change.record.status, recordedAt: change.record.recordedAt,
            source: change.record.source, changed: change.audit != nil, audit: change.audit
        )
    }

    /// An assistant who is also a student of the course marks everyone but themself.
    static let ownRecord = AppError(
        .forbidden, .cannotMarkSelf, "Nobody marks their own attendance by hand: ask the course's teacher to mark you.")

    /// A mark by hand, one or many, checked: the status, the reason, the note, and a session that has opened.
    static func mark(status: String, reason: String?, note: String?, in session: ClassSession) throws
        -> (AttendanceStatus, reason: String, note: String)
    {
        let checked = (
            try Self.status(status), try Self.text(reason, field: "reason"), try Self.text(note, field: "note")
        )
        guard session.openedAt != nil else {
            throw AppError.conflict(
                .sessionNotStarted, "This session has not opened yet; mark attendance once it has.")
        }
        return checked
    }

    static func status(_ text: String) throws -> AttendanceStatus {
        guard let status = AttendanceStatus(rawValue: text.trimmingCharacters(in: .whitespaces).lowercased()) else {
            throw AppError(
                .badRequest, .invalidStatus, "Choose present, late, excused or absent; “\(text)” is none.")
        }
        return status
    }

    /// A reason or a note: plain text, at most `RecordStore.reasonLength` characters.
    static func text(_ text: String?, field: String) throws -> String {
        let text = try check { () throws(RuleViolation) in
            try TextRules.plain(
                (text ?? "").trimmingCharacters(in: .whitespacesAndNewlines), field: field, multiline: true)
        }
        guard RecordStore.reasonLength.contains(text.count) else {
            throw AppError.invalid(
                RuleViolation(
                    field: field, message: "Keep the \(field) under \(RecordStore.reasonLength.upperBound) characters.")
            )
        }
        return text
    }

    /// Marks many students at once: those named, or everyone on the roster not checked in yet.
    @Sendable func setStatuses(_ request: Request, context: AppRequestContext) async throws -> Response {
        let (session, course) = try await managedSession(context, changing: true)
        let user = try context.requireUser()
        let input = try await request.decodeJSON(as: BulkInput.self, context: context)
        let (status, reason, note) = try Self.mark(
            status: input.status, reason: input.reason, note: input.note, in: session)
        let records = try await self.records.courseRecords(course, sessions: [session], in: context.reader)
        let roster = Set(records.students.filter(\.enrolled).map(\.id))
        let students: [Int64]
        switch (input.studentIds, input.filter) {
        case (let ids?, nil):
            guard Self.bulkSize.contains(ids.count), Set(ids).count == ids.count else {
                throw AppError(
                    .badRequest, .invalidStudentIDs,
                    "Name from 1 to \(Self.bulkSize.upperBound) different students in “studentIds”.")
            }
            guard !ids.contains(user.id) else { throw Self.ownRecord }
            if let stranger = ids.first(where: { !roster.contains($0) }) {
                throw AppError(
                    .notFound, .studentNotFound,
                    "Student \(stranger) is not on this course's roster; nothing was changed.")
            }
            students = ids
        case (nil, "not_checked_in"?):
            students = records.students.filter {
                $0.enrolled && $0.id != user.id && records.records[session.id]?[$0.id] == nil
            }.map(\.id)
        case (nil, let filter?):
            throw AppError(
                .badRequest, .invalidFilter, "The only filter is “not_checked_in”; “\(filter)” is not one.")
        default:
            throw AppError(
                .badRequest, .missingField, "Send either “studentIds” or “filter”, and not both.")
        }
        // The filter is read again where the batch is written: who checks in meanwhile keeps their check-in.
        let batch = try await self.records.setStatus(
            session: session, studentIDs: students, status: status, reason: reason, note: note,
            unrecordedOnly: input.filter != nil, by: user)
        return try BatchEnvelope(batch: batch).response(from: request, context: context, status: .created)
    }

    @Sendable func undo(_ request: Request, context: AppRequestContext) async throws -> BatchEnvelope {
        let user = try context.requireUser()
        guard let batch = try await records.batch(id: try context.id("batchID", .batchNotFound, "batch")) else {
            throw AppError.notFound(.batchNotFound, "batch")
        }
        let course = try await access.session(batch.sessionId, for: user, needing: .assist, changing: true).course
        do {
            return BatchEnvelope(
                batch: try await records.undo(batchID: batch.id, by: user, time: course.timeText(in: context.reader)))
        } catch let refusal as RecordStore.UndoRefusal {
            switch refusal {
            case .alreadyUndone:
                throw AppError.conflict(.alreadyUndone, "This change has been undone already.")
            case .notLatest:
                throw AppError.conflict(
                    .notLatest, "A later change to this session must be undone first; undo the newest change first.")
            case .changedSince(let count):
                throw AppError.conflict(
                    .changedSince,
                    .counting(
                        count,
                        one:
                            "One of these records was changed again since, so the change cannot be undone as a whole. Mark those students one by one.",
                        other:
                            "{0} of these records were changed again since, so the change cannot be undone as a whole. Mark those students one by one."
                    ))
            }
        }
    }

    @Sendable func sessionAudit(_ request: Request, context: AppRequestContext) async throws -> AuditLog {
        let (session, _) = try await managedSession(context)
        return AuditLog(entries: try await self.records.audit(sessionID: session.id, in: context.reader))
    }

    @Sendable func studentAttendance(_ request: Request, context: AppRequestContext) async throws
        -> StudentAttendance
    {
        let user = try context.requireUser()
        let studentID = try context.id("studentID", .studentNotFound, "student")
        let (course, _) = try await access.studentRecords(
            courseID: try context.id("courseID", .courseNotFound, "course"), studentID: studentID, for: user)
        let reader = context.reader
        let records = try await courseRecords(course, in: reader)
        guard let student = records.students.first(where: { $0.id == studentID }) else {
            throw AppError(.notFound, .studentNotFound, "That student is not on this course's roster.")
        }
        let figures = try await self.records.gradebook(records, studentID: studentID).figures(studentID: studentID)
        return StudentAttendance(
            student: StudentView(student), summary: SummaryView(figures.attendance),
            quizzes: QuizScoreView(figures.quizzes),
            courseGrade: CourseGradeView(value: figures.courseGrade, weights: figures.weights),
            explanations: Explanations(
                attendance: reader.say(figures.attendanceExplanation),
                grade: reader.say(figures.gradeExplanation(points: course.points)),
                quizzes: reader.say(figures.quizzes.explanation),
                courseGrade: reader.say(figures.courseGradeExplanation)),
            sessions: records.sessions.reversed().map { session in
                let record = records.records[session.id]?[studentID]
                return SessionRecord(
                    sessionId: session.id, title: session.title(in: reader), openedAt: session.openedAt,
                    status: records.countedStatus(session: session, studentID: studentID),
                    recordedAt: record?.recordedAt, source: record?.source
                )
            },
            audit: try await self.records.audit(courseID: course.id, studentID: studentID, in: reader)
        )
    }

    func courseRecords(_ course: Course, in reader: Reader) async throws -> CourseRecords {
        try await records.courseRecords(course, sessions: try await sessions.list(courseID: course.id), in: reader)
    }

    @Sendable func absentees(_ request: Request, context: AppRequestContext) async throws -> Absentees {
        let course = try await access.course(in: context, needing: .manage).0
        let threshold = try Self.threshold(request.query("below")) ?? Double(course.absenteeThreshold)
        let records = try await courseRecords(course, in: context.reader)
        return Absentees(
            threshold: threshold,
            students: records.absentees(below: threshold).map {
                Absentee(student: StudentView($0.student), summary: SummaryView($0.summary))
            }
        )
    }

    static func threshold(_ text: String?) throws -> Double? {
        guard let text else { return nil }
        guard let value = Double(text), (0...100).contains(value) else {
            throw AppError(.badRequest, .invalidThreshold, "“below” must be a percentage from 0 to 100.")
        }
        return value
    }

    @Sendable func sessionReport(_ request: Request, context: AppRequestContext) async throws -> Response {
        let (session, course) = try await managedSession(context)
        let reader = context.reader
        let records = try await self.records.courseRecords(course, sessions: [session], in: reader)
        // Times are local to the course and the header says in which zone; a source is said in the reader's words,
        // with its code beside it for formulas and scripts.
        var csv = CSV.line([
            reader.say("Name"), reader.say("Email"), reader.say("Student number"), reader.say("Status"),
            reader.say("Recorded at (\(course.zone.identifier))"), reader.say("Source"), reader.say("Source code"),
            reader.say("Reason"),
        ])
        // The reason of each student's latest change by hand: what the student was told.
        var reasons: [Int64: String] = [:]
        for entry in try await self.records.audit(sessionID: session.id, in: reader)
        where reasons[entry.studentId] == nil {
            reasons[entry.studentId] = entry.reason
        }
        for student in records.students {
            let record = records.records[session.id]?[student.id]
            guard student.enrolled || record != nil else { continue }
            let status = records.countedStatus(session: session, studentID: student.id)
            csv += CSV.line([
                student.name, student.email, student.studentNumber ?? "",
                status?.pageText(in: reader) ?? reader.say("not yet"),
                record.map { CourseTimeZone.timestamp($0.recordedAt, in: course.zone) } ?? "",
                record?.source.pageText(in: reader) ?? "", record?.source.rawValue ?? "",
                record == nil ? "" : reasons[student.id] ?? "",
            ])
        }
        return try CSVDownload.response(
            csv, name: reader.say("\(course.name) \(session.title(in: reader)) attendance"), request: request)
    }

    @Sendable func courseReport(_ request: Request, context: AppRequestContext) async throws -> Response {
        let course = try await access.course(in: context, needing: .manage).0
        let reader = context.reader
        let records = try await courseRecords(course, in: reader)
        var header = [reader.say("Name"), reader.say("Email"), reader.say("Student number")]
        header += records.sessions.map { session in
            "\(session.title(in: reader)) (\(session.openedAt.map { CourseTimeZone.day($0, in: course.zone) } ?? ""))"
        }
        header += AttendanceStatus.allCases.map { $0.pageLabel(in: reader) }
        header += [reader.say("Attendance %"), reader.say("Grade %")]
        header += [
            reader.say("Quiz points"), reader.say("Quiz out of"), reader.say("Quiz %"), reader.say("Course grade %"),
        ]
        var csv = CSV.line(header)
        let gradebook = try await self.records.gradebook(records)
        for student in records.students {
            let figures = gradebook.figures(studentID: student.id)
            let summary = figures.attendance
            var row = [student.name, student.email, student.studentNumber ?? ""]
            row += records.sessions.map {
                records.countedStatus(session: $0, studentID: student.id)?.pageText(in: reader) ?? ""
            }
            row += AttendanceStatus.allCases.map { String(summary.counts[$0] ?? 0) }
            row += [Self.percent(summary.percentage), Self.percent(summary.grade)]
            row += [
                figures.quizzes.points.pointsText, String(figures.quizzes.maxPoints),
                Self.percent(figures.quizzes.percentage), Self.percent(figures.courseGrade),
            ]
            csv += CSV.line(row)
        }
        return try CSVDownload.response(csv, name: reader.say("\(course.name) attendance"), request: request)
    }

    static func percent(_ value: Double?) -> String {
        value.map { String(format: "%.1f", $0) } ?? ""
    }
}

extension RecordsController.StudentView {
    init(_ student: CourseStudent) {
        self.init(
            id: student.id, name: student.name, email: student.email, studentNumber: student.studentNumber,
            enrolled: student.enrolled)
    }
}

extension RecordsController.QuizScoreView {
    init(_ score: QuizScore) {
        self.init(
            quizzes: score.quizzes, points: score.points, maxPoints: score.maxPoints, pending: score.pending,
            percentage: score.percentage)
    }
}

extension RecordsController.SummaryView {
    init(_ summary: AttendanceSummary) {
        self.init(
            present: summary.counts[.present] ?? 0, late: summary.counts[.late] ?? 0,
            excused: summary.counts[.excused] ?? 0, absent: summary.counts[.absent] ?? 0, sessions: summary.sessions,
            percentage: summary.percentage, points: summary.points, maxPoints: summary.maxPoints, grade: summary.grade
        )
    }
}
