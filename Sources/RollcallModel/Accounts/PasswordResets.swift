import Foundation
import RollcallStorage
import SQLKit

/// Links to set a new password, and the audit of every reset: a link is single use, lives 30 minutes, and only its
/// digest is stored.
package struct PasswordResets: Sendable {
    package let database: Database

    package init(database: Database) {
        self.database = database
    }

    package static let lifetime: TimeInterval = 30 * 60

    /// A new link token for `userID`, asked by `requestedBy` (an admin) or by the person (`nil`).
    package func issue(userID: Int64, requestedBy: Int64?, now: Date = Date()) async throws -> String {
        let token = OpaqueToken.make()
        try await database.write { sql in
            try await sql.insert(into: "password_resets")
                .columns("token_hash", "user_id", "requested_by", "expires_at", "created_at")
                .values(
                    SQLBind(OpaqueToken.digest(token)), SQLBind(userID), SQLBind(requestedBy),
                    SQLBind(now.addingTimeInterval(Self.lifetime)), SQLBind(now)
                ).run()
        }
        return token
    }

    /// Uses up a link, answering whose it was when it is known and unexpired; every other link of that person is
    /// used up with it, so an older email cannot set the password again.
    ///
    /// The link is taken by deleting it and reading what was deleted: of many requests at once, on any number of
    /// processes, one deletes the row and the others find nothing, so one password is set.
    package func redeem(token: String, now: Date = Date()) async throws -> Int64? {
        let digest = OpaqueToken.digest(token)
        return try await database.transaction { sql in
            guard
                let row = try await sql.delete(from: "password_resets").where("token_hash", .equal, digest)
                    .returning("user_id", "expires_at").first()
            else { return nil }
            let userID = try row.decode(column: "user_id", as: Int64.self)
            try await sql.delete(from: "password_resets").where("user_id", .equal, userID).run()
            guard try row.decode(column: "expires_at", as: Date.self) > now else { return nil }
            return userID
        }
    }

    /// Records a change to a person's sign-in: `change` to `userID`, by `actor` (themselves when they used a link).
    package func audit(userID: Int64, _ change: AccountChange, actor: User, now: Date = Date()) async throws {
        try await database.write { sql in
            try await AccountAudit.record(change, userID: userID, actor: actor, at: now, in: sql)
        }
    }
}
