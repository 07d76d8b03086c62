import Foundation
import Logging
import RollcallCore
import SQLKit

/// A learning platform an admin registered (Canvas, Moodle, Blackboard, Brightspace): where its LTI 1.3 endpoints
/// are and which of its deployments may launch Rollcall.
struct LearningPlatform: Codable, Sendable, Equatable {
    var id: Int64
    var name: String
    var issuer: String
    var clientId: String
    var deploymentIds: [String]
    var authorizationUrl: String
    var tokenUrl: String
    var jwksUrl: String
    var createdAt: Date

    var registration: LTI.Registration {
        LTI.Registration(issuer: issuer, clientID: clientId, deploymentIDs: deploymentIds)
    }
}

/// A platform's course linked to one of Rollcall's, with the services its launches named.
struct LinkedCourse: Codable, Sendable, Equatable {
    var id: Int64
    var platformId: Int64
    var contextId: String
    var courseId: Int64
    var deploymentId: String
    var title: String
    var membershipsUrl: String?
    var lineItemsUrl: String?
    var lineItemUrl: String?
    /// The placed link whose launch linked the course; the line item Rollcall makes is bound to it.
    var resourceLinkId: String?
    /// The gradebook scopes the latest instructor's launch offered, by spaces; empty for links kept before.
    var gradeScopes: String?
    var gradedThrough: Date?
    var syncedAt: Date?
    var createdAt: Date

    /// The gradebook scopes offered, as a list.
    var offeredScopes: [String] { (gradeScopes ?? "").split(separator: " ").map(String.init) }
}

/// Registrations, launches under way, the platform's people and courses as Rollcall links them.
struct PlatformStore: Sendable {
    let database: Database
    let courses: CourseStore

    /// How long a browser has between the login initiation and the launch, and a new window to open.
    static let loginLifetime: TimeInterval = 600
    static let handoffLifetime: TimeInterval = 120

    /// What an admin gives to register a platform, already checked.
    struct Registration: Sendable {
        var name: String
        var issuer: String
        var clientId: String
        var deploymentIds: [String]
        var authorizationUrl: String
        var tokenUrl: String
        var jwksUrl: String
    }

    private struct Row: Decodable {
        var id: Int64
        var name: String
        var issuer: String
        var clientId: String
        var deploymentIds: String
        var authorizationUrl: String
        var tokenUrl: String
        var jwksUrl: String
        var createdAt: Date

        var platform: LearningPlatform {
            LearningPlatform(
                id: id, name: name, issuer: issuer, clientId: clientId,
                deploymentIds: (try? JSONDecoder().decode([String].self, from: Data(deploymentIds.utf8))) ?? [],
                authorizationUrl: authorizationUrl, tokenUrl: tokenUrl, jwksUrl: jwksUrl, createdAt: createdAt)
        }
    }

    // MARK: Registrations

    func list() async throws -> [LearningPlatform] {
        try await database.read { sql in
            try await sql.select().column("*").from("lti_platforms").orderBy("id")
                .all(decoding: Row.self, with: .rollcall).map(\.platform)
        }
    }

    func find(id: Int64) async throws -> LearningPlatform? {
        try await database.read { sql in
            try await sql.select().column("*").from("lti_platforms").where("id", .equal, id)
                .first(decoding: Row.self, with: .rollcall)?.platform
        }
    }

    /// The platforms with this issuer; of these, the one with `clientID` when it is given.
    func find(issuer: String, clientID: String?) async throws -> [LearningPlatform] {
        try await database.read { sql in
            let select = sql.select().column("*").from("lti_platforms").where("issuer", .equal, issuer)
            if let clientID { select.where("client_id", .equal, clientID) }
            return try await select.all(decoding: Row.self, with: .rollcall).map(\.platform)
        }
    }

    /// Registers a platform; `nil` when one with this issuer and client id is registered already.
    func create(_ registration: Registration, now: Date = Date()) async throws -> LearningPlatform? {
        try await database.write { sql in try await Self.insert(registration, createdAt: now, in: sql) }
    }

    /// Inserts a registration in a transaction under way; `nil` when its issuer and client id are taken.
    static func insert(_ registration: Registration, createdAt: Date, in sql: any SQLDatabase) async throws
        -> LearningPlatform?
    {
        try await values(registration, createdAt: createdAt, into: sql.insert(into: "lti_platforms"))
            .ignoringConflicts(with: ["issuer", "client_id"])
            .returning("*").first(decoding: Row.self, with: .rollcall)?.platform
    }

