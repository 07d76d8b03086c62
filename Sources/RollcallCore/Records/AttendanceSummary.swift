/// One student's attendance in a course: counts by status, the attendance percentage and the grade.
///
/// Only sessions that count are given: a session in which the student has a record, or that has closed while the
/// student was on the roster (no record then means absent). A session still open without a record does not count
/// yet, so a student is never shown absent from a class still taking check-ins.
public struct AttendanceSummary: Equatable, Sendable {
    public var counts: [AttendanceStatus: Int]
    /// Sessions that count toward the figures.
    public var sessions: Int
    /// Sessions attended (present or late) out of those not excused, 0 to 100; `nil` while nothing counts.
    public var percentage: Double?
    public var points: Int
    /// What a perfect record would have earned.
    public var maxPoints: Int
    /// Points earned out of `maxPoints`, 0 to 100; `nil` while nothing counts.
    public var grade: Double?

    public init(statuses: [AttendanceStatus], points: StatusPoints) {
        var counts: [AttendanceStatus: Int] = [:]
        for status in AttendanceStatus.allCases { counts[status] = 0 }
        for status in statuses { counts[status, default: 0] += 1 }
        self.counts = counts
        sessions = statuses.count
        let attended = counts[.present, default: 0] + counts[.late, default: 0]
        let expected = sessions - counts[.excused, default: 0]
        percentage = expected > 0 ? Double(attended) * 100 / Double(expected) : nil
        self.points = statuses.reduce(0) { $0 + points[$1] }
        maxPoints = sessions * points.present
        grade = maxPoints > 0 ? Double(self.points) * 100 / Double(maxPoints) : nil
    }

    /// Whether the student attends less than `threshold` percent; nobody is below it before anything counts.
    public func isBelow(_ threshold: Double) -> Bool {
        percentage.map { $0 < threshold } ?? false
    }

    /// The status a session counts with for a student, or `nil` when it does not count (yet).
    ///
    /// - Parameters:
    ///   - record: the student's record in the session, if any.
    ///   - closed: whether the session has closed.
    ///   - onRoster: whether the student was on the roster before the session closed; a student who joined later,
    ///     or who has left the course, is not absent from a session they could not attend.
    public static func countedStatus(record: AttendanceStatus?, closed: Bool, onRoster: Bool) -> AttendanceStatus? {
        if let record { return record }
        return closed && onRoster ? .absent : nil
    }
}
