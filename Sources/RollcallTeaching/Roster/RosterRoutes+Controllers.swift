import Hummingbird
import RollcallParts
import RollcallWeb

extension RosterRoutes {
    /// Adds the roster import and the list of invitations.
    package static func addRoutes(to router: AppRouter, _ parts: AppParts) {
        RosterController(courses: parts.stores.courses, mail: parts.invitationMail, access: parts.access)
            .addRoutes(to: router)
    }
}
