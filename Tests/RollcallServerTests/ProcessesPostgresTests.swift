import Foundation
import Logging
import NIOConcurrencyHelpers
import RollcallCore
import RollcallModel
import RollcallStorage
import SQLKit
import ServerTestSupport
import Testing

@testable import RollcallServer

/// Two server processes on one PostgreSQL database, as behind a proxy: what one shows, the other accepts, and what
/// one changes, the other's caches forget.
@Suite("Processes on PostgreSQL", .timeLimit(.minutes(3)))
struct ProcessesPostgresTests {
    @Test func a_code_projected_by_one_process_and_a_ticket_scanned_there_are_accepted_by_the_other() async throws {
        let postgres = try PostgresServer.start()
        defer { postgres.stop() }
        try await withServer(databaseURL: postgres.url) { first in
            let room = try await Classroom.open(first)
            let secondStudent = try await room.enrol(first, "Bo Second")
            try await withServer(databaseURL: postgres.url) { second in
                // The code on A's projector, scanned on B: B issues the ticket and checks the student in.
                let url = try #require(try await room.projector(first).string("url"))
                let path = String(url[url.range(of: "/C/")!.lowerBound...])
                let scanned = try await second.call(.get, path, as: room.student)
                #expect(scanned.status == .ok, "B refused A's code: \(scanned.text)")
                let ticket = try #require(scanned.string("ticket"))
                let onB = try await second.call(.post, "/api/v1/check-ins", as: room.student, json: ["ticket": ticket])
                #expect(onB.status == .created, "\(onB.text)")

                // A ticket scanned on A, checked in on B.
                let fromA = try await room.scan(first, as: secondStudent)
                let checkedIn = try await second.call(
                    .post, "/api/v1/check-ins", as: secondStudent, json: ["ticket": fromA])
                #expect(checkedIn.status == .created, "B refused a ticket from A: \(checkedIn.text)")

                // Both check-ins are in the one database, as either process's projector counts them.
                for api in [first, second] { #expect(try await room.projector(api).int("checkedIn") == 2) }
            }
        }
    }

    @Test func a_session_closed_and_a_token_revoked_on_one_process_are_refused_by_the_other() async throws {
        let postgres = try PostgresServer.start()
        defer { postgres.stop() }
        try await withServer(databaseURL: postgres.url, setup: .live) { first in
            let room = try await Classroom.open(first)
            let late = try await room.enrol(first, "Lou Late")
            try await withServer(databaseURL: postgres.url, setup: .live) { second in
                // B has just used the student's token, so it holds it in its cache.
                #expect(try await second.call(.get, "/api/v1/me", as: room.student).status == .ok)
                let ticket = try await room.scan(second, as: late)

                // Signed out on A: B refuses the token once A's notice arrives, and within the cache's lifetime
                // whatever happens to it.
                #expect(
                    try await first.call(.delete, "/api/v1/auth/tokens/current", as: room.student).status == .noContent)
                try await waitUntil("B refuses the token revoked on A") {
                    try await second.call(.get, "/api/v1/me", as: room.student).status == .unauthorized
                }

                // Closed on A: B reads a session's times afresh on every check-in, so it refuses at once.
                let closed = try await first.call(.post, "/api/v1/sessions/\(room.sessionID)/close", as: room.teacher)
                #expect(closed.status == .ok, "\(closed.text)")
                let refused = try await second.call(.post, "/api/v1/check-ins", as: late, json: ["ticket": ticket])
                #expect(refused.status != .created && refused.status != .ok, "\(refused.text)")
            }
        }
    }

    @Test func a_session_edited_on_one_process_checks_in_by_its_new_settings_on_the_other() async throws {
        let postgres = try PostgresServer.start()
        defer { postgres.stop() }
        try await withServer(databaseURL: postgres.url, setup: .live) { first in
            let room = try await Classroom.open(first)
            try await withServer(databaseURL: postgres.url, setup: .live) { second in
                let path = "/api/v1/sessions/\(room.sessionID)"
                // B has read the session, so it holds its settings: no typed code.
                #expect(try await room.projector(second).string("typedCode") == nil)
                let edited = try await first.call(
                    .patch, path, as: room.teacher, json: ["settings": ["allowTyping": true]])
                #expect(edited.status == .ok, "\(edited.text)")
                try await waitUntil("B shows the typed code allowed on A") {
                    try await room.projector(second).string("typedCode") != nil
                }
                let deleted = try await first.call(.delete, path, as: room.teacher)
                #expect(deleted.status == .noContent, "\(deleted.text)")
                try await waitUntil("B forgets the session deleted on A") {
                    try await second.call(.get, path, as: room.teacher).status == .notFound
                }
            }
        }
    }

