import Crypto
import Foundation
import NIOConcurrencyHelpers
import RollcallStorage
import SQLKit

/// What a texted code is for.
package enum PhoneCodePurpose: String, Sendable {
    case signIn = "sign_in"
    case confirm
}

/// Six-digit codes texted to a phone: drawn from the system's CSPRNG, stored only as an HMAC under a server key,
/// valid for five minutes, used once, and killed after five wrong tries.
package struct PhoneCodes: Sendable {
    package let database: Database
    package let keys: ServerKeys

    package init(database: Database, keys: ServerKeys) {
        self.database = database
        self.keys = keys
    }

    package static let lifetime: TimeInterval = 5 * 60
    package static let allowedFailures = 5

    /// A new code for `userID` at `phone`, replacing any earlier one for the same purpose; the clear code is
    /// returned to be texted and never stored.
    package func issue(_ purpose: PhoneCodePurpose, phone: String, userID: Int64, now: Date = Date()) async throws
        -> String
    {
        var generator = SystemRandomNumberGenerator()
        let number = Int.random(in: 0..<1_000_000, using: &generator)
        let digits = String(number)
        let text = String(repeating: "0", count: 6 - digits.count) + digits
        let hash = try await digest(purpose, phone: phone, userID: userID, code: text)
        try await database.transaction { sql in
            try await sql.delete(from: "phone_codes").where("purpose", .equal, purpose.rawValue)
                .where("phone", .equal, phone).where("user_id", .equal, userID).run()
            try await sql.insert(into: "phone_codes")
                .columns("purpose", "phone", "user_id", "code_hash", "failures", "created_at", "expires_at")
                .values(
                    SQLBind(purpose.rawValue), SQLBind(phone), SQLBind(userID), SQLBind(hash), SQLBind(0), SQLBind(now),
                    SQLBind(now.addingTimeInterval(Self.lifetime))
                ).run()
        }
        return text
    }

    /// Ends the sign-in codes texted to any number but the person's confirmed one, inside the transaction that
    /// changed or removed the number: a code texted before never signs in after.
    package static func forgetStale(userID: Int64, sql: any SQLDatabase) async throws {
        try await sql.raw(
            """
            DELETE FROM phone_codes WHERE user_id = \(bind: userID) AND purpose = \(bind: PhoneCodePurpose.signIn.rawValue)
              AND phone NOT IN (
                SELECT phone FROM users WHERE id = \(bind: userID) AND phone IS NOT NULL AND phone_confirmed_at IS NOT NULL)
            """
        ).run()
    }

    /// Checks `code` for `phone` (and `userID`, when the person is known): answers whose it was and uses it up, or
    /// counts a wrong try against every live code of the number and answers `nil`.
    package func redeem(
        _ purpose: PhoneCodePurpose, phone: String, userID: Int64? = nil, code: String, now: Date = Date()
    )
        async throws -> Int64?
    {
        let candidates: [(userID: Int64, hash: String, expires: Date)] = try await database.read { sql in
            var select = sql.select().columns("user_id", "code_hash", "expires_at").from("phone_codes")
                .where("purpose", .equal, purpose.rawValue).where("phone", .equal, phone)
            if let userID { select = select.where("user_id", .equal, userID) }
            return try await select.all().map { row in
                (
                    try row.decode(column: "user_id", as: Int64.self),
                    try row.decode(column: "code_hash", as: String.self),
                    try row.decode(column: "expires_at", as: Date.self)
                )
            }
        }
        var found: (userID: Int64, hash: String)?
        for candidate in candidates where candidate.expires > now {
            let expected = try await digest(purpose, phone: phone, userID: candidate.userID, code: code)
            if Self.constantTimeEqual(expected, candidate.hash) { found = (candidate.userID, candidate.hash) }
        }
        let matched = found
        return try await database.transaction { sql in
            if let matched {
                // Used once: the code is taken by deleting it and reading what was deleted, so of many requests at
                // once, on any number of processes, one signs in and the others find nothing.
                let taken = try await sql.delete(from: "phone_codes").where("purpose", .equal, purpose.rawValue)
                    .where("phone", .equal, phone).where("user_id", .equal, matched.userID)
                    .where("code_hash", .equal, matched.hash).returning("user_id").first()
                return taken == nil ? nil : matched.userID
            }
            var update = sql.update("phone_codes").set(SQLIdentifier("failures"), to: SQLRaw("failures + 1"))
                .where("purpose", .equal, purpose.rawValue).where("phone", .equal, phone)
            if let userID { update = update.where("user_id", .equal, userID) }
            try await update.run()
            try await sql.delete(from: "phone_codes").where("purpose", .equal, purpose.rawValue)
                .where("phone", .equal, phone).where("failures", .greaterThanOrEqual, Self.allowedFailures).run()
            return nil
        }
    }

    private func digest(_ purpose: PhoneCodePurpose, phone: String, userID: Int64, code: String) async throws -> String
    {
        let key = try await keys.key(named: "phone_codes")
        let mac = HMAC<SHA256>.authenticationCode(
            for: Data("\(purpose.rawValue)|\(phone)|\(userID)|\(code)".utf8), using: key)
        return Data(mac).base64EncodedString()
    }

    /// Compares without stopping at the first difference, so the time taken tells nothing about the code.
    package static func constantTimeEqual(_ left: String, _ right: String) -> Bool {
        let a = Array(left.utf8)
        let b = Array(right.utf8)
        guard a.count == b.count else { return false }
        var difference: UInt8 = 0
        for index in a.indices { difference |= a[index] ^ b[index] }
        return difference == 0
    }
}

/// Secret keys the server makes on first use and keeps in the database, so every process and every restart uses
/// the same one.
package final class ServerKeys: Sendable {
    package let database: Database
    private let cache = NIOLockedValueBox<[String: SymmetricKey]>([:])

    package init(database: Database) {
        self.database = database
    }

    package func key(named name: String) async throws -> SymmetricKey {
        if let known = cache.withLockedValue({ $0[name] }) { return known }
        let fresh = SymmetricKey(size: .bits256).withUnsafeBytes { Data($0) }
        // The first process to store its fresh key wins; every other reads that one.
        let stored = try await database.write { sql in
            try await sql.raw(
                """
                INSERT INTO server_keys (name, secret, created_at) VALUES (\(bind: name), \(bind: fresh), \(bind: Date()))
                ON CONFLICT (name) DO NOTHING
                """
            ).run()
            let row = try await sql.select().column("secret").from("server_keys").where("name", .equal, name).first()
            guard let row else { throw NotStored(.notFound, what: "server key") }
            return try row.decode(column: "secret", as: Data.self)
        }
        let key = SymmetricKey(data: stored)
        cache.withLockedValue { $0[name] = key }
        return key
    }
}
