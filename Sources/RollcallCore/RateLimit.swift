import Foundation

/// At most `limit` events per `window` seconds for one key, such as registrations from one address per hour.
public struct RateLimit: Sendable, Equatable {
    public var limit: Int
    /// Seconds; the window starts with the first event counted in it.
    public var window: Double

    public init(limit: Int, window: Double) {
        self.limit = limit
        self.window = window
    }

    /// A key's count in its current window.
    public struct Count: Sendable, Equatable {
        public var count: Int
        public var since: Date

        public init(count: Int, since: Date) {
            self.count = count
            self.since = since
        }
    }

    /// Admits one more event or refuses it: the count to keep (a refusal changes nothing), and, when refused, the
    /// seconds after which the key may try again.
    public func admit(_ current: Count?, now: Date) -> (count: Count, retryAfter: Double?) {
        guard let current, now.timeIntervalSince(current.since) < window else {
            return (Count(count: 1, since: now), nil)
        }
        guard current.count < limit else {
            return (current, max(1, (window - now.timeIntervalSince(current.since)).rounded(.up)))
        }
        return (Count(count: current.count + 1, since: current.since), nil)
    }
}
