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
    /// Who each token belongs to (`AccessTokenStore`, `UserStore`).
    package let identities = IdentityCache()
    /// The parts of sessions that change only by an edit (`SessionStore`).
    package let sessions = FixedSessions()
    /// Sessions' times and course names as read a moment ago, for scans (`SessionStore.recent`).
    package let moments = RecentMoments()
    /// Each course's passkey setting (`PasskeyStore`).
    package let passkeyPolicies = PasskeyPolicies()
    /// Quiz runs' questions and course, which never change once a run has started: no notice concerns them.
    package let quizRuns = FixedRuns()

    package init(notices: ChangeNotices) {
        for cache in [identities, sessions, moments, passkeyPolicies] as [any NoticedCache] {
            notices.observe { cache.forget($0) }
        }
    }
}

/// Each course's passkey setting as last read, for a few seconds: every check-in of a room asks for it.
package final class PasskeyPolicies: NoticedCache {
    private let entries = NIOLockedValueBox<[Int64: (policy: CourseVerification, expires: Date)]>([:])
    /// How long a setting is kept; a change made through another process shows within it even if its notice is lost.
    package static let lifetime: TimeInterval = 5

    package func policy(courseID: Int64, now: Date) -> CourseVerification? {
        entries.withLockedValue { entries in entries[courseID].flatMap { $0.expires > now ? $0.policy : nil } }
    }

    package func remember(_ policy: CourseVerification, courseID: Int64, now: Date) {
        entries.withLockedValue { entries in
            if entries.count > 10_000 { entries.removeAll() }
            entries[courseID] = (policy, now.addingTimeInterval(Self.lifetime))
        }
    }

    package func forget(courseID: Int64) {
        _ = entries.withLockedValue { $0.removeValue(forKey: courseID) }
    }

    package func forget(_ notice: ChangeNotice?) {
        switch notice {
        case .course(let id)?: forget(courseID: id)
        case nil: entries.withLockedValue { $0.removeAll() }
        case .user?, .token?, .session?: break
        }
    }
}

/// Sessions' times and course names as read at most `lifetime` ago. A room's scans arrive together, and a scan decides
/// nothing by them: it words the refusal of an old code and names the course; the check-in reads them afresh.
package final class RecentMoments: NoticedCache {
    private let entries = NIOLockedValueBox<[Int64: (moment: SessionMoment, expires: Date)]>([:])
    /// How long a moment is kept: a session closed or a course renamed through another process shows within it.
    package static let lifetime: TimeInterval = 1

    package func moment(sessionID: Int64, now: Date) -> SessionMoment? {
        entries.withLockedValue { entries in entries[sessionID].flatMap { $0.expires > now ? $0.moment : nil } }
    }

    package func remember(_ moment: SessionMoment, sessionID: Int64, now: Date) {
        entries.withLockedValue { entries in
            if entries.count > 10_000 { entries.removeAll() }
            entries[sessionID] = (moment, now.addingTimeInterval(Self.lifetime))
        }
    }

    package func forget(sessionID: Int64) {
        _ = entries.withLockedValue { $0.removeValue(forKey: sessionID) }
    }

    package func forget(_ notice: ChangeNotice?) {
        switch notice {
        case .session(let id)?: forget(sessionID: id)
        case nil: entries.withLockedValue { $0.removeAll() }
        case .user?, .token?, .course?: break
        }
    }
}
