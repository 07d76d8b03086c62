import Foundation
import Logging
import RollcallCore
import RollcallStorage
import RollcallWords
import SQLKit

/// Accounts: creation, look-up, profile and the admin's switches.
package struct UserStore: Sendable {
    package let database: Database
    /// Told of every change to an account, so that a signed-in person is never served a stale account here.
    package var identities: IdentityCache

    package init(database: Database, identities: IdentityCache? = nil) {
        self.database = database
        self.identities = identities ?? database.caches.identities
    }

    /// The look-ups that find people by something other than their id or address.
    package var directory: AccountDirectory { AccountDirectory(database: database) }

    /// Creates an account, refusing an email address or student number already in use.
    package func create(_ new: NewUser) async throws -> User {
        do {
            return try await insert(new)
        } catch  where database.isUniqueViolation(error, index: "users_email_key") {
            // Registered at the same moment in another process: the unique index decided, and says the same.
            throw AccountConflict.emailTaken
        } catch  where database.isUniqueViolation(error, index: "users_student_number_key") {
            throw AccountConflict.studentNumberTaken(new.studentNumber ?? "")
        }
    }

    private func insert(_ new: NewUser) async throws -> User {
        try await database.transaction { sql in
            if try await sql.select().column("id").from("users").where("email", .equal, new.email).first() != nil {
                throw AccountConflict.emailTaken
            }
            if let number = new.studentNumber,
                try await sql.select().column("id").from("users").where("student_number", .equal, number).first() != nil
            {
                throw AccountConflict.studentNumberTaken(number)
            }
            let now = Date()
            let row = try await sql.insert(into: "users")
                .columns(
                    "email", "name", "password_hash", "role", "student_number", "about", "approved", "disabled",
                    "created_at", "email_verified_at", "first_language"
                )
                .values(
                    SQLBind(new.email), SQLBind(new.name), SQLBind(new.passwordHash), SQLBind(new.role.rawValue),
                    SQLBind(new.studentNumber), SQLBind(""), SQLBind(new.approved), SQLBind(false), SQLBind(now),
                    SQLBind(new.emailVerified ? now : nil), SQLBind(new.firstLanguage)
                )
                .returning("*").first()
            guard let row else { throw NotSaved(what: "account") }
            return try row.decode(model: User.self, with: .rollcall)
        }
    }

    package func find(id: Int64) async throws -> User? {
        try await database.read { sql in
            try await sql.select().column(User.columns).from("users").where("id", .equal, id).first()
                .map(User.init(row:))
        }
    }

    package func find(email: String) async throws -> User? {
        try await database.read { sql in
            try await sql.select().column(User.columns).from("users").where("email", .equal, email).first()
                .map(User.init(row:))
        }
    }

    /// Keeps `language` as the one the person first acted in, unless one is kept already.
    /// The person's cached identities learn it in place: forgetting them would cost every newcomer a second look-up
    /// of their token on their next request.
    package func keepFirstLanguage(_ language: String, of id: Int64) async throws {
        if try await database.firstLanguages.keep(language, of: id) {
            identities.amend(userID: id) { $0.firstLanguage = $0.firstLanguage ?? language }
        } else {
            identities.forget(userID: id)
        }
    }

    /// Keeps `language` as the person's first, as `keepFirstLanguage` does; without holding the caller where
    /// `FirstLanguages.leftForLater` says so, a room's newcomers then gathering a moment into one statement. The
    /// database finishes it before it closes. A failure is logged, and the person's next request tries again: a
    /// letter's language is not worth failing an answer over.
    package func keepFirstLanguageLater(_ language: String, of id: Int64, logger: Logger) async {
        let keep: @Sendable () async -> Void = {
            do {
                try await keepFirstLanguage(language, of: id)
            } catch {
                logger.warning("The first language was not kept: \(error)", metadata: ["user": "\(id)"])
            }
        }
        if database.firstLanguages.leftForLater { database.later.start(keep) } else { await keep() }
    }

    /// Makes `phone` the person's confirmed number; throws `PhoneTaken` when another account confirmed it first.
    package func confirmPhone(id: Int64, phone: String, at now: Date = Date()) async throws {
        defer { identities.forget(userID: id) }
        do {
            try await database.transaction { sql in
                let holder = try await sql.select().column("id").from("users").where("phone", .equal, phone)
                    .where("phone_confirmed_at", .isNot, SQLLiteral.null).where("id", .notEqual, id).first()
                if holder != nil { throw PhoneTaken() }
                try await sql.update("users").set("phone", to: phone).set("phone_confirmed_at", to: SQLBind(now))
                    .where("id", .equal, id).run()
                try await RememberedDevices.forgetStale(userID: id, sql: sql)
                try await PhoneCodes.forgetStale(userID: id, sql: sql)
            }
        } catch  where database.isUniqueViolation(error, index: "users_confirmed_phone") {
            throw PhoneTaken()
        }
        database.announce(.user(id))
    }

    /// Removes the person's number, and with it signing in by phone and the browsers remembered for it.
    package func clearPhone(id: Int64) async throws {
        defer { identities.forget(userID: id) }
        try await database.transaction { sql in
            try await sql.update("users").set("phone", to: SQLLiteral.null).set(
                "phone_confirmed_at", to: SQLLiteral.null
            )
            .where("id", .equal, id).run()
            try await RememberedDevices.forgetStale(userID: id, sql: sql)
            try await PhoneCodes.forgetStale(userID: id, sql: sql)
        }
        database.announce(.user(id))
    }

    package func update(id: Int64, _ change: ProfileChange) async throws -> User {
        defer { identities.forget(userID: id) }
        let user = try await database.transaction { sql in
            var update = sql.update("users").where("id", .equal, id)
            var changed = false
            if let name = change.name {
                update = update.set("name", to: name)
                changed = true
            }
            if let phone = change.phone {
                // A number typed into the profile is not confirmed: it signs in only after a code proves it.
                try await sql.raw(
                    """
                    UPDATE users SET phone_confirmed_at = NULL
                    WHERE id = \(bind: id) AND (phone IS NULL OR phone <> \(bind: phone ?? ""))
                    """
                ).run()
                update = update.set("phone", to: phone)
                changed = true
            }
            if let about = change.about {
                update = update.set("about", to: about)
                changed = true
            }
            if let zone = change.timeZone {
                update = update.set("time_zone", to: zone)
                changed = true
            }
            if let language = change.language {
                update = update.set("language", to: language)
                changed = true
            }
            if changed { try await update.run() }
            if change.phone != nil {
                try await RememberedDevices.forgetStale(userID: id, sql: sql)
                try await PhoneCodes.forgetStale(userID: id, sql: sql)
            }
            guard
                let user = try await sql.select().column("*").from("users").where("id", .equal, id)
                    .first(decoding: User.self, with: .rollcall)
            else { throw NotStored(.userNotFound, what: "user") }
            return user
        }
        database.announce(.user(id))
        return user
    }

    /// Sets a new password; the reset links asked for before it end with it.
    package func setPasswordHash(id: Int64, _ hash: String) async throws {
        defer { identities.forget(userID: id) }
        try await database.transaction { sql in
            try await sql.update("users").set("password_hash", to: hash).where("id", .equal, id).run()
            try await sql.delete(from: "password_resets").where("user_id", .equal, id).run()
        }
        database.announce(.user(id))
    }

    /// Stores a picture and points the user at it, dropping the previous one.
    package func setPicture(id: Int64, image: StoredImage) async throws {
        defer { identities.forget(userID: id) }
        try await ImageStore.replace(image, table: "users", column: "picture_id", id: id, database: database)
        database.announce(.user(id))
    }

    /// Approves a teacher; recorded as `actor`'s doing when it changed anything.
    package func approve(id: Int64, by actor: User) async throws {
        defer { identities.forget(userID: id) }
        try await database.transaction { sql in
            let changed = try await sql.update("users").set("approved", to: true).where("id", .equal, id)
                .where("approved", .equal, false).returning("id").first()
            if changed != nil { try await AccountAudit.record(.approved, userID: id, actor: actor, in: sql) }
        }
        database.announce(.user(id))
    }

    /// Disabling also signs the person out everywhere.
    package func setDisabled(id: Int64, _ disabled: Bool, by actor: User) async throws {
        defer { identities.forget(userID: id) }
        let adminID = actor.id
        try await database.transaction { sql in
            if disabled {
                // Every admin's row is held, in one order: two admins disabling each other at the same moment go
                // one after the other, and the second finds itself disabled, so one admin always remains.
                let admins = try await sql.select().columns("id", "disabled").from("users")
                    .where("role", .equal, Role.admin.rawValue).orderBy("id").for(.update).all()
                let actingIsActive = try admins.contains {
                    try $0.decode(column: "id", as: Int64.self) == adminID
                        && !$0.decode(column: "disabled", as: Bool.self)
                }
                guard actingIsActive else { throw AppError.accountDisabled }
            }
            let changed = try await sql.update("users").set("disabled", to: disabled).where("id", .equal, id)
                .where("disabled", .equal, !disabled).returning("id").first()
            if disabled { try await sql.delete(from: "access_tokens").where("user_id", .equal, id).run() }
            if changed != nil {
                try await AccountAudit.record(disabled ? .disabled : .enabled, userID: id, actor: actor, in: sql)
            }
        }
        database.announce(.user(id))
    }

    /// Gives an account a role by hand: approved, and marked as the admin's choice, which the school's sign-in then
    /// leaves as it is.
    package func setRole(id: Int64, _ role: Role, by actor: User) async throws {
        defer { identities.forget(userID: id) }
        try await database.transaction { sql in
            let changed = try await sql.update("users").set("role", to: role.rawValue).set("approved", to: true)
                .set("role_source", to: RoleSource.admin.rawValue).where("id", .equal, id)
                .where("role", .notEqual, role.rawValue).returning("id").first()
            if changed == nil {
                // The same role, now the admin's choice: the school's sign-in leaves it as it is from here on.
                try await sql.update("users").set("approved", to: true)
                    .set("role_source", to: RoleSource.admin.rawValue).where("id", .equal, id).run()
            } else {
                try await AccountAudit.record(
                    role == .teacher ? .madeTeacher : .madeStudent, userID: id, actor: actor, in: sql)
            }
        }
        database.announce(.user(id))
    }

    /// Grants or revokes the health-officer role; recorded as `actor`'s doing when it changed anything.
    package func setHealthOfficer(id: Int64, _ granted: Bool, by actor: User) async throws {
        defer { identities.forget(userID: id) }
        try await database.transaction { sql in
            let changed = try await sql.update("users").set("health_officer", to: granted).where("id", .equal, id)
                .where("health_officer", .equal, !granted).returning("id").first()
            if changed != nil {
                try await AccountAudit.record(
                    granted ? .healthOfficerGranted : .healthOfficerRevoked, userID: id, actor: actor, in: sql)
            }
        }
        database.announce(.user(id))
    }

    /// Marks the address as proved by a link Rollcall sent to it. The first proof ends every link to the school's
    /// sign-in or a platform made to the account after it was created: until then, whoever registered the address
    /// could have linked their own login to it. Answers how many links it ended.
    @discardableResult
    package func markEmailVerified(id: Int64, now: Date = Date()) async throws -> Int {
        defer { identities.forget(userID: id) }
        let ended = try await database.write { sql -> Int in
            guard
                try await sql.update("users").set("email_verified_at", to: now).where("id", .equal, id)
                    .where("email_verified_at", .is, SQLLiteral.null).returning("id").first() != nil
            else { return 0 }
            var ended = 0
            // Compared in SQL with the stored value: a moment read back as a Date may differ in its last bit.
            for table in ["sso_identities", "lti_identities"] {
                ended += try await sql.raw(
                    """
                    DELETE FROM \(ident: table) WHERE user_id = \(bind: id)
                      AND created_at > (SELECT created_at FROM users WHERE id = \(bind: id)) RETURNING user_id
                    """
                ).all().count
            }
            return ended
        }
        // Every process forgets what it knew: a teacher who just confirmed may add students on any of them.
        database.announce(.user(id))
        return ended
    }

}

