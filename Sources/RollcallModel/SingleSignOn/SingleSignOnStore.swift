import Foundation
import Logging
import RollcallCore
import RollcallStorage
import SQLKit

/// Sign-ins through the school's provider under way, and the accounts they end in: a person is found by issuer and
/// subject, never by address alone.
package struct SingleSignOnStore: Sendable {
    package let database: Database

    package init(database: Database) {
        self.database = database
    }

    /// How long a browser has between leaving for the provider and coming back.
    package static let lifetime: TimeInterval = 600

    /// A sign-in under way, as stored: only digests of its state and browser secret.
    package struct Pending: Sendable, Decodable {
        package var browserHash: String
        package var nonce: String
        package var verifier: String
        package var next: String?
        package var linkUserId: Int64?
        package var expiresAt: Date
    }

    /// Keeps a sign-in under way, and clears those whose time is up.
    package func begin(
        state: String, browser: String, nonce: String, verifier: String, next: String?, linking: Int64?,
        now: Date = Date()
    ) async throws {
        try await database.write { sql in
            try await sql.delete(from: "sso_sign_ins").where("expires_at", .lessThan, now).run()
            try await sql.insert(into: "sso_sign_ins")
                .columns("state_hash", "browser_hash", "nonce", "verifier", "next", "link_user_id", "expires_at")
                .values(
                    SQLBind(OpaqueToken.digest(state)), SQLBind(OpaqueToken.digest(browser)), SQLBind(nonce),
                    SQLBind(verifier), SQLBind(next), SQLBind(linking), SQLBind(now.addingTimeInterval(Self.lifetime))
                ).run()
        }
    }

    /// Takes the sign-in a state names, once: by deleting it and reading what was deleted.
    package func take(state: String) async throws -> Pending? {
        try await database.write { sql in
            try await sql.delete(from: "sso_sign_ins").where("state_hash", .equal, OpaqueToken.digest(state))
                .returning("*").first(decoding: Pending.self, with: .rollcall)
        }
    }

    /// Where a sign-in through the school ends.
    package enum Outcome: Sendable {
        case signedIn(User)
        /// A password account has this address and its owner has not proved it is theirs.
        case addressTaken(String)
        /// The provider released no address Rollcall can use for a new account.
        case noAddress
        /// The address is an admin's: a provider's word never opens an admin account, which links by hand.
        case adminAddress
    }

    /// The account for this person: the one linked to the issuer and subject (brought up to date by the
    /// federation's rules), the signed-in account that asked to be linked, a password account whose address both
    /// the provider and Rollcall confirmed (never an admin's), or a new account.
    package func account(
        issuer: String, subject: String, person: FederatedPerson, linking: Int64?, logger: Logger, now: Date = Date()
    ) async throws -> Outcome {
        let email = person.email.flatMap { try? AccountRules.email($0) }
        let outcome: (Outcome, Int64?) = try await database.transaction { sql in
            if let linked = try await Self.linkedUser(issuer: issuer, subject: subject, in: sql) {
                try await sql.update("sso_identities").set("last_sign_in_at", to: now)
                    .where("issuer", .equal, issuer).where("subject", .equal, subject).run()
                try await UserStore.refreshFederated(linked, from: person, now: now, logger: logger, in: sql)
                return (.signedIn(try await UserStore.user(linked.id, in: sql)), linked.id)
            }
            if let linking {
                try await Self.link(issuer: issuer, subject: subject, to: linking, now: now, in: sql)
                return (.signedIn(try await UserStore.user(linking, in: sql)), linking)
            }
            guard let email else { return (.noAddress, nil) }
            if let existing = try await UserStore.user(email: email, in: sql) {
                guard existing.role != .admin else { return (.adminAddress, nil) }
                // Only an address both sides confirmed proves that this person owns that account.
                guard person.emailVerified, existing.emailVerifiedAt != nil else { return (.addressTaken(email), nil) }
                try await Self.link(issuer: issuer, subject: subject, to: existing.id, now: now, in: sql)
                return (.signedIn(existing), existing.id)
            }
            let id = try await UserStore.createFederated(
                person, address: email, fallbackName: String(email.prefix { $0 != "@" }), now: now, in: sql)
            try await Self.link(issuer: issuer, subject: subject, to: id, now: now, in: sql)
            return (.signedIn(try await UserStore.user(id, in: sql)), id)
        }
        // A role or address the school changed is forgotten by every cache of this process at once; the other
        // processes hear of it from the database.
        if let changed = outcome.1 { database.announce(.user(changed)) }
        return outcome.0
    }

    private static func linkedUser(issuer: String, subject: String, in sql: any SQLDatabase) async throws -> User? {
        guard
            let id = try await sql.select().column("user_id").from("sso_identities")
                .where("issuer", .equal, issuer).where("subject", .equal, subject)
                .first(decodingColumn: "user_id", as: Int64.self)
        else { return nil }
        return try await UserStore.user(id, in: sql)
    }

    private static func link(
        issuer: String, subject: String, to userID: Int64, now: Date, in sql: any SQLDatabase
    ) async throws {
        try await sql.insert(into: "sso_identities")
            .columns("issuer", "subject", "user_id", "created_at", "last_sign_in_at")
            .values(SQLBind(issuer), SQLBind(subject), SQLBind(userID), SQLBind(now), SQLBind(now))
            .ignoringConflicts(with: ["issuer", "subject"]).run()
    }
}
