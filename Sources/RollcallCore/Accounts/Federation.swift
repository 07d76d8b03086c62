/// Where an account's role came from.
public enum RoleSource: String, Codable, Sendable {
    /// Chosen at registration.
    case registration
    /// Given by the school's sign-in or a learning platform.
    case school
    /// Set by an admin.
    case admin
}

/// What the school's sign-in or a learning platform said of a person's role at one sign-in or launch.
public enum RoleClaim: Sendable, Equatable {
    /// Nothing: the school releases no role claim, or this sign-in did not carry it.
    case absent
    /// The school's directory gives this role: the account follows it up and down.
    case directory(Role)
    /// A platform's course has this person as its instructor: a student becomes a teacher; a teacher who is a
    /// learner elsewhere stays one.
    case teachesACourse
}

/// The one rule by which a school's sign-in or a platform changes an account's role: an admin's hand-set role
/// always wins, an absent claim changes nothing, and an admin account is never changed from outside.
public enum RoleRule {
    /// The role the account takes, or `nil` when it keeps the one it has.
    public static func next(current: Role, source: RoleSource, claim: RoleClaim) -> Role? {
        guard current != .admin, current != .healthOfficer, source != .admin else { return nil }
        switch claim {
        case .absent:
            return nil
        case .directory(let role):
            guard role == .teacher || role == .student, role != current else { return nil }
            return role
        case .teachesACourse:
            return current == .student ? .teacher : nil
        }
    }

    /// The role a new account takes from a claim: a student unless the school or a course says they teach.
    public static func initial(_ claim: RoleClaim) -> Role {
        switch claim {
        case .absent: .student
        case .directory(let role): role == .teacher ? .teacher : .student
        case .teachesACourse: .teacher
        }
    }
}
