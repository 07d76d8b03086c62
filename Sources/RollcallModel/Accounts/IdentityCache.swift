import Foundation
import RollcallStorage

/// Remembers who a token belongs to, so that a room checking in at once does not look every token up twice per student,
/// nor a quiz every save. Changes made through this process forget the entries at once; on PostgreSQL, changes made
/// by another process are forgotten when the database's notice arrives (`ChangeNotices`). While this process hears
/// every such notice, an entry is kept for `heardLifetime`; otherwise for `lifetime` only, so that a change another
/// process made shows within it whatever happens. No entry outlives its token.
package final class IdentityCache: NoticedCache {
    private struct Entry {
        package var identity: Identity
        package var expires: Date
    }

    /// The entries by token, and each person's tokens among them, so that forgetting a person costs their tokens,
    /// not the whole cache: a room checking in for the first time forgets each student once.
    private struct Entries {
        var byToken: [String: Entry] = [:]
        var byUser: [Int64: Set<String>] = [:]

        mutating func remove(_ tokenHash: String) {
            guard let entry = byToken.removeValue(forKey: tokenHash) else { return }
            let user = entry.identity.user.id
            byUser[user]?.remove(tokenHash)
            if byUser[user]?.isEmpty == true { byUser[user] = nil }
        }

        mutating func removeAll() {
            byToken.removeAll(keepingCapacity: true)
            byUser.removeAll(keepingCapacity: true)
        }
    }

    private let entries = Forgetting(Entries())
    package let lifetime: TimeInterval
    /// How long an entry is kept while every change is heard: a student of a quiz acts every few seconds, on any
    /// process, for an hour or more.
    package let heardLifetime: TimeInterval
    /// Whether every change another process commits is heard now (`ChangeNotices.hearsEveryChange`).
    private let hearing: @Sendable () -> Bool
    /// Past this many entries the cache starts afresh rather than grow without bound.
    package let capacity: Int

    package init(
        lifetime: TimeInterval = 5, heardLifetime: TimeInterval = 600, capacity: Int = 50_000,
        hearing: @escaping @Sendable () -> Bool = { false }
    ) {
        self.lifetime = lifetime
        self.heardLifetime = heardLifetime
        self.capacity = capacity
        self.hearing = hearing
    }

    package func identity(tokenHash: String, now: Date = Date()) -> Identity? {
        entries.withEntries { entries in
            guard let entry = entries.byToken[tokenHash] else { return nil }
            guard entry.expires > now else {
                entries.remove(tokenHash)
                return nil
            }
            return entry.identity
        }
    }

    /// Where the cache's forgetting stands now, for a look-up to remember its answer only if nothing was forgotten
    /// while it read (`remember(_:now:readSince:)`).
    package var mark: UInt64 { entries.mark }

    /// Remembers what a look-up read, until the token `expires` at the latest, unless something was forgotten since
    /// `mark`: a sign-out may have deleted the token after the look-up read it, and its forget came before this
    /// remember.
    package func remember(
        _ identity: Identity, now: Date = Date(), expires: Date = .distantFuture, readSince mark: UInt64? = nil
    ) {
        // Read before the lock and the mark's check: hearing that ended after this point forgot everything since.
        let kept = now.addingTimeInterval(hearing() ? heardLifetime : lifetime)
        entries.remember(readSince: mark) { entries in
            if entries.byToken.count >= capacity { entries.removeAll() }
            entries.remove(identity.tokenHash)
            entries.byToken[identity.tokenHash] = Entry(identity: identity, expires: min(kept, expires))
            entries.byUser[identity.user.id, default: []].insert(identity.tokenHash)
        }
    }

    package func forget(tokenHash: String) {
        entries.forget { $0.remove(tokenHash) }
    }

    /// Forgets every token of a person whose account changed.
    package func forget(userID: Int64) {
        entries.forget { entries in
            for tokenHash in entries.byUser[userID] ?? [] { entries.remove(tokenHash) }
        }
    }

    /// Changes a person's cached account as a write of this process just changed it in the database.
    package func amend(userID: Int64, _ change: (inout User) -> Void) {
        entries.withEntries { entries in
            for tokenHash in entries.byUser[userID] ?? [] where entries.byToken[tokenHash] != nil {
                change(&entries.byToken[tokenHash]!.identity.user)
            }
        }
    }

    /// Forgets what a notice says changed, or everything when anything may have.
    package func forget(_ notice: ChangeNotice?) {
        switch notice {
        case .user(let id)?: forget(userID: id)
        case .token(let hash)?: forget(tokenHash: hash)
        case nil: entries.forget { $0.removeAll() }
        case .course?, .session?: break
        }
    }
}
