import Foundation
import NIOConcurrencyHelpers
import RollcallCore
import RollcallProtocol
import RollcallStorage
import SQLKit

/// A registered passkey as stored.
package struct Passkey: Codable, Sendable, Equatable {
    package var id: Int64
    package var userId: Int64
    /// Base64url, as browsers name it.
    package var credentialId: String
    package var publicKey: Data
    package var algorithm: Int
    package var signCount: Int64
    package var backupEligible: Bool
    package var backedUp: Bool
    package var name: String
    package var aaguid: String
    package var createdAt: Date
    package var lastUsedAt: Date?

    /// What the core checks an assertion against.
    package var stored: StoredPasskey {
        StoredPasskey(
            credentialID: Base64URL.decode(credentialId) ?? [], publicKey: Array(publicKey),
            signCount: UInt32(clamping: signCount), backupEligible: backupEligible
        )
    }
}

/// What a challenge was handed out for; a challenge answers only its own purpose.
package enum ChallengePurpose: String, Sendable {
    case registration
    case signIn = "sign_in"
    case checkIn = "check_in"
}

/// A challenge as stored: only its digest, who it was for, and until when.
package struct PasskeyChallenge: Codable, Sendable, Equatable {
    package var challengeHash: String
    package var purpose: String
    package var userId: Int64?
    package var sessionId: Int64?
    package var ticketHash: String?
    package var expiresAt: Date

    package init(
        challengeHash: String, purpose: String, userId: Int64? = nil, sessionId: Int64? = nil,
        ticketHash: String? = nil, expiresAt: Date
    ) {
        self.challengeHash = challengeHash
        self.purpose = purpose
        self.userId = userId
        self.sessionId = sessionId
        self.ticketHash = ticketHash
        self.expiresAt = expiresAt
    }
}

/// Whether a course asks for a passkey at check-in, and how long one verification may serve.
package struct CourseVerification: Codable, Sendable, Equatable {
    package var required: Bool
    package var reuseSeconds: Int

    package init(required: Bool, reuseSeconds: Int) {
        self.required = required
        self.reuseSeconds = reuseSeconds
    }

    package static let off = CourseVerification(required: false, reuseSeconds: 0)
}

/// One passkey check-in as the teacher sees it: synced or device-bound, and whether a recent verification served.
package struct CheckInVerificationRecord: Sendable, Equatable {
    package var studentId: Int64
    package var studentName: String
    package var credentialId: String
    package var passkeyName: String?
    package var deviceId: String?
    package var backupEligible: Bool
    package var backedUp: Bool
    package var reused: Bool
    package var createdAt: Date
}

