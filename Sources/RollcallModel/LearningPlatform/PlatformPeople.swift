import Foundation
import Logging
import RollcallCore
import RollcallStorage
import SQLKit

/// The platforms' people as Rollcall accounts: known by platform and subject, never by address alone.
package struct PlatformPeople: Sendable {
    package let database: Database

    package init(database: Database) {
        self.database = database
    }

    /// Whether the platform's person is linked to an account already.
    package func isLinked(platformID: Int64, subject: String) async throws -> Bool {
        try await database.read { sql in try await Self.linkedUser(platformID, subject, in: sql) } != nil
    }

    /// The account with this address that the platform's person might own: one not linked to this platform yet,
    /// neither deleted nor disabled.
    package func unlinkedAccount(email: String?, platformID: Int64) async throws -> User? {
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
    package func linkIdentity(platformID: Int64, subject: String, to userID: Int64, now: Date = Date()) async throws {
        try await database.write { sql in
            try await sql.insert(into: "lti_identities").columns("platform_id", "subject", "user_id", "created_at")
                .values(SQLBind(platformID), SQLBind(subject), SQLBind(userID), SQLBind(now))
                .ignoringConflicts(with: ["platform_id", "subject"]).run()
        }
        database.caches.identities.forget(userID: userID)
    }

    /// The platform's person, as a Rollcall account: the one linked to the platform and subject (brought up to date
    /// by the federation's rules), or a new one. An address the platform gives is used for a new account only where
    /// no account has it: a person is never linked by address alone.
    package func account(
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
        // The launch may have changed the role: this process forgets the account at once, the others on the
        // database's notice.
        database.announce(.user(made.id))
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
}
