import Foundation

/// A course's attendance at one moment: the sessions that have opened, who is on the roster since when, and every
/// recorded status. It decides which sessions count for whom, each student's figures and the absentee list.
public struct AttendanceSheet: Sendable, Equatable {
    /// A session as the figures see it: only its times matter.
    public struct Session: Sendable, Equatable {
        public var id: Int64
        public var openedAt: Date?
        public var closesAt: Date?
        public var closedAt: Date?

        public init(id: Int64, openedAt: Date?, closesAt: Date?, closedAt: Date?) {
            self.id = id
            self.openedAt = openedAt
            self.closesAt = closesAt
            self.closedAt = closedAt
        }
    }

    /// A student who appears in the course's records.
    public struct Student: Sendable, Equatable {
        public var id: Int64
        public var name: String
        /// When the student joined the course; `nil` once they have left it.
        public var joinedAt: Date?

        public init(id: Int64, name: String, joinedAt: Date?) {
            self.id = id
            self.name = name
            self.joinedAt = joinedAt
        }
    }

    public var sessions: [Session]
    public var students: [Student]
    /// Recorded statuses by session id, then student id.
    public var statuses: [Int64: [Int64: AttendanceStatus]]
    public var points: StatusPoints
    public var now: Date
    /// When each student on the roster joined, by id.
    private let joinedAt: [Int64: Date]

    public init(
        sessions: [Session], students: [Student], statuses: [Int64: [Int64: AttendanceStatus]], points: StatusPoints,
        now: Date
    ) {
        self.sessions = sessions
        self.students = students
        self.statuses = statuses
        self.points = points
        self.now = now
        joinedAt = Dictionary(
            students.compactMap { student in student.joinedAt.map { (student.id, $0) } }, uniquingKeysWith: { $1 })
    }

    /// The status a session counts with for a student, or `nil` while it does not count.
    public func countedStatus(session: Session, studentID: Int64) -> AttendanceStatus? {
        let end = session.closedAt ?? session.closesAt ?? now
        let phase = SessionPhase.at(
            now, openedAt: session.openedAt, closesAt: session.closesAt, closedAt: session.closedAt)
        return AttendanceSummary.countedStatus(
            record: statuses[session.id]?[studentID], closed: phase == .closed,
            onRoster: joinedAt[studentID].map { $0 <= end } ?? false
        )
    }

    /// One student's figures over every session that counts for them.
    public func summary(studentID: Int64) -> AttendanceSummary {
        AttendanceSummary(
            statuses: sessions.compactMap { countedStatus(session: $0, studentID: studentID) }, points: points)
    }

    /// Students on the roster attending less than `threshold` percent, lowest first, then by name.
    public func absentees(below threshold: Double) -> [(student: Student, summary: AttendanceSummary)] {
        students.filter { $0.joinedAt != nil }.compactMap { student in
            let summary = summary(studentID: student.id)
            return summary.isBelow(threshold) ? (student, summary) : nil
        }
        .sorted { ($0.summary.percentage ?? 0, $0.student.name) < ($1.summary.percentage ?? 0, $1.student.name) }
    }
}
