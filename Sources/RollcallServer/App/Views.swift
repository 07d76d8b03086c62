import Foundation
import RollcallCore

/// A user as the API shows them to themselves and to admins.
struct UserView: Codable, Sendable, Equatable {
    var id: Int64
    var name: String
    var email: String
    var role: Role
    var studentNumber: String?
    var phone: String?
    var about: String
    var emailVerified: Bool
    var approved: Bool
    var disabled: Bool
    var hasPicture: Bool
    var createdAt: Date

    init(_ user: User) {
        id = user.id
        name = user.name
        email = user.email
        role = user.role
        studentNumber = user.studentNumber
        phone = user.phone
        about = user.about
        emailVerified = user.emailVerifiedAt != nil
        approved = user.approved
        disabled = user.disabled
        hasPicture = user.pictureId != nil
        createdAt = user.createdAt
    }
}

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
    /// The record settings, shown to those who manage the course.
    var points: StatusPoints?
    var markAbsentOnClose: Bool?
    var absenteeThreshold: Int?

    init(_ summary: CourseSummary, manages: Bool) {
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
        if manages {
            points = course.points
            markAbsentOnClose = course.markAbsentOnClose
            absenteeThreshold = course.absenteeThreshold
        }
    }
}

/// A session as the API shows it; its secret never leaves the server.
struct SessionView: Codable, Sendable, Equatable {
    struct Counts: Codable, Sendable, Equatable {
        var present = 0
        var late = 0
        var excused = 0
        var absent = 0
    }
    var id: Int64
    var courseId: Int64
    var title: String
    var phase: SessionPhase
    var scheduledAt: Date?
    var openedAt: Date?
    var closesAt: Date?
    var closedAt: Date?
    var settings: SessionSettings
    var counts: Counts

    init(_ session: ClassSession, counts: AttendanceCounts, now: Date = Date()) {
        id = session.id
        courseId = session.courseId
        title = session.title
        phase = session.phase(at: now)
        scheduledAt = session.scheduledAt
        openedAt = session.openedAt
        closesAt = session.closesAt
        closedAt = session.closedAt
        settings = session.settings
        self.counts = Counts(
            present: counts[.present] ?? 0, late: counts[.late] ?? 0, excused: counts[.excused] ?? 0,
            absent: counts[.absent] ?? 0
        )
    }
}