/// Passkeys, the challenges their ceremonies answer, each course's verification setting, and the record of
/// verifications made at check-in.
package struct PasskeyStore: Sendable {
    package let database: Database

    package init(database: Database) {
        self.database = database
    }

    /// Course settings are read on every check-in; they change rarely, so they are kept for a few seconds.
    package var policies: RecentReads<CourseVerification> { database.caches.passkeyPolicies }

    package static let challengeLifetime: TimeInterval = 300

    /// The user handle passkeys carry: the account id as 8 bytes, which names nobody outside Rollcall.
    package static func userHandle(_ userID: Int64) -> [UInt8] {
        (0..<8).reversed().map { UInt8(truncatingIfNeeded: UInt64(bitPattern: userID) >> (8 * UInt64($0))) }
    }

    package static func userID(handle: [UInt8]) -> Int64? {
        guard handle.count == 8 else { return nil }
        return Int64(bitPattern: handle.reduce(0) { $0 << 8 | UInt64($1) })
    }

    package static func digest(_ challenge: [UInt8]) -> String { OpaqueToken.digest(Base64URL.encode(challenge)) }

    // MARK: Challenges

    /// Hands out a random challenge for one ceremony; expired challenges are cleared on the way.
    package func issueChallenge(
        _ purpose: ChallengePurpose, userID: Int64?, sessionID: Int64? = nil, ticketHash: String? = nil,
        expiresAt: Date? = nil, now: Date = Date()
    ) async throws -> [UInt8] {
        let challenge = Base64URL.decode(OpaqueToken.make()) ?? []
        let expiry = min(expiresAt ?? .distantFuture, now.addingTimeInterval(Self.challengeLifetime))
        try await database.write { sql in
            try await sql.delete(from: "passkey_challenges").where("expires_at", .lessThan, now).run()
            try await sql.insert(into: "passkey_challenges")
                .columns("challenge_hash", "purpose", "user_id", "session_id", "ticket_hash", "expires_at")
                .values(
                    SQLBind(Self.digest(challenge)), SQLBind(purpose.rawValue), SQLBind(userID), SQLBind(sessionID),
                    SQLBind(ticketHash), SQLBind(expiry)
                ).run()
        }
        return challenge
    }

    /// The challenge with these bytes, if it was handed out and not used yet (it may have expired).
    package func challenge(_ bytes: [UInt8]) async throws -> PasskeyChallenge? {
        try await database.read { sql in
            try await sql.select().column("*").from("passkey_challenges")
                .where("challenge_hash", .equal, Self.digest(bytes))
                .first(decoding: PasskeyChallenge.self, with: .rollcall)
        }
    }

    /// Uses a challenge up; `false` when another request used it first.
    package func consume(_ challenge: PasskeyChallenge) async throws -> Bool {
        try await database.write { sql in try await Self.consume(challenge, in: sql) }
    }

    /// Uses a challenge up by deleting it and reading what was deleted, so that of two processes taking it at once
    /// only one reads a row.
    package static func consume(_ challenge: PasskeyChallenge, in sql: any SQLDatabase) async throws -> Bool {
        try await sql.delete(from: "passkey_challenges").where("challenge_hash", .equal, challenge.challengeHash)
            .returning("challenge_hash").first() != nil
    }

    /// Uses up a checked assertion's challenge and moves the passkey's counter on, in the caller's transaction;
    /// `false` (and nothing written) when another request used the challenge first.
    package static func redeem(_ checked: CheckedAssertion, now: Date, in sql: any SQLDatabase) async throws -> Bool {
        guard try await consume(checked.challenge, in: sql) else { return false }
        // Compared in the statement, so that two uses at once never move the counter back.
        let count = Int64(checked.assertion.signCount)
        try await sql.update("passkeys")
            .set(
                SQLColumn("sign_count"),
                to: SQLQueryString("CASE WHEN sign_count < \(bind: count) THEN \(bind: count) ELSE sign_count END")
            )
            .set("backed_up", to: checked.assertion.backedUp).set("last_used_at", to: now)
            .where("id", .equal, checked.passkey.id).run()
        return true
    }

    // MARK: Passkeys

    package func create(userID: Int64, registered: RegisteredPasskey, name: String, now: Date = Date()) async throws
        -> Passkey
    {
        let credentialID = Base64URL.encode(registered.credentialID)
        return try await database.transaction { sql in
            if try await sql.select().column("id").from("passkeys").where("credential_id", .equal, credentialID)
                .first() != nil
            {
                throw PasskeyAlreadyRegistered()
            }
            let id = try await sql.insert(into: "passkeys")
                .columns(
                    "user_id", "credential_id", "public_key", "algorithm", "sign_count", "backup_eligible",
                    "backed_up", "name", "aaguid", "created_at"
                )
                .values(
                    SQLBind(userID), SQLBind(credentialID), SQLBind(Data(registered.publicKey)),
                    SQLBind(registered.algorithm.rawValue), SQLBind(Int64(registered.signCount)),
                    SQLBind(registered.backupEligible), SQLBind(registered.backedUp), SQLBind(name),
                    SQLBind(registered.aaguid.map { String(format: "%02x", $0) }.joined()), SQLBind(now)
                )
                .returning("id").first(decodingColumn: "id", as: Int64.self)
            guard let id, let passkey = try await Self.find(id: id, sql: sql) else {
                throw NotSaved(what: "passkey")
            }
            return passkey
        }
    }

    private static func find(id: Int64, sql: any SQLDatabase) async throws -> Passkey? {
        try await sql.select().column("*").from("passkeys").where("id", .equal, id)
            .first(decoding: Passkey.self, with: .rollcall)
    }

    /// A person's passkeys, oldest first.
    package func list(userID: Int64) async throws -> [Passkey] {
        try await database.read { sql in
            try await sql.select().column("*").from("passkeys").where("user_id", .equal, userID).orderBy("id")
                .all(decoding: Passkey.self, with: .rollcall)
        }
    }

    /// How many passkeys a person has, without reading them.
    package func count(userID: Int64) async throws -> Int {
        try await database.read { sql in
            try await sql.select().column(SQLFunction("COUNT", args: SQLLiteral.all), as: "n").from("passkeys")
                .where("user_id", .equal, userID).first(decodingColumn: "n", as: Int.self) ?? 0
        }
    }

    package func find(credentialID: String) async throws -> Passkey? {
        try await database.read { sql in
            try await sql.select().column("*").from("passkeys").where("credential_id", .equal, credentialID)
                .first(decoding: Passkey.self, with: .rollcall)
        }
    }

    /// One of a person's own passkeys; someone else's is as good as missing.
    package func find(id: Int64, userID: Int64) async throws -> Passkey? {
        try await database.read { sql in
            try await sql.select().column("*").from("passkeys").where("id", .equal, id)
                .where("user_id", .equal, userID).first(decoding: Passkey.self, with: .rollcall)
        }
    }

    package func rename(id: Int64, userID: Int64, name: String) async throws {
        try await database.write { sql in
            try await sql.update("passkeys").set("name", to: name).where("id", .equal, id)
                .where("user_id", .equal, userID).run()
        }
    }

    package func remove(id: Int64, userID: Int64) async throws {
        try await database.write { sql in
            try await sql.delete(from: "passkeys").where("id", .equal, id).where("user_id", .equal, userID).run()
        }
    }

    // MARK: Course settings

    package func policy(courseID: Int64, now: Date = Date()) async throws -> CourseVerification {
        if let cached = policies.value(id: courseID, now: now) { return cached }
        let policy = try await database.read { sql in
            try await sql.select().columns("required", "reuse_seconds").from("course_verification")
                .where("course_id", .equal, courseID).first(decoding: CourseVerification.self, with: .rollcall)
        }
        let found = policy ?? .off
        policies.remember(found, id: courseID, now: now)
        return found
    }

    package func setPolicy(courseID: Int64, _ policy: CourseVerification, now: Date = Date()) async throws {
        // One statement: two saves at once, in any processes, leave one of them rather than a failed second insert.
        try await database.write { sql in
            try await sql.insert(into: "course_verification")
                .columns("course_id", "required", "reuse_seconds", "updated_at")
                .values(SQLBind(courseID), SQLBind(policy.required), SQLBind(policy.reuseSeconds), SQLBind(now))
                .onConflict(with: ["course_id"]) {
                    $0.set(excludedValueOf: "required").set(excludedValueOf: "reuse_seconds")
                        .set(excludedValueOf: "updated_at")
                }.run()
        }
        policies.forget(id: courseID)
        database.announce(.course(courseID))
    }

    // MARK: Verifications at check-in

    /// Keeps a verification made (or reused) for a check-in, in the check-in's transaction; this is the evidence the
    /// teacher sees.
    package static func recordVerification(
        userID: Int64, credentialID: String, sessionID: Int64, deviceID: String?, backupEligible: Bool,
        backedUp: Bool, reused: Bool, now: Date, in sql: any SQLDatabase
    ) async throws {
        try await sql.insert(into: "passkey_verifications")
            .columns(
                "user_id", "credential_id", "session_id", "device_id", "backup_eligible", "backed_up", "reused",
                "created_at"
            )
            .values(
                SQLBind(userID), SQLBind(credentialID), SQLBind(sessionID), SQLBind(deviceID),
                SQLBind(backupEligible), SQLBind(backedUp), SQLBind(reused), SQLBind(now)
            ).run()
    }

    /// The latest fresh (not reused) verification of a person from one device, for the reuse window.
    package func lastVerification(userID: Int64, deviceID: String) async throws -> CheckInVerificationRecord? {
        try await database.read { sql in
            try await Self.records(sql).where(
                SQLColumn("user_id", table: "passkey_verifications"), .equal, SQLBind(userID)
            )
            .where(SQLColumn("device_id", table: "passkey_verifications"), .equal, SQLBind(deviceID))
            .where(SQLColumn("reused", table: "passkey_verifications"), .equal, SQLBind(false))
            .orderBy(
                SQLOrderBy(
                    expression: SQLColumn("id", table: "passkey_verifications"), direction: SQLDirection.descending)
            ).limit(1).all()
            .first.map(Self.record)
        }
    }

    /// The devices a credential was used from in one session.
    package static func devices(sessionID: Int64, credentialID: String, in sql: any SQLDatabase) async throws -> Set<
        String
    > {
        Set(
            try await sql.select().column("device_id").from("passkey_verifications")
                .where("session_id", .equal, sessionID).where("credential_id", .equal, credentialID)
                .all().compactMap {
                    try $0.decodeIfPresent(column: "device_id", as: String.self)
                }
        )
    }

    /// Every verification at check-in in a session, newest first.
    package func verifications(sessionID: Int64) async throws -> [CheckInVerificationRecord] {
        try await database.read { sql in
            try await Self.records(sql)
                .where(SQLColumn("session_id", table: "passkey_verifications"), .equal, SQLBind(sessionID))
                .orderBy(
                    SQLOrderBy(
                        expression: SQLColumn("id", table: "passkey_verifications"), direction: SQLDirection.descending)
                ).all().map(Self.record)
        }
    }

    private static func records(_ sql: any SQLDatabase) -> SQLSelectBuilder {
        sql.select().column(SQLColumn("*", table: "passkey_verifications"))
            .column(SQLColumn("name", table: "users"), as: "student_name")
            .column(SQLColumn("name", table: "passkeys"), as: "passkey_name")
            .from("passkey_verifications").join(
                "users", on: SQLColumn("id", table: "users"), .equal,
                SQLColumn("user_id", table: "passkey_verifications")
            )
            .join(
                "passkeys", method: SQLJoinMethod.left,
                on: SQLColumn("credential_id", table: "passkeys"), .equal,
                SQLColumn("credential_id", table: "passkey_verifications"))
    }

    private static func record(_ row: any SQLRow) throws -> CheckInVerificationRecord {
        CheckInVerificationRecord(
            studentId: try row.decode(column: "user_id", as: Int64.self),
            studentName: try row.decode(column: "student_name", as: String.self),
            credentialId: try row.decode(column: "credential_id", as: String.self),
            passkeyName: try row.decodeNil(column: "passkey_name")
                ? nil : try row.decode(column: "passkey_name", as: String.self),
            deviceId: try row.decodeNil(column: "device_id")
                ? nil : try row.decode(column: "device_id", as: String.self),
            backupEligible: try row.decode(column: "backup_eligible", as: Bool.self),
            backedUp: try row.decode(column: "backed_up", as: Bool.self),
            reused: try row.decode(column: "reused", as: Bool.self),
            createdAt: try row.decode(column: "created_at", as: Date.self)
        )
    }
}

/// The credential being registered belongs to a passkey Rollcall already has.
package struct PasskeyAlreadyRegistered: Error {}
