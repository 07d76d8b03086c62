import Foundation
import NIOConcurrencyHelpers
import RollcallStorage

extension Database {
    /// This process's caches of rows, told of every notice from the moment they are made (`Caches`).
    package var caches: Caches { companion(Caches.self) { Caches(notices: $0.notices) } }
}

/// A cache of what the database holds, which a change notice may make stale.
package protocol NoticedCache: AnyObject, Sendable {
    /// Forgets what `notice` names, or everything when it is `nil` (anything may have changed).
    func forget(_ notice: ChangeNotice?)
}

/// The caches of one process's database, each made once with the database and told of every change notice from
/// the moment it is made: whichever store reads through them, no process keeps a copy that another can't invalidate.
package final class Caches: Sendable {
    /// Who each token belongs to (`AccessTokenStore`, `UserStore`), kept long while every change is heard.
    package let identities: IdentityCache
    /// The parts of sessions that change only by an edit (`SessionStore`).
    package let sessions = FixedSessions()
    /// Sessions' times and course names as read at most a second ago, for scans (`SessionStore.recent`). A room's
    /// scans arrive together, and a scan decides nothing by them: it words the refusal of an old code and names the
    /// course; the check-in reads them afresh.
    package let moments = RecentReads<SessionMoment>(lifetime: 1) { notice in
        if case .session(let id) = notice { id } else { nil }
    }
    /// Each course's passkey setting as read at most 5 s ago (`PasskeyStore`): every check-in of a room asks for it.
    package let passkeyPolicies = RecentReads<CourseVerification>(lifetime: 5) { notice in
        if case .course(let id) = notice { id } else { nil }
    }
    /// Quiz runs' questions and course, which never change once a run has started: no notice concerns them
    /// (`QuizRuns.fixedRun`).
    package let quizRuns = FixedValues<QuizRun>(capacity: 10_000)
    /// Whose each attempt is and of which run: neither ever changes, so no notice concerns them either
    /// (`QuizAttempts.known`): a save of an attempt known to be the student's goes to its statement without reading
    /// its access first, and verifies it there.
    package let attempts = FixedValues<KnownAttempt>(capacity: 100_000)

    package init(notices: ChangeNotices) {
        identities = IdentityCache(hearing: { notices.hearsEveryChange })
        for cache in [identities, sessions, moments, passkeyPolicies] as [any NoticedCache] {
            notices.observe { cache.forget($0) }
        }
    }
}

/// A cache's entries behind one lock, with a count of its forgets: a read remembers what it found only if nothing was
/// forgotten while it read, since a change may have committed after the read and its forget come before the
/// remember.
package final class Forgetting<Entries: Sendable>: Sendable {
    private struct State {
        var entries: Entries
        var forgets: UInt64 = 0
    }

    private let state: NIOLockedValueBox<State>

    package init(_ entries: Entries) {
        state = NIOLockedValueBox(State(entries: entries))
    }

    /// Where forgetting stands now: take it before reading, and remember what was read since it.
    package var mark: UInt64 { state.withLockedValue { $0.forgets } }

    /// Looks the entries up, or amends them as a write of this process just did; neither counts as a forget.
    package func withEntries<Result>(_ body: (inout Entries) -> Result) -> Result {
        state.withLockedValue { body(&$0.entries) }
    }

    /// Keeps what a read found, unless something was forgotten since `mark` (`nil` keeps it whatever was).
    package func remember(readSince mark: UInt64?, _ keep: (inout Entries) -> Void) {
        state.withLockedValue { state in
            if let mark, state.forgets != mark { return }
            keep(&state.entries)
        }
    }

    /// Forgets, and counts it, so that a read that began before it is not remembered after it.
    package func forget(_ change: (inout Entries) -> Void) {
        state.withLockedValue { state in
            state.forgets &+= 1
            change(&state.entries)
        }
    }
}

/// Values by id as read at most `lifetime` ago, bounded: what a change through another process makes stale shows
/// within the lifetime even if its notice is lost. A notice that names an id forgets it at once.
package final class RecentReads<Value: Sendable>: NoticedCache {
    private let entries = NIOLockedValueBox<[Int64: (value: Value, expires: Date)]>([:])
    package let lifetime: TimeInterval
    /// The id a notice concerns in this cache, if any.
    private let concerned: @Sendable (ChangeNotice) -> Int64?

    package init(lifetime: TimeInterval, concerned: @escaping @Sendable (ChangeNotice) -> Int64?) {
        self.lifetime = lifetime
        self.concerned = concerned
    }

    package func value(id: Int64, now: Date) -> Value? {
        entries.withLockedValue { entries in entries[id].flatMap { $0.expires > now ? $0.value : nil } }
    }

    package func remember(_ value: Value, id: Int64, now: Date) {
        entries.withLockedValue { entries in
            if entries.count > 10_000 { entries.removeAll() }
            entries[id] = (value, now.addingTimeInterval(lifetime))
        }
    }

    package func forget(id: Int64) {
        _ = entries.withLockedValue { $0.removeValue(forKey: id) }
    }

    package func forget(_ notice: ChangeNotice?) {
        guard let notice else { return entries.withLockedValue { $0.removeAll() } }
        if let id = concerned(notice) { forget(id: id) }
    }
}

/// Values by id that never change once stored, kept in memory; past `capacity` the memory starts afresh rather than
/// grow without bound.
package final class FixedValues<Value: Sendable>: Sendable {
    private let values = NIOLockedValueBox<[Int64: Value]>([:])
    package let capacity: Int

    package init(capacity: Int) {
        self.capacity = capacity
    }

    package func value(id: Int64) -> Value? {
        values.withLockedValue { $0[id] }
    }

    package func keep(_ value: Value, id: Int64) {
        values.withLockedValue { values in
            if values.count >= capacity { values = [:] }
            values[id] = value
        }
    }
}
