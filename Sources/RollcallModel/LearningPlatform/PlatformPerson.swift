import RollcallCore

/// What a platform says of a person, in the federation's terms: an instructor of a course may become a teacher,
/// and nothing else a platform says moves a role. A platform's address is nobody's proof.
extension FederatedPerson {
    package init(launch: LTI.Launch) {
        self.init(
            name: launch.name, email: launch.email, emailVerified: false, studentNumber: launch.studentNumber,
            role: launch.role == .teacher ? .teachesACourse : .absent, updatesAddress: false)
    }

    package init(member: LTI.Member, studentNumber: String?) {
        self.init(
            name: member.name, email: member.email, emailVerified: false, studentNumber: studentNumber,
            role: member.role == .teacher ? .teachesACourse : .absent, updatesAddress: false)
    }
}
