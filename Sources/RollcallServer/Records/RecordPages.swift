import Foundation
import Hummingbird
import RollcallCore

/// The pages of attendance records: a student's record in a course, for that student and for the teacher, who
/// corrects statuses there.
struct RecordPages: Sendable {
    let records: RecordStore
    let sessions: SessionStore
    let access: AccessRule
    let pages: PageRenderer

    func addRoutes(to router: Router<AppRequestContext>) {
        router.get(RecordRoutes.studentPage, use: student)
    }

    @Sendable func student(_ request: Request, context: AppRequestContext) async throws -> Response {
        let user = try context.requireUser()
        let studentID = try context.id("studentID", "student")
        let (course, access) = try await self.access.studentRecords(
            courseID: try context.id("courseID", "course"), studentID: studentID, for: user)
        let records = try await self.records.courseRecords(
            course, sessions: try await sessions.list(courseID: course.id))
        guard let student = records.students.first(where: { $0.id == studentID }) else {
            throw AppError(.notFound, "student_not_found", "That student is not on this course's roster.")
        }
        let manage = access == .manage
        let sessions: [[String: Any]] = records.sessions.reversed().map { session in
            let status = records.countedStatus(session: session, studentID: studentID)
            return [
                "sessionId": session.id, "studentId": studentID, "title": session.title,
                "when": session.openedAt?.pageText ?? "", "manage": manage,
                "statusClass": status?.rawValue ?? "pending", "statusText": status?.rawValue ?? "not yet",
                "choices": AttendanceStatus.allCases.map { choice in
                    ["value": choice.rawValue, "label": choice.rawValue.capitalized, "selected": choice == status]
                },
            ]
        }
        var data = Self.summaryData(records.summary(studentID: studentID))
        data.merge(Self.auditData(try await self.records.audit(courseID: course.id, studentID: studentID))) { $1 }
        data.merge([
            "courseId": course.id, "courseName": course.name, "name": student.name, "email": student.email,
            "enrolled": student.enrolled, "sessions": sessions,
            "noSessions": sessions.isEmpty,
        ]) { $1 }
        if let number = student.studentNumber { data["studentNumber"] = number }
        return try pages.render(
            "student", title: "\(student.name) · \(course.name) · Rollcall", data: data, context: context)
    }

    /// What the attendance-summary partial shows.
    static func summaryData(_ summary: AttendanceSummary) -> [String: Any] {
        let percentage = summary.percentage
        return [
            "percentValue": String(format: "%.1f", percentage ?? 0), "hasPercentage": percentage != nil,
            "percentText": percentage.map { "\(Int($0.rounded()))%" } ?? "—",
            "meterTone": percentage.map { $0 >= 80 ? "good" : $0 >= 60 ? "warn" : "bad" } ?? "good",
            "present": summary.counts[.present] ?? 0, "late": summary.counts[.late] ?? 0,
            "excused": summary.counts[.excused] ?? 0, "absent": summary.counts[.absent] ?? 0,
            "gradeText": summary.grade.map { "\(Int($0.rounded()))%" } ?? "—", "points": summary.points,
            "maxPoints": summary.maxPoints, "sessionCount": summary.sessions, "counts": summary.sessions > 0,
        ]
    }

    /// What the audit-log partial shows.
    static func auditData(_ entries: [AuditEntry]) -> [String: Any] {
        [
            "audit": entries.map { entry in
                [
                    "studentName": entry.studentName, "sessionTitle": entry.sessionTitle,
                    "oldText": entry.oldStatus?.rawValue ?? "no record", "newStatus": entry.newStatus.rawValue,
                    "reason": entry.reason, "changedByName": entry.changedByName, "when": entry.changedAt.pageText,
                ] as [String: Any]
            },
            "noAudit": entries.isEmpty,
        ]
    }
}
