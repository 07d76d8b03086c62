/// Points each attendance status earns toward a course's attendance grade.
public struct StatusPoints: Codable, Equatable, Sendable {
    public var present: Int
    public var late: Int
    public var excused: Int
    public var absent: Int

    /// Present 2, late 1, excused 1, absent 0: the points most schools start from.
    public static let standard = StatusPoints(present: 2, late: 1, excused: 1, absent: 0)
    public static let range = 0...100

    public init(present: Int, late: Int, excused: Int, absent: Int) {
        self.present = present
        self.late = late
        self.excused = excused
        self.absent = absent
    }

    public subscript(status: AttendanceStatus) -> Int {
        switch status {
        case .present: present
        case .late: late
        case .excused: excused
        case .absent: absent
        }
    }

    /// The points, refused unless each is a whole number from 0 to 100 and being there earns the most.
    ///
    /// A grade is points earned over the points of a perfect record, so nothing may earn more than present.
    public func validated() throws(RuleViolation) -> StatusPoints {
        for status in AttendanceStatus.allCases where !Self.range.contains(self[status]) {
            throw RuleViolation(
                field: "points",
                message: "Give each status from 0 to 100 points; \(status.rawValue) has \(self[status])."
            )
        }
        guard present > 0 else {
            throw RuleViolation(field: "points", message: "Being present must earn at least 1 point.")
        }
        for status in [AttendanceStatus.late, .excused, .absent] where self[status] > present {
            throw RuleViolation(
                field: "points",
                message: "No status may earn more than present (\(present)); \(status.rawValue) has \(self[status])."
            )
        }
        return self
    }
}
