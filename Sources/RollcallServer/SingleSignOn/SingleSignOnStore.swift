import Foundation
import RollcallCore
import SQLKit

/// Sign-ins through the school's provider under way, and the accounts they end in: a person is found by issuer and
/// subject, never by address alone.
struct SingleSignOnStore: Sendable {
    let database: Database

    /// How long a browser has between leaving for the provider and coming back.
    static let lifetime: TimeInterval = 600
    /// What an account made by the school's sign-in has for a password: no bcrypt hash, so no password matches.
    static let noPassword = "!school-sign-in"

    /// A sign-in under way, as stored: only digests of its state and browser secret.
    struct Pending: Sendable, Decodable {
        var browserHash: String
        var nonce: String
        var verifier: String
        var next: String?
        var linkUserId: Int64?
        var expiresAt: Date
    }

    /// Keeps a sign-in under way, and clears those whose time is up.
    func begin(
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
    func take(state: String) async throws -> Pending? {
        try await database.write { sql in
            try await sql.delete(from: "sso_sign_ins").where("state_hash", .equal, OpaqueToken.digest(state))
                .returning("*").first(decoding: Pending.self, with: .rollcall)
        }
    }

    /// Where a sign-in through the school ends.
    enum Outcome: Sendable {
        case signedIn(User)
        /// A password account has this address and its owner has not proved it is theirs.
        case addressTaken(String)
        /// The provider released no address Rollcall can use for a new account.
        case noAddress
    }

    /// The account for these claims: the one linked to the issuer and subject (its name, address and, where the
    /// school gives roles, role brought up to date), the signed-in account that asked to be linked, a password
    /// account whose address both the provider and Rollcall confirmed, or a new account.
    func account(
        for claims: IDTokenClaims, settings: SingleSignOnSettings, linking: Int64?, now: Date = Date()
    ) async throws -> Outcome {
        let roleFromSchool = settings.roleClaim.map { claim in
            SingleSignOn.role(claimValues: claims.others[claim] ?? [], teacherValues: settings.teacherValues)
        }
        let email = SingleSignOn.email(claims)
        let outcome: (Outcome, Int64?) = try await database.transaction { sql in
            let linked = try await sql.select().column("user_id").from("sso_identities")
                .where("issuer", .equal, claims.issuer).where("subject", .equal, claims.subject)
                .first(decodingColumn: "user_id", as: Int64.self)
            if let linked {
                try await Self.refresh(linked, claims: claims, email: email, role: roleFromSchool, now: now, in: sql)
                return (.signedIn(try await Self.user(linked, in: sql)), linked)
            }
            if let linking {
                try await Self.link(claims, to: linking, now: now, in: sql)
                return (.signedIn(try await Self.user(linking, in: sql)), linking)
            }
            guard let email else { return (.noAddress, nil) }
            if let existing = try await sql.select().column("*").from("users").where("email", .equal, email.address)
                .first(decoding: User.self, with: .rollcall)
            {
                // Only an address both sides confirmed proves that this person owns that account.
                guard email.verified, existing.emailVerifiedAt != nil else {
                    return (.addressTaken(email.address), nil)
                }
                try await Self.link(claims, to: existing.id, now: now, in: sql)
                return (.signedIn(existing), existing.id)
            }
            let id = try await Self.create(
                claims, email: email, role: roleFromSchool, settings: settings, now: now, in: sql)
            return (.signedIn(try await Self.user(id, in: sql)), id)
        }
        if let changed = outcome.1 { database.caches.identities.forget(userID: changed) }
        return outcome.0
    }

    /// The account `id`, read inside a transaction that just linked or made it.
    static func user(_ id: Int64, in sql: any SQLDatabase) async throws -> User {
        guard
            let user = try await sql.select().column("*").from("users").where("id", .equal, id)
                .first(decoding: User.self, with: .rollcall)
        else { throw NotStored(.userNotFound, what: "user") }
        return user
    }

    private static func link(_ claims: IDTokenClaims, to userID: Int64, now: Date, in sql: any SQLDatabase) async throws
    {
        try await sql.insert(into: "sso_identities")
            .columns("issuer", "subject", "user_id", "created_at", "last_sign_in_at")
            .values(SQLBind(claims.issuer), SQLBind(claims.subject), SQLBind(userID), SQLBind(now), SQLBind(now))
            .ignoringConflicts(with: ["issuer", "subject"]).run()
    }

    /// Brings a linked account up to date with the school: its name, its address (where no other account has it),
    /// and its role where the school gives roles and no admin set one by hand.
    private static func refresh(
        _ userID: Int64, claims: IDTokenClaims, email: (address: String, verified: Bool)?, role: Role?, now: Date,
        in sql: any SQLDatabase
    ) async throws {
        try await sql.update("sso_identities").set("last_sign_in_at", to: now)
            .where("issuer", .equal, claims.issuer).where("subject", .equal, claims.subject).run()
        let user = try await user(userID, in: sql)
        var update = sql.update("users").where("id", .equal, userID)
        var changed = false
        if let name = claims.name.flatMap({ try? AccountRules.name($0) }), name != user.name {
            update = update.set("name", to: name)
            changed = true
        }
        if let email, email.address != user.email,
            try await sql.select().column("id").from("users").where("email", .equal, email.address).first() == nil
        {
            update = update.set("email", to: email.address).set("email_verified_at", to: email.verified ? now : nil)
            changed = true
        } else if let email, email.verified, email.address == user.email, user.emailVerifiedAt == nil {
            update = update.set("email_verified_at", to: now)
            changed = true
        }
        if let role, user.roleSource == .school, user.role != .admin, role != user.role {
            update = update.set("role", to: role.rawValue).set("approved", to: true)
            changed = true
        }
        if changed { try await update.run() }
    }

    private static func create(
        _ claims: IDTokenClaims, email: (address: String, verified: Bool), role: Role?, settings: SingleSignOnSettings,
        now: Date, in sql: any SQLDatabase
    ) async throws -> Int64 {
        let name =
            claims.name.flatMap { try? AccountRules.name($0) }
            ?? String(email.address.prefix { $0 != "@" })
        var number = settings.studentNumberClaim.flatMap { claims.others[$0]?.first }
            .flatMap { try? AccountRules.studentNumber($0) }
        if let taken = number,
            try await sql.select().column("id").from("users").where("student_number", .equal, taken).first() != nil
        {
            number = nil
        }
        guard
            let id = try await sql.insert(into: "users")
                .columns(
                    "email", "name", "password_hash", "role", "student_number", "about", "approved", "disabled",
                    "created_at", "email_verified_at", "role_source"
                )
                .values(
                    SQLBind(email.address), SQLBind(name), SQLBind(noPassword), SQLBind((role ?? .student).rawValue),
                    SQLBind(number), SQLBind(""), SQLBind(true), SQLBind(false), SQLBind(now),
                    SQLBind(email.verified ? now : nil), SQLBind(RoleSource.school.rawValue)
                )
                .returning("id").first(decodingColumn: "id", as: Int64.self)
        else { throw NotSaved(what: "account") }
        try await link(claims, to: id, now: now, in: sql)
        return id
    }
}

/// Where an account's role came from.
enum RoleSource: String, Codable, Sendable {
    /// Chosen at registration.
    case registration
    /// Given by the school's sign-in, from its role claim.
    case school
    /// Set by an admin.
    case admin
}