    /// Replaces a registration's settings; `nil` when there is no such platform. Throws `PlatformExists` when the
    /// new issuer and client id are another registration's.
    func update(id: Int64, _ registration: Registration) async throws -> LearningPlatform? {
        try await database.transaction { sql in
            if try await sql.select().column("id").from("lti_platforms")
                .where("issuer", .equal, registration.issuer).where("client_id", .equal, registration.clientId)
                .where("id", .notEqual, id).first() != nil
            {
                throw PlatformExists()
            }
            let ids = String(decoding: try JSONEncoder().encode(registration.deploymentIds), as: UTF8.self)
            return try await sql.update("lti_platforms").set("name", to: registration.name)
                .set("issuer", to: registration.issuer).set("client_id", to: registration.clientId)
                .set("deployment_ids", to: ids).set("authorization_url", to: registration.authorizationUrl)
                .set("token_url", to: registration.tokenUrl).set("jwks_url", to: registration.jwksUrl)
                .where("id", .equal, id).returning("*").first(decoding: Row.self, with: .rollcall)?.platform
        }
    }

    /// Lets the registered platforms frame Rollcall's pages (their issuers' and authorization endpoints' origins),
    /// and nobody else.
    func allowFraming(_ framing: FrameAncestors) async throws {
        framing.allow(try await list().flatMap { [$0.issuer, $0.authorizationUrl] })
    }

    /// Removes a registration with its people's links and course links; the accounts and courses stay.
    func delete(id: Int64) async throws -> Bool {
        try await database.write { sql in
            try await sql.delete(from: "lti_platforms").where("id", .equal, id).returning("id").first() != nil
        }
    }

    private static func values(_ registration: Registration, createdAt: Date, into insert: SQLInsertBuilder) throws
        -> SQLInsertBuilder
    {
        let ids = String(decoding: try JSONEncoder().encode(registration.deploymentIds), as: UTF8.self)
        return insert.columns(
            "name", "issuer", "client_id", "deployment_ids", "authorization_url", "token_url", "jwks_url", "created_at"
        ).values(
            SQLBind(registration.name), SQLBind(registration.issuer), SQLBind(registration.clientId), SQLBind(ids),
            SQLBind(registration.authorizationUrl), SQLBind(registration.tokenUrl), SQLBind(registration.jwksUrl),
            SQLBind(createdAt))
    }

    /// The issuer and client id are another registration's.
    struct PlatformExists: Error {}

    // MARK: Logins and handoffs

    /// What a platform's login initiation asked for: whom (`login_hint`) and which launch (`lti_message_hint`).
    struct LoginHints: Codable, Sendable {
        var loginHint: String
        var messageHint: String?
    }

    /// Keeps a login initiation for its launch, and clears those whose time is up.
    func beginLogin(
        state: String, browser: String, nonce: String, platformID: Int64, hints: LoginHints, now: Date = Date()
    ) async throws {
        try await database.write { sql in
            try await sql.delete(from: "lti_logins").where("expires_at", .lessThan, now).run()
            try await sql.insert(into: "lti_logins")
                .columns(
                    "state_hash", "platform_id", "browser_hash", "nonce", "expires_at", "login_hint", "message_hint"
                )
                .values(
                    SQLBind(OpaqueToken.digest(state)), SQLBind(platformID), SQLBind(OpaqueToken.digest(browser)),
                    SQLBind(nonce), SQLBind(now.addingTimeInterval(Self.loginLifetime)), SQLBind(hints.loginHint),
                    SQLBind(hints.messageHint)
                ).run()
        }
    }

    /// A login initiation waiting for its launch.
    struct PendingLogin: Decodable, Sendable {
        var platformId: Int64
        var browserHash: String
        var nonce: String
        var expiresAt: Date
        var loginHint: String?
        var messageHint: String?
    }

    /// Takes the login a state names, once.
    func takeLogin(state: String) async throws -> PendingLogin? {
        try await take(
            from: "lti_logins", by: "state_hash", token: state,
            returning: ["platform_id", "browser_hash", "nonce", "expires_at", "login_hint", "message_hint"])
    }

