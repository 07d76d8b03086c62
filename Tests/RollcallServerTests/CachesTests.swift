import Foundation
import Logging
import NIOConcurrencyHelpers
import RollcallModel
import RollcallStorage
import SQLKit
import ServerTestSupport
import Testing

@testable import RollcallServer

/// The process's caches: made with the database, and told of every change notice whichever store filled them.
@Suite("Caches", .timeLimit(.minutes(5)))
struct CachesTests {
    @Test func every_cache_forgets_what_a_notice_names_whichever_store_filled_it() async throws {
        // Setup: a session, a course setting and a token, each read once through a store made on its own (as a
        // background service or a maintenance task makes them), so each sits in the database's caches.
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("rollcall-caches-\(UUID()).sqlite")
            .path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let database = try Database.sqlite(path: path, logger: Logger(label: "test"))
        try await database.closing {
            try await Migrations.apply(to: $0)
            let session = try await $0.openSessionOfNewCourse()
            _ = try await SessionStore(database: $0).find(id: session.id)
            _ = try await SessionStore(database: $0).recent(id: session.id, now: Date())
            _ = try await PasskeyStore(database: $0).policy(courseID: session.courseId)
            let tokens = AccessTokenStore(database: $0)
            let token = try await tokens.issue(userID: 1, kind: .api).token
            _ = try await tokens.identity(token: token, kind: .api)
            let caches = $0.caches
            #expect(caches.sessions.session(id: session.id) != nil)
            #expect(caches.moments.value(id: session.id, now: Date()) != nil)
            #expect(caches.passkeyPolicies.value(id: session.courseId, now: Date()) != nil)
            #expect(caches.identities.identity(tokenHash: OpaqueToken.digest(token)) != nil)

            // The call under test: notices arrive, as `LiveNotifications` hands them over from other processes.
            $0.notices.received(.session(session.id))
            $0.notices.received(.course(session.courseId))
            $0.notices.received(.user(1))

            // Validation: each cache has forgotten at once, without any wiring by whoever made the stores.
            #expect(caches.sessions.session(id: session.id) == nil, "the edited session is read again")
            #expect(caches.moments.value(id: session.id, now: Date()) == nil, "its times are read again")
            #expect(
                caches.passkeyPolicies.value(id: session.courseId, now: Date()) == nil,
                "the changed course setting is read again")
            #expect(
                caches.identities.identity(tokenHash: OpaqueToken.digest(token)) == nil,
                "the changed account's tokens are looked up again")
        }
    }

    @Test func forgetting_a_person_forgets_their_tokens_only_whatever_else_is_cached() async throws {
        try await Self.withIdentityCache { database, cache in
            let users = UserStore(database: database)
            let tokens = AccessTokenStore(database: database, identities: cache)
            var issued: [Int64: [String]] = [:]
            for name in ["Ana", "Ben", "Cy"] {
                let user = try await users.create(
                    NewUser(
                        name: name, email: "\(name.lowercased())@school.test", passwordHash: "-", role: .student,
                        studentNumber: nil, approved: true, emailVerified: true))
                for _ in 0..<3 {
                    let token = try await tokens.issue(userID: user.id, kind: .api).token
                    #expect(try await tokens.identity(token: token, kind: .api) != nil)
                    issued[user.id, default: []].append(OpaqueToken.digest(token))
                }
            }
            let (forgotten, kept) = (issued.keys.min()!, issued.keys.max()!)
            cache.forget(userID: forgotten)
            for hash in issued[forgotten]! { #expect(cache.identity(tokenHash: hash) == nil) }
            for hash in issued[kept]! { #expect(cache.identity(tokenHash: hash) != nil) }
            // A token forgotten alone leaves the person's other tokens, and forgetting the person later still
            // reaches them.
            cache.forget(tokenHash: issued[kept]![0])
            #expect(cache.identity(tokenHash: issued[kept]![1]) != nil)
            cache.forget(userID: kept)
            for hash in issued[kept]! { #expect(cache.identity(tokenHash: hash) == nil) }
        }
    }

    @Test func a_first_language_kept_amends_the_cached_account_instead_of_forgetting_it() async throws {
        try await Self.withIdentityCache { database, cache in
            let users = UserStore(database: database, identities: cache)
            let tokens = AccessTokenStore(database: database, identities: cache)
            let user = try await users.create(
                NewUser(
                    name: "Ana", email: "ana@school.test", passwordHash: "-", role: .student, studentNumber: nil,
                    approved: true, emailVerified: true))
            let token = try await tokens.issue(userID: user.id, kind: .api).token
            #expect(try await tokens.identity(token: token, kind: .api)?.user.firstLanguage == nil)

            // A newcomer's first request keeps their language: their next request finds them cached, language and all.
            try await users.keepFirstLanguage("fr", of: user.id)
            #expect(cache.identity(tokenHash: OpaqueToken.digest(token))?.user.firstLanguage == "fr")
            #expect(try await users.find(id: user.id)?.firstLanguage == "fr")

            // A second language is not kept over the first, in the database or in the cache.
            try await users.keepFirstLanguage("de", of: user.id)
            #expect(try await users.find(id: user.id)?.firstLanguage == "fr")
            #expect(try await tokens.identity(token: token, kind: .api)?.user.firstLanguage == "fr")
        }
    }

    @Test func a_scan_reads_a_sessions_times_at_most_a_second_old_and_a_close_here_at_once() async throws {
        try await Self.withIdentityCache { database, _ in
            let session = try await database.openSessionOfNewCourse()
            let sessions = SessionStore(database: database)
            let start = Date()
            #expect(try await sessions.recent(id: session.id, now: start)?.courseName == "Biology")

            // Renamed and closed behind the store's back, as another process would: kept for the lifetime only.
            try await database.write { sql in
                try await sql.raw("UPDATE courses SET name = 'Botany' WHERE id = \(bind: session.courseId)").run()
            }
            let kept = try #require(try await sessions.recent(id: session.id, now: start.addingTimeInterval(0.5)))
            #expect(kept.courseName == "Biology")
            let later = start.addingTimeInterval(database.caches.moments.lifetime + 0.01)
            #expect(try await sessions.recent(id: session.id, now: later)?.courseName == "Botany")

            // Closed through this process's store: the next scan knows at once.
            #expect(try await sessions.recent(id: session.id, now: later)?.closedAt == nil)
            _ = try await sessions.close(id: session.id, now: later)
            #expect(try await sessions.recent(id: session.id, now: later)?.closedAt != nil)
            #expect(try await sessions.recent(id: session.id + 1, now: later) == nil)
        }
    }

    @Test func an_identity_is_kept_long_only_while_every_change_is_heard_and_never_past_its_token() async throws {
        try await Self.withIdentityCache { database, _ in
            let user = try await UserStore(database: database).create(
                NewUser(
                    name: "Ana", email: "ana@school.test", passwordHash: "-", role: .student, studentNumber: nil,
                    approved: true, emailVerified: true))
            let tokens = AccessTokenStore(database: database)
            let token = try await tokens.issue(userID: user.id, kind: .api).token
            let identity = try #require(try await tokens.identity(token: token, kind: .api))
            let cache = database.caches.identities
            let start = Date()
            func kept(after seconds: TimeInterval) -> Bool {
                cache.identity(tokenHash: identity.tokenHash, now: start.addingTimeInterval(seconds)) != nil
            }

            // Nobody listening (one process, or a listener away): what another process changed shows within seconds.
            cache.remember(identity, now: start, expires: start.addingTimeInterval(86_400))
            #expect(kept(after: cache.lifetime - 1) && !kept(after: cache.lifetime + 1))

            // Every change heard: kept for minutes, and never past the token's own end.
            _ = database.notices.beganHearing()
            #expect(!kept(after: 0), "what was read before listening began is read again")
            cache.remember(identity, now: start, expires: start.addingTimeInterval(86_400))
            #expect(kept(after: cache.heardLifetime - 1) && !kept(after: cache.heardLifetime + 1))
            cache.remember(identity, now: start, expires: start.addingTimeInterval(60))
            #expect(kept(after: 59) && !kept(after: 61))

            // The store's own look-up keeps it until the token ends, at the latest.
            cache.forget(tokenHash: identity.tokenHash)
            _ = try await tokens.identity(token: token, kind: .api)
            #expect(kept(after: cache.heardLifetime - 5))
            try await database.write { sql in
                try await sql.update("access_tokens").set("expires_at", to: SQLBind(start.addingTimeInterval(60)))
                    .where("token_hash", .equal, identity.tokenHash).run()
            }
            cache.forget(tokenHash: identity.tokenHash)
            _ = try await tokens.identity(token: token, kind: .api)
            #expect(kept(after: 59) && !kept(after: 61))

            // Hearing ends: everything kept on its promise is forgotten, and what is read next is kept for seconds.
            database.notices.stoppedHearing()
            #expect(!kept(after: 0))
            cache.remember(identity, now: start, expires: start.addingTimeInterval(86_400))
            #expect(kept(after: cache.lifetime - 1) && !kept(after: cache.lifetime + 1))
        }
    }

    @Test func a_listen_that_ends_late_does_not_unsay_the_next_ones_hearing() async throws {
        try await Self.withIdentityCache { database, _ in Self.listens(database.notices) }
    }

    private static func listens(_ notices: ChangeNotices) {
        let forgets = NIOLockedValueBox(0)
        notices.observe { notice in if notice == nil { forgets.withLockedValue { $0 += 1 } } }
        // A listen let go on a connection that closed under it, and the next one, begun before the first ended.
        let stale = notices.beganHearing()
        let next = notices.beganHearing()
        notices.stoppedHearing(stale)
        #expect(notices.hearsEveryChange, "the next listen still hears every change")
        #expect(forgets.withLockedValue { $0 } == 2, "and nothing is forgotten for the old one's end")
        notices.stoppedHearing(next)
        #expect(!notices.hearsEveryChange)
        // The listener's own end, whichever listen it was in.
        _ = notices.beganHearing()
        notices.stoppedHearing()
        #expect(!notices.hearsEveryChange)
        #expect(forgets.withLockedValue { $0 } == 5)
    }

    @Test func a_session_read_before_its_edit_was_heard_of_is_not_kept() async throws {
        try await Self.withIdentityCache { database, _ in
            let session = try await database.openSessionOfNewCourse()
            let fixed = FixedSessions()
            // A read began, an edit's notice arrived meanwhile, then the read ends: what it found may be the old row.
            let mark = fixed.mark
            fixed.forget(.session(session.id))
            fixed.remember(session, readSince: mark)
            #expect(fixed.session(id: session.id) == nil)
            // A read that no notice crossed is kept until one names it.
            fixed.remember(session, readSince: fixed.mark)
            #expect(fixed.session(id: session.id) == session)
            fixed.forget(.session(session.id + 1))
            #expect(fixed.session(id: session.id) == session)
            fixed.forget(.session(session.id))
            #expect(fixed.session(id: session.id) == nil)
            // A changed course (its zone says its sessions' default titles) forgets its sessions, and only its own.
            fixed.remember(session, readSince: fixed.mark)
            fixed.forget(.course(session.courseId + 1))
            #expect(fixed.session(id: session.id) == session)
            fixed.forget(.course(session.courseId))
            #expect(fixed.session(id: session.id) == nil)
        }
    }

    /// A migrated SQLite file in a temporary directory and an identity cache that keeps what it is told for an hour.
    static func withIdentityCache(_ body: (Database, IdentityCache) async throws -> Void) async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("rollcall-identities-\(UUID()).sqlite")
            .path
        defer { try? FileManager.default.removeItem(atPath: path) }
        try await Database.sqlite(path: path, logger: Logger(label: "test")).closing { database in
            try await Migrations.apply(to: database)
            try await body(database, IdentityCache(lifetime: 3600))
        }
    }
}