/// Writes to `users` that other stores make inside their own transactions: this file and the federation's are the
/// only writers of accounts.
extension UserStore {
    /// Empties an erased account: the row stays, so that the person's attendance still counts, with nothing of them.
    package static func empty(_ id: Int64, at now: Date, in sql: any SQLDatabase) async throws {
        try await sql.update("users")
            .set("name", to: "Deleted person").set("email", to: "deleted-\(id)@deleted.invalid")
            .set("password_hash", to: "").set("student_number", to: SQLLiteral.null)
            .set("phone", to: SQLLiteral.null).set("phone_confirmed_at", to: SQLLiteral.null).set("about", to: "")
            .set("picture_id", to: SQLLiteral.null)
            .set("email_verified_at", to: SQLLiteral.null).set("approved", to: false).set("disabled", to: true)
            .set("health_officer", to: false).set("deleted_at", to: SQLBind(now))
            .where("id", .equal, id).run()
    }

    /// Gives a student who has none the number a roster import kept for them, unless someone else has it.
    package static func giveStudentNumber(_ number: String, to studentID: Int64, in sql: any SQLDatabase) async throws {
        try await sql.raw(
            """
            UPDATE users SET student_number = \(bind: number)
            WHERE id = \(bind: studentID) AND student_number IS NULL
              AND NOT EXISTS (SELECT 1 FROM users other WHERE other.student_number = \(bind: number))
            """
        ).run()
    }
}

/// Why a new account cannot have the details it asked for.
package enum AccountConflict: Error, Equatable {
    /// Another account has this email address.
    case emailTaken
    /// Another account has this student number.
    case studentNumberTaken(String)
}
