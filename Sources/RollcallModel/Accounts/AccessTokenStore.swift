import Foundation
import RollcallStorage
import SQLKit

/// How a token was issued: as a browser's session cookie, or as a bearer token for API clients.
package enum TokenKind: String, Sendable {
    case web, api
}

/// A remembered device was forgotten while a sign-in from it was under way.
package struct DeviceForgotten: Error {}

/// Signed-in sessions and API tokens, the verification links in emails, and the record of failed sign-ins.
package struct AccessTokenStore: Sendable {
    package let database: Database
    package var identities: IdentityCache

    package init(database: Database, identities: IdentityCache? = nil) {
        self.database = database
        self.identities = identities ?? database.caches.identities
    }

    package static let webLifetime: TimeInterval = 14 * 24 * 3600
    package static let apiLifetime: TimeInterval = 90 * 24 * 3600
    package static let verificationLifetime: TimeInterval = 48 * 3600

    /// Issues a token for `userID`, started by a remembered `device` if any, or by the school's sign-in with its
    /// `idToken`; the clear token is returned once and never stored. Throws `DeviceForgotten` when the device was
    /// forgotten meanwhile.
    package func issue(
        userID: Int64, kind: TokenKind, device: Int64? = nil, idToken: String? = nil
    ) async throws -> (token: String, csrf: String) {
        let token = OpaqueToken.make()
        let csrf = OpaqueToken.make()
        let now = Date()
        let lifetime = kind == .web ? Self.webLifetime : Self.apiLifetime
        try await database.transaction { sql in
            if let device {
                // Holds the device's row until the session is written: forgetting the device waits, then finds the
                // session and signs it out too; or it went first, and no session starts.
                let lock = sql.dialect.name == "postgresql" ? " FOR SHARE" : ""
                let held = try await sql.raw(
                    "SELECT id FROM remembered_devices WHERE id = \(bind: device)\(unsafeRaw: lock)"
                ).first()
                guard held != nil else { throw DeviceForgotten() }
            }
            try await sql.insert(into: "access_tokens")
                .columns("token_hash", "user_id", "kind", "csrf", "created_at", "expires_at", "device_id", "id_token")
                .values(
                    SQLBind(OpaqueToken.digest(token)), SQLBind(userID), SQLBind(kind.rawValue), SQLBind(csrf),
                    SQLBind(now), SQLBind(now.addingTimeInterval(lifetime)), SQLBind(device), SQLBind(idToken)
                ).run()
        }
        return (token, csrf)
    }

    /// The person a token belongs to, if it is known, unexpired, and of the expected kind.
    package func identity(token: String, kind: TokenKind) async throws -> Identity? {
        let digest = OpaqueToken.digest(token)
        if let known = identities.identity(tokenHash: digest) {
            return known.viaCookie == (kind == .web) ? known : nil
        }
        let mark = identities.mark
        guard let found = try await database.tokenLookups.find(digest: digest), found.kind == kind.rawValue else {
            return nil
        }
        let identity = Identity(user: found.user, tokenHash: digest, csrf: found.csrf, viaCookie: kind == .web)
        identities.remember(identity, expires: found.expires, readSince: mark)
        return identity
    }

    /// Ends a session; answers the school's ID token it was signed in with, if any, for signing out there too.
    @discardableResult
    package func revoke(tokenHash: String) async throws -> String? {
        identities.forget(tokenHash: tokenHash)
        let idToken = try await database.write { sql in
            try await sql.delete(from: "access_tokens").where("token_hash", .equal, tokenHash).returning("id_token")
                .first(decodingColumn: "id_token", as: String?.self) ?? nil
        }
        // Again after the delete: a look-up that read the row before it may have cached it meanwhile.
        identities.forget(tokenHash: tokenHash)
        database.announce(.token(hash: tokenHash))
        return idToken
    }

    /// Forgets sessions deleted elsewhere (a remembered device's) in this process; the others hear of the delete from
    /// the database.
    package func forget(tokenHashes: [String]) async {
        for hash in tokenHashes {
            identities.forget(tokenHash: hash)
            database.announce(.token(hash: hash))
        }
    }

    /// Signs a person out everywhere but here, and forgets their remembered devices, as after a password change.
    package func revokeAll(userID: Int64, except tokenHash: String?) async throws {
        identities.forget(userID: userID)
        try await database.transaction { sql in
            // The devices first, as `RememberedDevices.signOut` explains.
            try await sql.delete(from: "remembered_devices").where("user_id", .equal, userID).run()
            var delete = sql.delete(from: "access_tokens").where("user_id", .equal, userID)
            if let tokenHash { delete = delete.where("token_hash", .notEqual, tokenHash) }
            try await delete.run()
        }
        identities.forget(userID: userID)
        database.announce(.user(userID))
    }

    /// A single-use link token proving the person reads mail at their address.
    package func issueVerification(userID: Int64) async throws -> String {
        let token = OpaqueToken.make()
        try await database.write { sql in
            try await sql.insert(into: "email_verifications").columns("token_hash", "user_id", "expires_at")
                .values(
                    SQLBind(OpaqueToken.digest(token)), SQLBind(userID),
                    SQLBind(Date().addingTimeInterval(Self.verificationLifetime))
                ).run()
        }
        return token
    }

    /// Uses up a verification token, answering whose it was.
    package func redeemVerification(token: String) async throws -> Int64? {
        let digest = OpaqueToken.digest(token)
        // Taken by deleting it and reading what was deleted: of two uses at once, in any processes, one reads a row.
        return try await database.write { sql in
            guard
                let row = try await sql.delete(from: "email_verifications").where("token_hash", .equal, digest)
                    .returning("user_id", "expires_at").first(),
                try row.decode(column: "expires_at", as: Date.self) > Date()
            else { return nil }
            return try row.decode(column: "user_id", as: Int64.self)
        }
    }

    /// Failed sign-ins so far for an address, and when the last one was.
}
