import Foundation
import NIOConcurrencyHelpers

/// A change that a process's caches may hold an older copy of.
package enum ChangeNotice: Sendable, Equatable {
    /// An account changed (disabled, approved, renamed, deleted, its tokens revoked): its tokens' identities go.
    case user(Int64)
    /// One token was revoked (signed out).
    case token(hash: String)
    /// A course changed: its passkey setting, or its zone, in which its sessions' default titles are said.
    case course(Int64)
    /// A session's title or settings changed, or it was deleted.
    case session(Int64)

    /// The payload of the PostgreSQL notification carrying it.
    package var payload: String {
        switch self {
        case .user(let id): "user \(id)"
        case .token(let hash): "token \(hash)"
        case .course(let id): "course \(id)"
        case .session(let id): "session \(id)"
        }
    }

    package init?(payload: String) {
        let parts = payload.split(separator: " ", maxSplits: 1)
        guard parts.count == 2 else { return nil }
        switch (parts[0], Int64(parts[1])) {
        case ("user", let id?): self = .user(id)
        case ("token", _): self = .token(hash: String(parts[1]))
        case ("course", let id?): self = .course(id)
        case ("session", let id?): self = .session(id)
        default: return nil
        }
    }
}

/// Tells the caches of this process that something they may hold has changed in the database.
///
/// The process that made a change tells its own caches at once (`Database.announce`). On PostgreSQL the database
/// announces every change to a cached row to every process, in the change's transaction, and `LiveNotifications`
/// hands each to `received`. While that listener is connected, this process hears every change committed since it
/// began to listen (`hearsEveryChange`), and a cache may keep what it read for as long as it likes; otherwise only for
/// a few seconds, so that a change made by another process shows within that lifetime whatever happens. A listener
/// that stops listening, or begins again, forgets everything.
package final class ChangeNotices: Sendable {
    private let observers = NIOLockedValueBox<[@Sendable (ChangeNotice?) -> Void]>([])
    /// Whether a listen hears every change now, and the number of the latest listen that began.
    private let hearing = NIOLockedValueBox((on: false, latest: UInt64(0)))

    /// Calls `forget` with each notice, or with `nil` when everything may have changed.
    package func observe(_ forget: @escaping @Sendable (ChangeNotice?) -> Void) {
        observers.withLockedValue { $0.append(forget) }
    }

    package func received(_ notice: ChangeNotice?) {
        for forget in observers.withLockedValue({ $0 }) { forget(notice) }
    }

    /// Whether every change another process commits reaches `received` now: PostgreSQL's notifications, heard on a
    /// connection that is listening.
    package var hearsEveryChange: Bool { hearing.withLockedValue { $0.on } }

    /// Marks the start of a listen, once it hears every change from now on: what was read before is forgotten, since a
    /// change may have come and gone unheard. Answers the listen's number, for `stoppedHearing(_:)`.
    package func beganHearing() -> UInt64 {
        received(nil)
        return hearing.withLockedValue { hearing in
            hearing = (on: true, latest: hearing.latest &+ 1)
            return hearing.latest
        }
    }

    /// Marks the end of listen number `listen`, or of whichever listen there is when `nil`: from now on a change may go
    /// unheard, so what was kept on the promise of hearing it is forgotten, and caches keep what they read for their
    /// short lifetimes only. The end of a listen older than the latest changes nothing: a listen let go on a
    /// connection that closed under it may end after the next one began.
    package func stoppedHearing(_ listen: UInt64? = nil) {
        let stopped = hearing.withLockedValue { hearing in
            guard listen == nil || listen == hearing.latest else { return false }
            hearing.on = false
            return true
        }
        if stopped { received(nil) }
    }
}
