import Hummingbird

/// Every path of roster imports and invitations.
enum RosterRoutes {
    static let rosterImport = APIPath.api("courses/:courseID/roster-import")
    static let invitations = APIPath.api("courses/:courseID/invitations")
}
