/// How Rollcall slows down password guessing: a few mistakes are free, then each costs time, then the account rests.
public struct SignInThrottle: Sendable, Equatable {
    /// Failures allowed before answers slow down.
    public var freeFailures: Int
    /// Failures after which sign-in is refused until `lockout` has passed since the last failure.
    public var lockoutAfter: Int
    /// How long a locked account refuses sign-in, in seconds.
    public var lockout: Double
    /// A failure older than this, in seconds, no longer counts.
    public var memory: Double

    public init(freeFailures: Int = 3, lockoutAfter: Int = 6, lockout: Double = 15 * 60, memory: Double = 60 * 60) {
        self.freeFailures = freeFailures
        self.lockoutAfter = lockoutAfter
        self.lockout = lockout
        self.memory = memory
    }

    /// What to do with the next sign-in attempt.
    public enum Decision: Equatable, Sendable {
        /// Check the password now.
        case allow
        /// Check the password after waiting this many seconds, so guessing is slow.
        case delay(Double)
        /// Refuse without checking; the caller may try again after this many seconds.
        case refuse(retryAfter: Double)
    }

    /// Decides from the failures recorded so far, `secondsSinceLastFailure` being `nil` when there were none.
    public func decide(failures: Int, secondsSinceLastFailure: Double?) -> Decision {
        guard let since = secondsSinceLastFailure, failures > 0, since < memory else { return .allow }
        if failures >= lockoutAfter {
            return since < lockout ? .refuse(retryAfter: (lockout - since).rounded(.up)) : .allow
        }
        if failures >= freeFailures {
            return .delay(Double(failures - freeFailures + 1) * 0.5)
        }
        return .allow
    }

    /// The failure count after one more failure; an old streak starts again from one.
    public func failuresAfterFailure(failures: Int, secondsSinceLastFailure: Double?) -> Int {
        guard let since = secondsSinceLastFailure, since < memory else { return 1 }
        if failures >= lockoutAfter && since >= lockout { return 1 }
        return failures + 1
    }
}
