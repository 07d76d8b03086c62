import Foundation
import RollcallCore
import RollcallStorage
import SQLKit

/// Launches under way: logins waiting for their launch, new windows waiting to continue, and launches waiting
/// for their person's answer. Each is used once, whichever process asks.
package struct LaunchStates: Sendable {
    package let database: Database

    package init(database: Database) {
        self.database = database
    }

    /// How long a browser has between the login initiation and the launch, and a new window to open.
    package static let loginLifetime: TimeInterval = 600
    package static let handoffLifetime: TimeInterval = 120

    /// What a platform's login initiation asked for: whom (`login_hint`) and which launch (`lti_message_hint`).
    package struct LoginHints: Codable, Sendable {
        package var loginHint: String
        package var messageHint: String?

        package init(loginHint: String, messageHint: String? = nil) {
            self.loginHint = loginHint
            self.messageHint = messageHint
        }
    }

    /// Keeps a login initiation for its launch, and clears those whose time is up.
    package func beginLogin(
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
    package struct PendingLogin: Decodable, Sendable {
        package var platformId: Int64
        package var browserHash: String
        package var nonce: String
        package var expiresAt: Date
        package var loginHint: String?
        package var messageHint: String?
    }

    /// Takes the login a state names, once.
    package func takeLogin(state: String) async throws -> PendingLogin? {
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
    package func handoff(userID: Int64, platformID: Int64, hints: LoginHints, now: Date = Date()) async throws -> String
    {
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

    package struct Handoff: Decodable, Sendable {
        package var userId: Int64
        package var expiresAt: Date
        package var platformId: Int64?
        package var loginHint: String?
        package var messageHint: String?
    }

    /// Takes a handoff code, once.
    package func takeHandoff(code: String) async throws -> Handoff? {
        try await take(
            from: "lti_handoffs", by: "code_hash", token: code,
            returning: ["user_id", "expires_at", "platform_id", "login_hint", "message_hint"])
    }

    // MARK: Launches waiting for an answer

    /// What a waiting launch asks its person.
    package enum PendingKind: String, Sendable {
        /// Whether the account Rollcall has for the platform's address is theirs, to link.
        case account
        /// Which of the teacher's courses the platform's course is, or a new one.
        case course
    }

    /// A launch waiting for its person's answer.
    package struct Pending: Sendable {
        package var kind: PendingKind
        package var platformID: Int64
        /// The person asked, for a course; none yet for an account.
        package var userID: Int64?
        package var launch: LTI.Launch

        package init(kind: PendingKind, platformID: Int64, userID: Int64? = nil, launch: LTI.Launch) {
            self.kind = kind
            self.platformID = platformID
            self.userID = userID
            self.launch = launch
        }
    }

    /// How long a launch waits for its answer.
    package static let pendingLifetime: TimeInterval = 900

    /// Keeps a launch until its person answers; answers the code that names it.
    package func keep(_ pending: Pending, now: Date = Date()) async throws -> String {
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
        package var kind: String
        package var platformId: Int64
        package var userId: Int64?
        package var launch: String
        package var expiresAt: Date

        package func pending() throws -> Pending? {
            guard expiresAt > Date(), let kind = PendingKind(rawValue: kind) else { return nil }
            let launch = try StoredJSON.decode(launch, as: LTI.Launch.self, row: "a waiting launch")
            return Pending(kind: kind, platformID: platformId, userID: userId, launch: launch)
        }
    }

    /// The launch a code names, while it waits; read, not taken, so that a refused answer can be given again.
    package func pending(code: String) async throws -> Pending? {
        try await database.read { sql in
            try await sql.select().column("*").from("lti_pending").where("code_hash", .equal, OpaqueToken.digest(code))
                .first(decoding: PendingRow.self, with: .rollcall)?.pending()
        }
    }

    /// Takes the launch a code names, once.
    package func takePending(code: String) async throws -> Pending? {
        let row: PendingRow? = try await take(
            from: "lti_pending", by: "code_hash", token: code,
            returning: ["kind", "platform_id", "user_id", "launch", "expires_at"])
        return try row?.pending()
    }
}
