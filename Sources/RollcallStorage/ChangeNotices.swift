import Foundation
import NIOConcurrencyHelpers

/// A change that a process's caches may hold an older copy of.
package enum ChangeNotice: Sendable, Equatable {
    /// An account changed (disabled, approved, renamed, deleted, its tokens revoked): its tokens' identities go.
    case user(Int64)
    /// One token was revoked (signed out).
    case token(hash: String)
    /// A course's passkey setting changed.
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
/// Every cache keeps its entries for a few seconds at most, so a change made by another process shows within that
/// lifetime whatever happens. The process that made the change tells its own caches at once (`Database.announce`),
/// and on PostgreSQL also sends a notification, which `LiveNotifications` hands to `received` in every process; a
/// listener that lost its connection forgets everything when it listens again.
package final class ChangeNotices: Sendable {
    private let observers = NIOLockedValueBox<[@Sendable (ChangeNotice?) -> Void]>([])

    /// Calls `forget` with each notice, or with `nil` when everything may have changed.
    package func observe(_ forget: @escaping @Sendable (ChangeNotice?) -> Void) {
        observers.withLockedValue { $0.append(forget) }
    }

    package func received(_ notice: ChangeNotice?) {
        for forget in observers.withLockedValue({ $0 }) { forget(notice) }
    }
}
