/// A kind of live feed: an event log of its own, keyed by what its views watch (a session, a quiz run).
///
/// Everything else — appending in the change's transaction, waking views after the commit, carrying the wake-up
/// to other processes, streaming to a socket with resume — is shared (`EventLog`, `LiveHubs`, `LiveNotifications`,
/// `LiveSocket`), so a third feed is one more value here and its table.
package struct LiveFeed: Sendable, Hashable {
    /// Names the feed in cross-process notifications, `<name>:<key>`.
    package let name: String
    /// The table of its events: `id`, the key column, `kind`, `payload` (JSON text), `created_at`.
    package let table: String
    package let keyColumn: String
    /// The PostgreSQL advisory lock class that orders each key's events; apart from every other lock.
    package let lockClass: Int64

    /// A session's room: check-ins, changes of status, flags, opening and closing.
    package static let sessions = LiveFeed(
        name: "session", table: "session_events", keyColumn: "session_id", lockClass: 0x5256_4c45)
    /// A quiz run's dashboard: attempts, answers, flags, admissions.
    package static let quizRuns = LiveFeed(
        name: "quiz", table: "quiz_events", keyColumn: "run_id", lockClass: 0x5256_5155)

    package static let all: [LiveFeed] = [.sessions, .quizRuns]

    /// The payload of the notification that wakes the views of `key` in other processes.
    package func notification(key: Int64) -> String { notificationPrefix + "\(key)" }

    /// What every notification of the feed starts with, before its key.
    package var notificationPrefix: String { name + ":" }

    /// The feed and key a notification names, if any.
    package static func parse(notification payload: String) -> (LiveFeed, Int64)? {
        let parts = payload.split(separator: ":", maxSplits: 1)
        guard parts.count == 2, let feed = all.first(where: { $0.name == parts[0] }), let key = Int64(parts[1]) else {
            return nil
        }
        return (feed, key)
    }
}

/// One live hub per feed, woken after the commits that touched their keys (`Database.transaction`) and by other
/// processes' notifications (`LiveNotifications`).
package final class LiveHubs: Sendable {
    private let hubs: [LiveFeed: LiveHub] = Dictionary(uniqueKeysWithValues: LiveFeed.all.map { ($0, LiveHub()) })

    package subscript(feed: LiveFeed) -> LiveHub { hubs[feed]! }

    /// The sessions' hub, which the projector and the room watch.
    package var sessions: LiveHub { self[.sessions] }

    /// Wakes every view of every feed, when notifications from other processes may have been missed.
    package func publishedToAll() {
        for hub in hubs.values { hub.publishedToAll() }
    }
}
