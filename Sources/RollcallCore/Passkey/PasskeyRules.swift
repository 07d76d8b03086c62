import Foundation

/// Rules for what people enter about passkeys, and for reusing a recent verification at check-in.
public enum PasskeyRules {
    public static let nameLength = 1...60
    /// Seconds a course may let one verification serve later check-ins; 0 turns reuse off.
    public static let reuseRange = 0...3600

    /// A passkey's name as people see it on the Devices page, trimmed.
    public static func name(_ raw: String) throws(RuleViolation) -> String {
        let name = try TextRules.plain(raw.trimmingCharacters(in: .whitespacesAndNewlines), field: "name")
        guard nameLength.contains(name.count), !name.contains(where: { $0.isNewline }) else {
            throw RuleViolation(
                field: "name", message: "Give the passkey a name of 1 to 60 characters, like “My phone”.")
        }
        return name
    }

    /// A course's reuse window in seconds.
    public static func reuseSeconds(_ value: Int) throws(RuleViolation) -> Int {
        guard reuseRange.contains(value) else {
            throw RuleViolation(
                field: "reuseSeconds", message: "Reuse a verification for 0 (off) to 3600 seconds (one hour).")
        }
        return value
    }

    /// Whether a verification made at `verifiedAt` still vouches for a check-in at `now`: only strictly inside a
    /// window that is on, and never from the future.
    public static func mayReuse(verifiedAt: Date?, now: Date, windowSeconds: Int) -> Bool {
        guard windowSeconds > 0, let verifiedAt, verifiedAt <= now else { return false }
        return now.timeIntervalSince(verifiedAt) < Double(windowSeconds)
    }
}
