import Foundation

/// How long evidence is kept: location readings, device ids, client addresses, passkey verifications and flags age
/// out after the retention period; attendance records, audit entries and grades stay.
public enum Retention {
    public static let defaultDays = 30
    public static let allowedDays = 1...3650

    /// The oldest moment still kept at `now`: anything recorded before it is deleted.
    public static func cutoff(now: Date, days: Int) -> Date {
        now.addingTimeInterval(-Double(days) * 86_400)
    }
}
