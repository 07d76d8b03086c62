/// The stable names of a session's events, which live clients switch on.
public enum SessionEventKind: String, Codable, CaseIterable, Sendable {
    case checkedIn = "checked_in"
    case statusChanged = "status_changed"
    case flagged
    case sessionOpened = "session_opened"
    case sessionClosed = "session_closed"
    case heard
}
