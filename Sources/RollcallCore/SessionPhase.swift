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

extension SessionPhase {
    /// Whether a session that never opened is past its time: scheduled for `scheduledAt`, it would have closed
    /// `openMinutes` later, and `now` is after that. Such a session did not take place; the teacher opens it late or
    /// cancels it.
    public static func missed(_ phase: SessionPhase, scheduledAt: Date?, openMinutes: Int, now: Date) -> Bool {
        guard phase == .scheduled, let scheduledAt else { return false }
        return scheduledAt.addingTimeInterval(Double(openMinutes) * 60) <= now
    }
}
