import Foundation
import JWTKit
import RollcallCore
import RollcallProtocol
import RollcallStorage
import SQLKit
import _CryptoExtras

/// Rollcall's own RSA keys as an LTI tool: made at first use and kept in the database, so that every process signs
/// with the same key and a restart keeps it. The key in slot `current` signs; `rotate` puts a new one there and
/// keeps the old one published (without a slot) until `retire` removes it, as platforms cache a tool's key set.
package struct ToolKeys: Sendable {
    package let database: Database

    package init(database: Database) {
        self.database = database
    }

    /// One stored key pair.
    package struct StoredKey: Decodable, Sendable {
        package var kid: String
        package var privatePem: String
        package var slot: String?
        package var createdAt: Date
    }

    /// The key that signs, made (once, whichever process asks first) when there is none.
    package func current(now: Date = Date()) async throws -> StoredKey {
        if let key = try await read() { return key }
        let made = try await Self.make(now: now)
        try await database.write { sql in
            try await sql.insert(into: "lti_tool_keys").columns("kid", "private_pem", "slot", "created_at")
                .values(SQLBind(made.kid), SQLBind(made.privatePem), SQLBind("current"), SQLBind(now))
                .ignoringConflicts(with: ["slot"]).run()
        }
        guard let key = try await read() else { throw NotSaved(what: "tool key") }
        return key
    }

    private func read() async throws -> StoredKey? {
        try await database.read { sql in
            try await sql.select().column("*").from("lti_tool_keys").where("slot", .equal, "current")
                .first(decoding: StoredKey.self, with: .rollcall)
        }
    }

    /// Puts a new key in the `current` slot; the one it replaces stays published. Answers the new key's `kid`.
    @discardableResult
    package func rotate(now: Date = Date()) async throws -> String {
        let made = try await Self.make(now: now)
        try await database.transaction { sql in
            try await sql.update("lti_tool_keys").set("slot", to: SQLLiteral.null).where("slot", .equal, "current")
                .run()
            try await sql.insert(into: "lti_tool_keys").columns("kid", "private_pem", "slot", "created_at")
                .values(SQLBind(made.kid), SQLBind(made.privatePem), SQLBind("current"), SQLBind(now)).run()
        }
        return made.kid
    }

    /// Stops publishing the keys rotated out before `before`. Answers how many went.
    @discardableResult
    package func retire(before: Date) async throws -> Int {
        try await database.write { sql in
            try await sql.delete(from: "lti_tool_keys").where("slot", .is, SQLLiteral.null)
                .where("created_at", .lessThan, before).returning("kid").all().count
        }
    }

    /// Every published key's public half, as a JWKS document (RFC 7517).
    package func keySet() async throws -> [String: [[String: String]]] {
        _ = try await current()
        let keys = try await database.read { sql in
            try await sql.select().column("*").from("lti_tool_keys").orderBy("created_at", .descending)
                .all(decoding: StoredKey.self, with: .rollcall)
        }
        return [
            "keys": try keys.map { stored in
                let primitives = try Insecure.RSA.PrivateKey(pem: stored.privatePem).publicKey.getKeyPrimitives()
                return [
                    "kty": "RSA", "alg": "RS256", "use": "sig", "kid": stored.kid,
                    "n": Base64URL.encode(primitives.modulus), "e": Base64URL.encode(primitives.publicExponent),
                ]
            }
        ]
    }

    /// Signs `payload` with the current key (RS256, its `kid` in the header).
    package func sign(_ payload: some JWTPayload) async throws -> String {
        let key = try await current()
        let collection = JWTKeyCollection()
        await collection.add(
            rsa: try Insecure.RSA.PrivateKey(pem: key.privatePem), digestAlgorithm: .sha256,
            kid: JWKIdentifier(string: key.kid))
        var header = JWTHeader()
        header.typ = "JWT"
        return try await collection.sign(payload, kid: JWKIdentifier(string: key.kid), header: header)
    }

    /// A new key pair, made on a thread of its own: finding two 1024-bit primes takes long enough to hold up the
    /// requests on the cooperative threads, and the database's queries on the shared blocking pool.
    private static func make(now: Date) async throws -> StoredKey {
        let pem = try await withCheckedThrowingContinuation { continuation in
            Thread.detachNewThread {
                continuation.resume(with: Result { try _RSA.Signing.PrivateKey(keySize: .bits2048).pemRepresentation })
            }
        }
        return StoredKey(kid: OpaqueToken.make(), privatePem: pem, slot: "current", createdAt: now)
    }

}