    @Test func another_process_forgets_a_revoked_token_a_disabled_account_and_a_course_setting_at_once() async throws {
        let postgres = try PostgresServer.start()
        defer { postgres.stop() }
        try await postgres.twoProcesses { first, second in
            // B's own caches register for notices when the database is made; nothing here wires them.
            let policies = PasskeyStore(database: second)
            let users = UserStore(database: first)
            let tokensOnA = AccessTokenStore(database: first)
            let student = try await users.create(
                NewUser(
                    name: "Sam Student", email: "sam@school.test", passwordHash: "-", role: .student,
                    studentNumber: nil,
                    approved: true, emailVerified: true))
            let admin = try await users.create(
                NewUser(
                    name: "Ada Admin", email: "ada@school.test", passwordHash: "-", role: .admin, studentNumber: nil,
                    approved: true, emailVerified: true))
            try await Self.hearingA(on: second) { cache in
                let tokensOnB = AccessTokenStore(database: second, identities: cache)
                let signedOut = try await tokensOnA.issue(userID: student.id, kind: .api).token
                #expect(try await tokensOnB.identity(token: signedOut, kind: .api) != nil)
                try await tokensOnA.revoke(tokenHash: OpaqueToken.digest(signedOut))
                try await waitUntil("B forgets the token revoked on A") {
                    cache.identity(tokenHash: OpaqueToken.digest(signedOut)) == nil
                }
                #expect(try await tokensOnB.identity(token: signedOut, kind: .api) == nil)

                let kept = try await tokensOnA.issue(userID: student.id, kind: .api).token
                #expect(try await tokensOnB.identity(token: kept, kind: .api)?.user.disabled == false)
                try await users.setDisabled(id: student.id, true, by: admin)
                try await waitUntil("B forgets the account disabled on A") {
                    cache.identity(tokenHash: OpaqueToken.digest(kept)) == nil
                }
                #expect(try await tokensOnB.identity(token: kept, kind: .api) == nil)

                let course = try await first.openSessionOfNewCourse().courseId
                #expect(try await policies.policy(courseID: course).required == false)
                try await PasskeyStore(database: first).setPolicy(
                    courseID: course, CourseVerification(required: true, reuseSeconds: 0))
                try await waitUntil("B forgets the course setting changed on A") {
                    policies.policies.value(id: course, now: Date()) == nil
                }
                #expect(try await policies.policy(courseID: course).required == true)
            }
        }
    }

    @Test func a_change_made_by_plain_sql_on_one_process_is_forgotten_by_the_other() async throws {
        let postgres = try PostgresServer.start()
        defer { postgres.stop() }
        try await postgres.twoProcesses { first, second in
            let student = try await UserStore(database: first).create(
                NewUser(
                    name: "Sam Student", email: "sam@school.test", passwordHash: "-", role: .student,
                    studentNumber: nil, approved: true, emailVerified: true))
            let session = try await first.openSessionOfNewCourse()
            let tokensOnA = AccessTokenStore(database: first)
            let sessionsOnB = SessionStore(database: second)
            let policies = PasskeyStore(database: second)
            // Statements no store announces, as an operator or a maintenance task runs them: the database does.
            func onA(_ statement: SQLQueryString) async throws {
                try await first.write { sql in try await sql.raw(statement).run() }
            }
            // The passkey setting's cache keeps what it read for seconds only: the notice itself is what B must hear.
            // B's caches are made first, so that they are told of each notice before `heard` is.
            _ = second.caches
            let heard = NIOLockedValueBox<[ChangeNotice?]>([])
            second.notices.observe { notice in heard.withLockedValue { $0.append(notice) } }
            try await Self.hearingA(on: second) { cache in
                #expect(second.notices.hearsEveryChange)
                let tokensOnB = AccessTokenStore(database: second, identities: cache)
                let token = try await tokensOnA.issue(userID: student.id, kind: .api).token
                let digest = OpaqueToken.digest(token)
                #expect(try await tokensOnB.identity(token: token, kind: .api)?.user.name == "Sam Student")
                try await onA("UPDATE users SET name = 'Sam Renamed' WHERE id = \(bind: student.id)")
                try await waitUntil("B forgets the account renamed on A") { cache.identity(tokenHash: digest) == nil }
                #expect(try await tokensOnB.identity(token: token, kind: .api)?.user.name == "Sam Renamed")

                try await onA("DELETE FROM access_tokens WHERE token_hash = \(bind: digest)")
                try await waitUntil("B forgets the token deleted on A") { cache.identity(tokenHash: digest) == nil }
                #expect(try await tokensOnB.identity(token: token, kind: .api) == nil)

                #expect(try await sessionsOnB.find(id: session.id)?.storedTitle == "Monday")
                try await onA("UPDATE sessions SET title = 'Tuesday' WHERE id = \(bind: session.id)")
                try await waitUntil("B forgets the session retitled on A") {
                    second.caches.sessions.session(id: session.id) == nil
                }
                #expect(try await sessionsOnB.find(id: session.id)?.storedTitle == "Tuesday")
                try await onA("UPDATE courses SET time_zone = 'Asia/Tokyo' WHERE id = \(bind: session.courseId)")
                try await waitUntil("B forgets the sessions of the course moved on A") {
                    second.caches.sessions.session(id: session.id) == nil
                        && heard.withLockedValue { $0.contains(.course(session.courseId)) }
                }

                // The course's move was a notice of the course too: only one after the next read counts.
                heard.withLockedValue { $0.removeAll() }
                #expect(try await policies.policy(courseID: session.courseId).required == false)
                try await onA(
                    """
                    INSERT INTO course_verification (course_id, required, reuse_seconds, updated_at)
                    VALUES (\(bind: session.courseId), TRUE, 0, now())
                    """)
                try await waitUntil("B hears of the course setting made on A") {
                    heard.withLockedValue { $0.contains(.course(session.courseId)) }
                }
                #expect(policies.policies.value(id: session.courseId, now: Date()) == nil)
                #expect(try await policies.policy(courseID: session.courseId).required == true)
            }
            #expect(!second.notices.hearsEveryChange)
        }
    }