    /// Takes a single-use row by its token's digest, once whichever process asks: by deleting it and reading what
    /// was deleted.
    private func take<Row: Decodable & Sendable>(
        from table: String, by column: String, token: String, returning columns: [String]
    ) async throws -> Row? {
        try await database.write { sql in
            try await sql.delete(from: table).where(SQLColumn(column), .equal, SQLBind(OpaqueToken.digest(token)))
                .returning(columns.map { SQLColumn($0) }).first(decoding: Row.self, with: .rollcall)
        }
    }

    /// A code for the new window a framed launch without cookies opens: it signs nobody in by itself, but begins
    /// the platform's login again there, as a window of its own, where the platform says who is signed in to it in
    /// that browser. Works once, for two minutes.
    func handoff(userID: Int64, platformID: Int64, hints: LoginHints, now: Date = Date()) async throws -> String {
        let code = OpaqueToken.make()
        try await database.write { sql in
            try await sql.delete(from: "lti_handoffs").where("expires_at", .lessThan, now).run()
            try await sql.insert(into: "lti_handoffs")
                .columns("code_hash", "user_id", "next", "expires_at", "platform_id", "login_hint", "message_hint")
                .values(
                    SQLBind(OpaqueToken.digest(code)), SQLBind(userID), SQLBind(""),
                    SQLBind(now.addingTimeInterval(Self.handoffLifetime)), SQLBind(platformID),
                    SQLBind(hints.loginHint), SQLBind(hints.messageHint)
                ).run()
        }
        return code
    }

    struct Handoff: Decodable, Sendable {
        var userId: Int64
        var expiresAt: Date
        var platformId: Int64?
        var loginHint: String?
        var messageHint: String?
    }

    /// Takes a handoff code, once.
    func takeHandoff(code: String) async throws -> Handoff? {
        try await take(
            from: "lti_handoffs", by: "code_hash", token: code,
            returning: ["user_id", "expires_at", "platform_id", "login_hint", "message_hint"])
    }

    // MARK: Launches waiting for an answer

    /// What a waiting launch asks its person.
    enum PendingKind: String, Sendable {
        /// Whether the account Rollcall has for the platform's address is theirs, to link.
        case account
        /// Which of the teacher's courses the platform's course is, or a new one.
        case course
    }

    /// A launch waiting for its person's answer.
    struct Pending: Sendable {
        var kind: PendingKind
        var platformID: Int64
        /// The person asked, for a course; none yet for an account.
        var userID: Int64?
        var launch: LTI.Launch
    }

    /// How long a launch waits for its answer.
    static let pendingLifetime: TimeInterval = 900

    /// Keeps a launch until its person answers; answers the code that names it.
    func keep(_ pending: Pending, now: Date = Date()) async throws -> String {
        let code = OpaqueToken.make()
        let launch = String(decoding: try JSONEncoder().encode(pending.launch), as: UTF8.self)
        try await database.write { sql in
            try await sql.delete(from: "lti_pending").where("expires_at", .lessThan, now).run()
            try await sql.insert(into: "lti_pending")
                .columns("code_hash", "kind", "platform_id", "user_id", "launch", "expires_at")
                .values(
                    SQLBind(OpaqueToken.digest(code)), SQLBind(pending.kind.rawValue), SQLBind(pending.platformID),
                    SQLBind(pending.userID), SQLBind(launch), SQLBind(now.addingTimeInterval(Self.pendingLifetime))
                ).run()
        }
        return code
    }

    private struct PendingRow: Decodable {
        var kind: String
        var platformId: Int64
        var userId: Int64?
        var launch: String
        var expiresAt: Date

        var pending: Pending? {
            guard expiresAt > Date(), let kind = PendingKind(rawValue: kind),
                let launch = try? JSONDecoder().decode(LTI.Launch.self, from: Data(launch.utf8))
            else { return nil }
            return Pending(kind: kind, platformID: platformId, userID: userId, launch: launch)
        }
    }

    /// The launch a code names, while it waits; read, not taken, so that a refused answer can be given again.
    func pending(code: String) async throws -> Pending? {
        try await database.read { sql in
            try await sql.select().column("*").from("lti_pending").where("code_hash", .equal, OpaqueToken.digest(code))
                .first(decoding: PendingRow.self, with: .rollcall)?.pending
        }
    }

    /// Takes the launch a code names, once.
    func takePending(code: String) async throws -> Pending? {
        let row: PendingRow? = try await take(
            from: "lti_pending", by: "code_hash", token: code,
            returning: ["kind", "platform_id", "user_id", "launch", "expires_at"])
        return row?.pending
    }

