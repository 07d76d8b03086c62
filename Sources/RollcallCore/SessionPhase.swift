import Foundation

/// Where a session is in its life; only an open session takes check-ins.
public enum SessionPhase: String, Codable, CaseIterable, Sendable {
    case scheduled, open, closed

    /// The phase at `now`: a session closes when the teacher closes it or when its open time runs out.
    public static func at(_ now: Date, openedAt: Date?, closesAt: Date?, closedAt: Date?) -> SessionPhase {
        if let closedAt, closedAt <= now { return .closed }
        guard let openedAt, openedAt <= now else { return .scheduled }
        if let closesAt, closesAt <= now { return .closed }
        return .open
    }
}
