import Hummingbird

/// Every path of sessions: scheduling, opening and closing them.
enum SessionRoutes {
    static let courseSessions = APIPath.api("courses/:courseID/sessions")
    static let session = APIPath.api("sessions/:sessionID")
    static let open = APIPath.api("sessions/:sessionID/open")
    static let close = APIPath.api("sessions/:sessionID/close")
}

extension SessionRoutes {
    static let sessionPage: RouterPath = "/sessions/:sessionID"
}