    @Test func a_first_language_kept_leaves_the_keepers_amended_account_cached() async throws {
        let postgres = try PostgresServer.start()
        defer { postgres.stop() }
        try await postgres.twoProcesses { first, second in
            let users = UserStore(database: first)
            func student(_ name: String) async throws -> User {
                try await users.create(
                    NewUser(
                        name: name, email: "\(name.lowercased())@school.test", passwordHash: "-", role: .student,
                        studentNumber: nil, approved: true, emailVerified: true))
            }
            let (newcomer, other) = (try await student("Nia"), try await student("Oto"))
            let heard = NIOLockedValueBox<[ChangeNotice?]>([])
            second.notices.observe { notice in heard.withLockedValue { $0.append(notice) } }
            try await Self.hearingA(on: second) { cache in
                let token = try await AccessTokenStore(database: first).issue(userID: newcomer.id, kind: .api).token
                let tokensOnB = AccessTokenStore(database: second, identities: cache)
                #expect(try await tokensOnB.identity(token: token, kind: .api)?.user.firstLanguage == nil)
                // The newcomer's first request on B keeps their language, and B amends what it holds.
                try await UserStore(database: second, identities: cache).keepFirstLanguage("fr", of: newcomer.id)
                // A change committed after it: notices arrive in the order of their commits, so once this one is
                // heard, a notice of the first language would have been too.
                try await first.write { sql in
                    try await sql.raw("UPDATE users SET name = 'Oto Renamed' WHERE id = \(bind: other.id)").run()
                }
                try await waitUntil("B hears of the account renamed on A") {
                    heard.withLockedValue { $0.contains(.user(other.id)) }
                }
                #expect(!heard.withLockedValue { $0.contains(.user(newcomer.id)) })
                #expect(cache.identity(tokenHash: OpaqueToken.digest(token))?.user.firstLanguage == "fr")
                // A language changed where one was kept is announced, as every other change of an account.
                try await first.write { sql in
                    try await sql.raw("UPDATE users SET first_language = 'de' WHERE id = \(bind: newcomer.id)").run()
                }
                try await waitUntil("B forgets the first language changed on A") {
                    cache.identity(tokenHash: OpaqueToken.digest(token)) == nil
                }
            }
        }
    }

