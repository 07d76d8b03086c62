import Foundation
import NIOConcurrencyHelpers
import RollcallStorage

/// Remembers who a token belongs to for a few seconds, so that a room checking in at once does not look every token
/// up twice per student. Changes made through this process forget the entries at once; on PostgreSQL, changes made
/// by another process are forgotten when its notice arrives (`ChangeNotices`), and within `lifetime` if it is lost.
package final class IdentityCache: NoticedCache {
    private struct Entry {
        package var identity: Identity
        package var expires: Date
    }

    private let entries = NIOLockedValueBox<[String: Entry]>([:])
    package let lifetime: TimeInterval
    /// Past this many entries the cache starts afresh rather than grow without bound.
    package let capacity: Int

    package init(lifetime: TimeInterval = 5, capacity: Int = 50_000) {
        self.lifetime = lifetime
        self.capacity = capacity
    }

    package func identity(tokenHash: String, now: Date = Date()) -> Identity? {
        entries.withLockedValue { entries in
            guard let entry = entries[tokenHash] else { return nil }
            guard entry.expires > now else {
                entries[tokenHash] = nil
                return nil
            }
            return entry.identity
        }
    }

    package func remember(_ identity: Identity, now: Date = Date()) {
        entries.withLockedValue { entries in
            if entries.count >= capacity { entries.removeAll(keepingCapacity: true) }
            entries[identity.tokenHash] = Entry(identity: identity, expires: now.addingTimeInterval(lifetime))
        }
    }

    package func forget(tokenHash: String) {
        _ = entries.withLockedValue { $0.removeValue(forKey: tokenHash) }
    }

    /// Forgets every token of a person whose account changed.
    package func forget(userID: Int64) {
        entries.withLockedValue { entries in entries = entries.filter { $0.value.identity.user.id != userID } }
    }

    /// Forgets what a notice says changed, or everything when anything may have.
    package func forget(_ notice: ChangeNotice?) {
        switch notice {
        case .user(let id)?: forget(userID: id)
        case .token(let hash)?: forget(tokenHash: hash)
        case nil: entries.withLockedValue { $0.removeAll() }
        case .course?, .session?: break
        }
    }
}
