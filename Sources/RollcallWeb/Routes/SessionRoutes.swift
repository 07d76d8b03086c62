import Hummingbird

/// Every path of sessions: scheduling, opening, correcting and closing them.
package enum SessionRoutes {
    package static let courseSessions = APIPath.api("courses/:courseID/sessions")
    package static let session = APIPath.api("sessions/:sessionID")
    package static let open = APIPath.api("sessions/:sessionID/open")
    package static let close = APIPath.api("sessions/:sessionID/close")
    package static let extend = APIPath.api("sessions/:sessionID/extend")
    package static let reopen = APIPath.api("sessions/:sessionID/reopen")
    package static let courseAudit = APIPath.api("courses/:courseID/audit")
    package static let timetable = APIPath.api("courses/:courseID/timetable")
    package static let timetableSlot = APIPath.api("courses/:courseID/timetable/:slotID")
}

extension SessionRoutes {
    package static let sessionPage: RouterPath = "/sessions/:sessionID"
}
