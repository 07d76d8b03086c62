import Hummingbird

/// Every path of roster imports and invitations.
package enum RosterRoutes {
    package static let rosterImport = APIPath.api("courses/:courseID/roster-import")
    package static let invitations = APIPath.api("courses/:courseID/invitations")
}