    /// Whether the platform's person is linked to an account already.
    func isLinked(platformID: Int64, subject: String) async throws -> Bool {
        try await database.read { sql in try await Self.linkedUser(platformID, subject, in: sql) } != nil
    }

    /// The account with this address that the platform's person might own: one not linked to this platform yet,
    /// neither deleted nor disabled.
    func unlinkedAccount(email: String?, platformID: Int64) async throws -> User? {
        guard let address = email.flatMap({ try? AccountRules.email($0) }) else { return nil }
        return try await database.read { sql in
            guard
                let user = try await sql.select().column("*").from("users").where("email", .equal, address)
                    .first(decoding: User.self, with: .rollcall),
                user.deletedAt == nil, !user.disabled,
                try await sql.select().column("user_id").from("lti_identities")
                    .where("platform_id", .equal, platformID).where("user_id", .equal, user.id).first() == nil
            else { return nil }
            return user
        }
    }

    /// Links the platform's person to an account Rollcall has: from now on their launches sign in to it.
    func linkIdentity(platformID: Int64, subject: String, to userID: Int64, now: Date = Date()) async throws {
        try await database.write { sql in
            try await sql.insert(into: "lti_identities").columns("platform_id", "subject", "user_id", "created_at")
                .values(SQLBind(platformID), SQLBind(subject), SQLBind(userID), SQLBind(now))
                .ignoringConflicts(with: ["platform_id", "subject"]).run()
        }
        database.caches.identities.forget(userID: userID)
    }

    /// The courses a teacher may link a platform's course to: their own, not archived, not linked yet.
    func linkableCourses(teacherID: Int64) async throws -> [Course] {
        try await database.read { sql in
            try await sql.raw(
                """
                SELECT * FROM courses WHERE teacher_id = \(bind: teacherID) AND archived_at IS NULL
                  AND id NOT IN (SELECT course_id FROM lti_courses) ORDER BY name, id
                """
            ).all(decoding: Course.self, with: .rollcall)
        }
    }

    // MARK: People

    /// The platform's person, as a Rollcall account: the one linked to the platform and subject (brought up to date
    /// by the federation's rules), or a new one. An address the platform gives is used for a new account only where
    /// no account has it: a person is never linked by address alone.
    func account(
        platformID: Int64, subject: String, person: FederatedPerson, logger: Logger, now: Date = Date()
    ) async throws -> User {
        let made: User
        do {
            made = try await database.transaction { sql in
                if let linked = try await Self.linkedUser(platformID, subject, in: sql) {
                    try await UserStore.refreshFederated(linked, from: person, now: now, logger: logger, in: sql)
                    return try await UserStore.user(linked.id, in: sql)
                }
                let address = try await Self.freeAddress(
                    person.email, platformID: platformID, subject: subject, in: sql)
                let id = try await UserStore.createFederated(
                    person, address: address, fallbackName: LTI.placeholderName(subject: subject), now: now, in: sql)
                try await sql.insert(into: "lti_identities").columns("platform_id", "subject", "user_id", "created_at")
                    .values(SQLBind(platformID), SQLBind(subject), SQLBind(id), SQLBind(now)).run()
                return try await UserStore.user(id, in: sql)
            }
        } catch {
            // Two launches of one new person at once, on two processes: the other made the account first.
            guard
                let linked = try await database.read({ sql in try await Self.linkedUser(platformID, subject, in: sql) })
            else { throw error }
            made = linked
        }
        database.caches.identities.forget(userID: made.id)
        return made
    }

    private static func linkedUser(_ platformID: Int64, _ subject: String, in sql: any SQLDatabase) async throws
        -> User?
    {
        try await sql.select().column(SQLColumn("*", table: "users")).from("lti_identities")
            .join("users", on: SQLColumn("id", table: "users"), .equal, SQLColumn("user_id", table: "lti_identities"))
            .where(SQLColumn("platform_id", table: "lti_identities"), .equal, SQLBind(platformID))
            .where(SQLColumn("subject", table: "lti_identities"), .equal, SQLBind(subject))
            .first(decoding: User.self, with: .rollcall)
    }

    /// The platform's address when it is one and no account has it; else an address that reaches nobody, unique to
    /// this person, until they set their own on their profile.
    private static func freeAddress(
        _ email: String?, platformID: Int64, subject: String, in sql: any SQLDatabase
    ) async throws -> String {
        if let address = email.flatMap({ try? AccountRules.email($0) }),
            try await sql.select().column("id").from("users").where("email", .equal, address).first() == nil
        {
            return address
        }
        return "lti-\(platformID)-\(OpaqueToken.digest(subject).prefix(16))@platform.invalid"
    }

