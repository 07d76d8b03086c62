import RollcallCore
import RollcallStorage
import SQLKit

/// Finding accounts by what people type or present: a student number, a confirmed phone, a search; read only, as
/// `UserStore` is the one writer of accounts.
package struct AccountDirectory: Sendable {
    package let database: Database

    /// The person who confirmed `phone` (E.164), who may sign in with it.
    package func find(confirmedPhone phone: String) async throws -> User? {
        try await database.read { sql in
            try await sql.select().column("*").from("users").where("phone", .equal, phone)
                .where("phone_confirmed_at", .isNot, SQLLiteral.null).first(decoding: User.self, with: .rollcall)
        }
    }

    /// Whether an admin other than `id` can act: not disabled, not deleted.
    package func hasOtherAdmin(than id: Int64) async throws -> Bool {
        try await database.read { sql in
            try await sql.select().column("id").from("users").where("role", .equal, Role.admin.rawValue)
                .where("id", .notEqual, id).where("disabled", .equal, false).where("deleted_at", .is, SQLLiteral.null)
                .first() != nil
        }
    }

    /// The account holding `studentNumber`, deleted or not, as a roster or a report names a student.
    package func find(studentNumber: String) async throws -> User? {
        try await database.read { sql in
            try await sql.select().column("*").from("users").where("student_number", .equal, studentNumber)
                .first(decoding: User.self, with: .rollcall)
        }
    }

    /// Users whose name, email or student number contains `query`, optionally of one role, by name.
    package func list(query: String?, role: Role?, limit: Int = 200) async throws -> [User] {
        try await database.read { sql in
            var select = sql.select().column("*").from("users")
            if role == .healthOfficer {
                select = select.where("health_officer", .equal, true)
            } else if let role {
                select = select.where("role", .equal, role.rawValue)
            }
            if let query, !query.isEmpty {
                let pattern = "%\(query.lowercased())%"
                select = select.where { group in
                    group.where(SQLFunction("lower", args: SQLColumn("name")), .like, SQLBind(pattern))
                        .orWhere("email", .like, SQLBind(pattern))
                        .orWhere(SQLFunction("lower", args: SQLColumn("student_number")), .like, SQLBind(pattern))
                }
            }
            return try await select.orderBy("name").limit(limit).all(decoding: User.self, with: .rollcall)
        }
    }

    /// Whether the school's sign-in or a learning platform vouches for the account by a link to it.
    package func isVouchedForBySchool(_ id: Int64) async throws -> Bool {
        try await database.read { sql in
            for table in ["sso_identities", "lti_identities"] {
                if try await sql.select().column("user_id").from(table).where("user_id", .equal, id).first() != nil {
                    return true
                }
            }
            return false
        }
    }
}
