import Hummingbird

/// Every path of the live room.
enum LiveRoutes {
    static let live = APIPath.api("sessions/:sessionID/live")
}