    // MARK: Courses

    /// The linked course of a platform's context, if linked.
    func linkedCourse(platformID: Int64, contextID: String) async throws -> LinkedCourse? {
        try await database.read { sql in
            try await sql.select().column("*").from("lti_courses").where("platform_id", .equal, platformID)
                .where("context_id", .equal, contextID).first(decoding: LinkedCourse.self, with: .rollcall)
        }
    }

    /// The platform course a Rollcall course is linked to, if any.
    func linkedCourse(courseID: Int64) async throws -> LinkedCourse? {
        try await database.read { sql in
            try await sql.select().column("*").from("lti_courses").where("course_id", .equal, courseID)
                .first(decoding: LinkedCourse.self, with: .rollcall)
        }
    }

    /// The linked course of an instructor's launch: made, with a new Rollcall course taught by `teacherID`, on the
    /// context's first instructor launch; with its service URLs brought up to date on every later one.
    func link(
        _ launch: LTI.Launch, context: LTI.Context, platformID: Int64, teacherID: Int64, existing: Int64? = nil,
        now: Date = Date()
    ) async throws -> LinkedCourse {
        if let linked = try await linkedCourse(platformID: platformID, contextID: context.id) {
            try await database.write { sql in
                try await sql.update("lti_courses").set("title", to: context.title)
                    .set("memberships_url", to: launch.membershipsURL ?? linked.membershipsUrl)
                    .set("line_items_url", to: launch.lineItemsURL ?? linked.lineItemsUrl)
                    .set("line_item_url", to: linked.lineItemUrl ?? launch.lineItemURL)
                    .set("resource_link_id", to: linked.resourceLinkId ?? launch.resourceLinkID)
                    .set("grade_scopes", to: launch.gradeScopes.joined(separator: " "))
                    .where("id", .equal, linked.id).run()
            }
            return try await linkedCourse(platformID: platformID, contextID: context.id) ?? linked
        }
        let name = (try? AccountRules.name(context.title)) ?? "Course from \(String(context.id.prefix(40)))"
        @Sendable func insertLink(courseID: Int64, in sql: any SQLDatabase) async throws -> Bool {
            try await sql.insert(into: "lti_courses")
                .columns(
                    "platform_id", "context_id", "course_id", "deployment_id", "title", "memberships_url",
                    "line_items_url", "line_item_url", "resource_link_id", "grade_scopes", "created_at"
                )
                .values(
                    SQLBind(platformID), SQLBind(context.id), SQLBind(courseID), SQLBind(launch.deploymentID),
                    SQLBind(context.title), SQLBind(launch.membershipsURL), SQLBind(launch.lineItemsURL),
                    SQLBind(launch.lineItemURL), SQLBind(launch.resourceLinkID),
                    SQLBind(launch.gradeScopes.joined(separator: " ")), SQLBind(now)
                )
                // Either conflict: the context linked meanwhile, or the course picked linked to another context.
                .ignoringConflicts().returning("id").first() != nil
        }
        if let existing, let found = try await courses.find(id: existing) {
            _ = try await database.write { sql in try await insertLink(courseID: found.id, in: sql) }
        } else {
            // The new course and its link are one transaction: nobody sees the course unlinked (an instructor's
            // other launch would offer it to pick), and a launch that loses the race to link keeps no course.
            do {
                try await database.transaction { sql in
                    let course = try await CourseStore.create(
                        teacherID: teacherID, name: name, description: "", plannedSessions: nil,
                        timeZone: CourseTimeZone.serverDefault, in: sql)
                    guard try await insertLink(courseID: course.id, in: sql) else { throw LinkedMeanwhile() }
                }
            } catch is LinkedMeanwhile {}
        }
        guard let linked = try await linkedCourse(platformID: platformID, contextID: context.id) else {
            throw AppError(
                .conflict, .ltiCourseLinked,
                "That course was linked to another course of the platform meanwhile. Open Rollcall from the course again to pick another."
            )
        }
        return linked
    }

    /// Another launch of the same context linked it first.
    private struct LinkedMeanwhile: Error {}

    /// Keeps the line item Rollcall's grades go to.
    func setLineItem(_ url: String, linkedCourseID: Int64) async throws {
        try await database.write { sql in
            try await sql.update("lti_courses").set("line_item_url", to: url).where("id", .equal, linkedCourseID).run()
        }
    }

