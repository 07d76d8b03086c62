import Hummingbird

/// Every path of sessions: scheduling, opening, correcting and closing them.
enum SessionRoutes {
    static let courseSessions = APIPath.api("courses/:courseID/sessions")
    static let session = APIPath.api("sessions/:sessionID")
    static let open = APIPath.api("sessions/:sessionID/open")
    static let close = APIPath.api("sessions/:sessionID/close")
    static let extend = APIPath.api("sessions/:sessionID/extend")
    static let reopen = APIPath.api("sessions/:sessionID/reopen")
    static let courseAudit = APIPath.api("courses/:courseID/audit")
    static let timetable = APIPath.api("courses/:courseID/timetable")
    static let timetableSlot = APIPath.api("courses/:courseID/timetable/:slotID")
}

extension SessionRoutes {
    static let sessionPage: RouterPath = "/sessions/:sessionID"
}
