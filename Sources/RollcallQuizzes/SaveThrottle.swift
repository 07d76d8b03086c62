import Foundation
import NIOConcurrencyHelpers
import RollcallCore

/// Keeps one attempt's answer saves to a pace a person can make, so that a script saving hundreds of times a second
/// neither fills the log nor slows the class: past it, saves answer 429 with `Retry-After` and the quiz page keeps
/// the answer and sends it again. Counted in this process's memory: the save route is the quiz's busiest, and a
/// flood is stopped at whichever process it reaches.
final class SaveThrottle: Sendable {
    /// Saves per attempt: twenty in five seconds, more than clicking through a page of choices takes.
    static let limit = RateLimit(limit: 20, window: 5)

    private let counts = NIOLockedValueBox<[Int64: RateLimit.Count]>([:])
    /// Past this many attempts counted the memory starts afresh rather than grow without bound.
    let capacity: Int

    init(capacity: Int = 100_000) {
        self.capacity = capacity
    }

    /// Counts one save of the attempt; answers the seconds to wait when it is one too many.
    func admit(attemptID: Int64, now: Date = Date()) -> Double? {
        counts.withLockedValue { counts in
            if counts.count >= capacity { counts.removeAll(keepingCapacity: true) }
            let (count, retryAfter) = Self.limit.admit(counts[attemptID], now: now)
            counts[attemptID] = count
            return retryAfter
        }
    }
}