    /// The students on the roster who came from the platform, with their platform subject and Rollcall id.
    func linkedStudents(_ linked: LinkedCourse) async throws -> [(student: LTI.LinkedStudent, userID: Int64)] {
        struct Row: Decodable {
            var subject: String
            var userId: Int64
            var name: String
            var studentNumber: String?
        }
        let rows = try await database.read { sql in
            try await sql.raw(
                """
                SELECT lti_identities.subject, users.id AS user_id, users.name, users.student_number
                FROM enrollments
                JOIN lti_identities ON lti_identities.user_id = enrollments.student_id
                  AND lti_identities.platform_id = \(bind: linked.platformId)
                JOIN users ON users.id = enrollments.student_id
                WHERE enrollments.course_id = \(bind: linked.courseId)
                """
            ).all(decoding: Row.self, with: .rollcall)
        }
        return rows.map {
            (LTI.LinkedStudent(userID: $0.subject, name: $0.name, studentNumber: $0.studentNumber), $0.userId)
        }
    }

    /// The platform subject of each of these Rollcall accounts.
    func subjects(platformID: Int64, userIDs: [Int64]) async throws -> [Int64: String] {
        guard !userIDs.isEmpty else { return [:] }
        return try await database.read { sql in
            let rows = try await sql.select().columns("user_id", "subject").from("lti_identities")
                .where("platform_id", .equal, platformID).where("user_id", .in, userIDs).all()
            var subjects: [Int64: String] = [:]
            for row in rows {
                subjects[try row.decode(column: "user_id", as: Int64.self)] = try row.decode(
                    column: "subject", as: String.self)
            }
            return subjects
        }
    }

    /// Notes a sync done.
    func synced(linkedCourseID: Int64, at now: Date = Date()) async throws {
        try await database.write { sql in
            try await sql.update("lti_courses").set("synced_at", to: now).where("id", .equal, linkedCourseID).run()
        }
    }

    /// The linked courses with a session that ended after their grades were last queued, each with the latest end:
    /// one query, however many courses are linked, as every process asks every few seconds.
    func endedSinceGraded(now: Date = Date()) async throws -> [(linked: LinkedCourse, ended: Date)] {
        struct Row: Decodable {
            var id: Int64
            var ended: Date
        }
        let (rows, linked) = try await database.read { sql in
            let rows = try await sql.raw(
                """
                SELECT id, ended FROM (
                  SELECT lti_courses.id, lti_courses.graded_through,
                    MAX(COALESCE(sessions.closed_at,
                      CASE WHEN sessions.closes_at <= \(bind: now) THEN sessions.closes_at END)) AS ended
                  FROM lti_courses JOIN sessions ON sessions.course_id = lti_courses.course_id
                  GROUP BY lti_courses.id, lti_courses.graded_through
                ) AS latest
                WHERE ended IS NOT NULL AND (graded_through IS NULL OR ended > graded_through)
                """
            ).all(decoding: Row.self, with: .rollcall)
            guard !rows.isEmpty else { return ([Row](), [LinkedCourse]()) }
            let linked = try await sql.select().column("*").from("lti_courses").where("id", .in, rows.map(\.id))
                .all(decoding: LinkedCourse.self, with: .rollcall)
            return (rows, linked)
        }
        let byID = Dictionary(uniqueKeysWithValues: linked.map { ($0.id, $0) })
        return rows.compactMap { row in byID[row.id].map { ($0, row.ended) } }
    }

    /// Puts the grading mark back where it was, unless another round moved it on meanwhile.
    func releaseGrading(linkedCourseID: Int64, through: Date, back: Date?) async throws {
        try await database.write { sql in
            try await sql.update("lti_courses").set("graded_through", to: back)
                .where("id", .equal, linkedCourseID).where("graded_through", .equal, through).run()
        }
    }

    /// Claims the grading of a linked course's sessions ended up to `through`, once whichever process asks: `true`
    /// for the one that moved the mark.
    func claimGrading(linkedCourseID: Int64, through: Date) async throws -> Bool {
        try await database.write { sql in
            try await sql.raw(
                """
                UPDATE lti_courses SET graded_through = \(bind: through)
                WHERE id = \(bind: linkedCourseID) AND (graded_through IS NULL OR graded_through < \(bind: through))
                RETURNING id
                """
            ).first() != nil
        }
    }
}
