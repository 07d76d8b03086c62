/// How many enrolled students of a session stand where; `checkedIn` counts present and late, as the projector does.
public struct RoomCounts: Codable, Sendable, Equatable {
    public var enrolled = 0
    public var present = 0
    public var late = 0
    public var excused = 0
    public var absent = 0
    public var notYet = 0
    public var checkedIn: Int { present + late }

    /// Counts one status per enrolled student; `nil` is a student with no record yet.
    public init(statuses: some Sequence<AttendanceStatus?>) {
        for status in statuses {
            enrolled += 1
            switch status {
            case .present: present += 1
            case .late: late += 1
            case .excused: excused += 1
            case .absent: absent += 1
            case nil: notYet += 1
            }
        }
    }

    /// Counts summed elsewhere (by the database); those without a record are the rest of the enrolled.
    public init(enrolled: Int, present: Int, late: Int, excused: Int, absent: Int) {
        self.enrolled = enrolled
        self.present = present
        self.late = late
        self.excused = excused
        self.absent = absent
        notYet = enrolled - present - late - excused - absent
    }

    private enum CodingKeys: String, CodingKey {
        case enrolled, present, late, excused, absent, notYet, checkedIn
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(enrolled, forKey: .enrolled)
        try container.encode(present, forKey: .present)
        try container.encode(late, forKey: .late)
        try container.encode(excused, forKey: .excused)
        try container.encode(absent, forKey: .absent)
        try container.encode(notYet, forKey: .notYet)
        try container.encode(checkedIn, forKey: .checkedIn)
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        enrolled = try container.decode(Int.self, forKey: .enrolled)
        present = try container.decode(Int.self, forKey: .present)
        late = try container.decode(Int.self, forKey: .late)
        excused = try container.decode(Int.self, forKey: .excused)
        absent = try container.decode(Int.self, forKey: .absent)
        notYet = try container.decode(Int.self, forKey: .notYet)
    }
}
