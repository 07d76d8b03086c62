import Hummingbird

/// Every path of roster imports and invitations.
enum RosterRoutes {
    static let rosterImport = APIPath.api("courses/:courseID/roster-import")
    static let invitations = APIPath.api("courses/:courseID/invitations")
}

extension RosterRoutes {
    /// Adds the roster import and the list of invitations.
    static func addRoutes(to router: AppRouter, _ parts: AppParts) {
        RosterController(courses: parts.stores.courses, mail: parts.invitationMail, access: parts.access)
            .addRoutes(to: router)
    }
}
