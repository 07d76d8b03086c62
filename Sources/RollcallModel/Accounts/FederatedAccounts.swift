import Foundation
import Logging
import RollcallCore
import RollcallStorage
import SQLKit

/// What a school's sign-in or a learning platform says of a person at one sign-in or launch, already read from
/// its token or roster.
package struct FederatedPerson: Sendable {
    package var name: String?
    /// An address the issuer gives, as it gave it.
    package var email: String?
    /// Whether the issuer vouches that the address is the person's.
    package var emailVerified: Bool
    package var studentNumber: String?
    package var role: RoleClaim
    /// Whether a changed address replaces the account's (the school's directory), or only a new account takes it
    /// (a platform, whose addresses nobody proved to Rollcall).
    package var updatesAddress: Bool

    package init(
        name: String? = nil, email: String? = nil, emailVerified: Bool, studentNumber: String? = nil, role: RoleClaim,
        updatesAddress: Bool
    ) {
        self.name = name
        self.email = email
        self.emailVerified = emailVerified
        self.studentNumber = studentNumber
        self.role = role
        self.updatesAddress = updatesAddress
    }
}

/// The accounts that federation makes and keeps up to date: written here only, inside the caller's transaction, so
/// that the school's sign-in and the learning platform follow one rule for names, numbers, addresses and roles.
extension UserStore {
    /// What an account made by federation has for a password: no bcrypt hash, so no password matches.
    package static let noPassword = "!school-sign-in"

    /// Makes an account for a person the school or a platform vouches for, approved, its role from the claim.
    package static func createFederated(
        _ person: FederatedPerson, address: String, fallbackName: String, now: Date, in sql: any SQLDatabase
    ) async throws -> Int64 {
        let name = person.name.flatMap { try? AccountRules.name($0) } ?? fallbackName
        let number = try await freeStudentNumber(person.studentNumber, in: sql)
        guard
            let id = try await sql.insert(into: "users")
                .columns(
                    "email", "name", "password_hash", "role", "student_number", "about", "approved", "disabled",
                    "created_at", "email_verified_at", "role_source"
                )
                .values(
                    SQLBind(address), SQLBind(name), SQLBind(noPassword),
                    SQLBind(RoleRule.initial(person.role).rawValue),
                    SQLBind(number), SQLBind(""), SQLBind(true), SQLBind(false), SQLBind(now),
                    SQLBind(person.emailVerified ? now : nil), SQLBind(RoleSource.school.rawValue)
                )
                .returning("id").first(decodingColumn: "id", as: Int64.self)
        else { throw NotSaved(what: "account") }
        return id
    }

    /// Brings a linked account up to date: its name, its student number and (from the school's directory) its
    /// address where no other account has them, and its role by `RoleRule`. A role claim that is absent is logged,
    /// since a school that stops releasing it would otherwise go unnoticed.
    package static func refreshFederated(
        _ user: User, from person: FederatedPerson, now: Date, logger: Logger, in sql: any SQLDatabase
    ) async throws {
        var update = sql.update("users").where("id", .equal, user.id)
        var changed = false
        if let name = person.name.flatMap({ try? AccountRules.name($0) }), name != user.name {
            update = update.set("name", to: name)
            changed = true
        }
        if let number = try await freeStudentNumber(person.studentNumber, in: sql), number != user.studentNumber {
            update = update.set("student_number", to: number)
            changed = true
        }
        if person.updatesAddress, let address = person.email.flatMap({ try? AccountRules.email($0) }) {
            if address != user.email, try await !addressTaken(address, in: sql) {
                update = update.set("email", to: address).set("email_verified_at", to: person.emailVerified ? now : nil)
                changed = true
            } else if address == user.email, person.emailVerified, user.emailVerifiedAt == nil {
                update = update.set("email_verified_at", to: now)
                changed = true
            }
        }
        if person.role == .absent {
            logger.info("a federated sign-in gave no role claim; account \(user.id) keeps its role \(user.role)")
        } else if let role = RoleRule.next(current: user.role, source: user.roleSource, claim: person.role) {
            update = update.set("role", to: role.rawValue).set("approved", to: true)
                .set("role_source", to: RoleSource.school.rawValue)
            changed = true
        }
        if changed { try await update.run() }
    }

    /// The account `id`, read inside a transaction that just linked or made it.
    package static func user(_ id: Int64, in sql: any SQLDatabase) async throws -> User {
        guard let row = try await sql.select().column("*").from("users").where("id", .equal, id).first() else {
            throw NotStored(.userNotFound, what: "user")
        }
        return try User(row: row)
    }

    /// The account with this address, if any.
    package static func user(email: String, in sql: any SQLDatabase) async throws -> User? {
        try await sql.select().column("*").from("users").where("email", .equal, email).first().map(User.init(row:))
    }

    package static func addressTaken(_ address: String, in sql: any SQLDatabase) async throws -> Bool {
        try await sql.select().column("id").from("users").where("email", .equal, address).first() != nil
    }

    /// A student number that is well formed and no other account has; `nil` otherwise.
    private static func freeStudentNumber(_ raw: String?, in sql: any SQLDatabase) async throws -> String? {
        guard let number = raw.flatMap({ try? AccountRules.studentNumber($0) }) else { return nil }
        let taken = try await sql.select().column("id").from("users").where("student_number", .equal, number).first()
        return taken == nil ? number : nil
    }
}