    @Test func a_role_the_school_or_a_platform_changes_on_one_process_is_forgotten_by_the_other_at_once()
        async throws
    {
        let postgres = try PostgresServer.start()
        defer { postgres.stop() }
        try await postgres.twoProcesses { first, second in
            let tokensOnA = AccessTokenStore(database: first)
            let logger = Logger(label: "test")
            try await Self.hearingA(on: second) { cache in
                let tokensOnB = AccessTokenStore(database: second, identities: cache)
                // A token of the person's on A, read on B; then their role changed on A, which B must forget.
                func roleOnB(of person: User, becomes role: Role, by change: () async throws -> User, _ what: String)
                    async throws
                {
                    let token = try await tokensOnA.issue(userID: person.id, kind: .api).token
                    #expect(try await tokensOnB.identity(token: token, kind: .api)?.user.role == person.role)
                    #expect(try await change().role == role)
                    try await waitUntil("B forgets the role \(what) changed on A") {
                        cache.identity(tokenHash: OpaqueToken.digest(token)) == nil
                    }
                    #expect(try await tokensOnB.identity(token: token, kind: .api)?.user.role == role)
                }

                // The school's directory makes a teacher, then takes the role back at the next sign-in on A.
                let school = SingleSignOnStore(database: first)
                func signIn(_ role: Role) async throws -> User {
                    let person = FederatedPerson(
                        name: "Tam Teacher", email: "tam@school.test", emailVerified: true, role: .directory(role),
                        updatesAddress: true)
                    let outcome = try await school.account(
                        issuer: "https://idp.school.test", subject: "tam", person: person, linking: nil,
                        logger: logger)
                    guard case .signedIn(let user) = outcome else { throw Refused(outcome: "\(outcome)") }
                    return user
                }
                try await roleOnB(
                    of: try await signIn(.teacher), becomes: .student, by: { try await signIn(.student) },
                    "the school")

                // A platform's launch on A names a learner its course's instructor.
                let platform = try #require(
                    try await PlatformStore(database: first).create(
                        .init(
                            name: "Moodle", issuer: "https://lms.school.test", clientId: "rollcall",
                            deploymentIds: ["1"], authorizationUrl: "https://lms.school.test/auth",
                            tokenUrl: "https://lms.school.test/token", jwksUrl: "https://lms.school.test/jwks")))
                let people = PlatformPeople(database: first)
                func launch(_ role: RoleClaim) async throws -> User {
                    try await people.account(
                        platformID: platform.id, subject: "lee",
                        person: FederatedPerson(
                            name: "Lee Learner", emailVerified: false, role: role, updatesAddress: false),
                        logger: logger)
                }
                try await roleOnB(
                    of: try await launch(.absent), becomes: .teacher, by: { try await launch(.teachesACourse) },
                    "the platform")
            }
        }
    }

    private struct Refused: Error {
        var outcome: String
    }

    /// Runs `body` once B's listener hears A's notices, with an identity cache they reach that keeps what it reads for
    /// an hour: only A's notices can make it forget within a test.
    private static func hearingA(on second: Database, _ body: (IdentityCache) async throws -> Void) async throws {
        let cache = IdentityCache(lifetime: 3600)
        let listening = NIOLockedValueBox(false)
        second.notices.observe { notice in
            if notice == nil { listening.withLockedValue { $0 = true } }
            cache.forget(notice)
        }
        let listener = try #require(second.liveServices.first)
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await listener.run() }
            try await waitUntil("B listens") { listening.withLockedValue { $0 } }
            try await body(cache)
            group.cancelAll()
        }
    }

    @Test func a_counter_counts_every_attempt_of_a_crowd_across_two_processes() async throws {
        let postgres = try PostgresServer.start()
        defer { postgres.stop() }
        try await postgres.twoProcesses { first, second in
            let counters = [AttemptCounters(database: first), AttemptCounters(database: second)]
            // A lecture hall registering at once behind one address: sixty attempts at one counter, none lost and
            // none refused by the database itself.
            try await withThrowingTaskGroup(of: Void.self) { group in
                for attempt in 0..<60 {
                    group.addTask {
                        try await counters[attempt % 2].admit(
                            .registration, key: "10.0.0.1", under: RateLimit(limit: 1000, window: 3600),
                            refusal: "Too many.")
                    }
                }
                try await group.waitForAll()
            }
            let count = try await counters[0].update(.registration, key: "10.0.0.1") { ($0, $0?.count) }
            #expect(count == 60)
        }
    }
}

/// Waits for `condition` with a generous deadline, for what another process does in its own time.
func waitUntil(
    _ what: String, timeout: Duration = .seconds(30), _ condition: () async throws -> Bool
) async throws {
    let deadline = ContinuousClock.now + timeout
    while try await !condition() {
        guard ContinuousClock.now < deadline else {
            Issue.record("timed out: \(what)")
            return
        }
        try await Task.sleep(for: .milliseconds(20))
    }
}
