import Foundation
import Logging
import RollcallModel
import RollcallStorage
import ServerTestSupport
import Testing

@testable import RollcallServer

/// The process's caches: made with the database, and told of every change notice whichever store filled them.
@Suite("Caches")
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
            _ = try await PasskeyStore(database: $0).policy(courseID: session.courseId)
            let tokens = AccessTokenStore(database: $0)
            let token = try await tokens.issue(userID: 1, kind: .api).token
            _ = try await tokens.identity(token: token, kind: .api)
            let caches = $0.caches
            #expect(caches.sessions.session(id: session.id) != nil)
            #expect(caches.passkeyPolicies.policy(courseID: session.courseId, now: Date()) != nil)
            #expect(caches.identities.identity(tokenHash: OpaqueToken.digest(token)) != nil)

            // The call under test: notices arrive, as `LiveNotifications` hands them over from other processes.
            $0.notices.received(.session(session.id))
            $0.notices.received(.course(session.courseId))
            $0.notices.received(.user(1))

            // Validation: each cache has forgotten at once, without any wiring by whoever made the stores.
            #expect(caches.sessions.session(id: session.id) == nil, "the edited session is read again")
            #expect(
                caches.passkeyPolicies.policy(courseID: session.courseId, now: Date()) == nil,
                "the changed course setting is read again")
            #expect(
                caches.identities.identity(tokenHash: OpaqueToken.digest(token)) == nil,
                "the changed account's tokens are looked up again")
        }
    }
}
