import Hummingbird

/// Every path of the live room.
public enum LiveRoutes {
    public static let live = APIPath.api("sessions/:sessionID/live")
}
