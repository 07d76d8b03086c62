import Foundation
import RollcallCore
import RollcallModel

/// A course as the API shows it; the join code only to those who manage it.
struct CourseView: Codable, Sendable, Equatable {
    struct Teacher: Codable, Sendable, Equatable {
        var id: Int64
        var name: String
    }
    var id: Int64
    var name: String
    var description: String
    var plannedSessions: Int?
    var joinCode: String?
    var teacher: Teacher
    var studentCount: Int
    var hasPoster: Bool
    var createdAt: Date
    /// The IANA time zone the course's reports are written in.
    var timeZone: String
    /// The language its content is written in; left out for a course made before Rollcall kept it.
    var language: String?
    /// An archived course keeps its records and takes no new sessions nor students.
    var archived: Bool
    /// The record settings, shown to those who manage the course.
    var points: StatusPoints?
    var markAbsentOnClose: Bool?
    var absenteeThreshold: Int?
    var gradeWeights: GradeWeights?
    var joinFromScan: Bool?
    /// Whether students below the absentee threshold get a note each Monday, and the teacher the list.
    var absenceNotices: Bool?
    /// The check-in settings new sessions start from.
    var sessionDefaults: SessionSettingsDraft?

    init(_ summary: CourseSummary, manages: Bool) throws {
        let course = summary.course
        id = course.id
        name = course.name
        description = course.description
        plannedSessions = course.plannedSessions
        joinCode = manages ? course.joinCode : nil
        teacher = Teacher(id: course.teacherId, name: summary.teacherName)
        studentCount = summary.studentCount
        hasPoster = course.posterId != nil
        createdAt = course.createdAt
        timeZone = course.timeZone
        language = course.language
        archived = course.archivedAt != nil
        if manages {
            points = course.points
            markAbsentOnClose = course.markAbsentOnClose
            absenteeThreshold = course.absenteeThreshold
            gradeWeights = course.gradeWeights
            joinFromScan = course.joinFromScan
            absenceNotices = course.absenceNoticesSince != nil
            sessionDefaults = try course.defaults()
        }
    }
}
