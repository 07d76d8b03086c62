import Foundation
import RollcallCore
import RollcallStorage
import RollcallWords
import SQLKit

/// A change to a person's account made other than by themselves in their profile.
package enum AccountChange: String, Codable, Sendable, CaseIterable {
    case passwordReset = "password_reset"
    case passwordResetLinkSent = "password_reset_link_sent"
    case healthOfficerGranted = "health_officer_granted"
    case healthOfficerRevoked = "health_officer_revoked"
    case madeTeacher = "made_teacher"
    case madeStudent = "made_student"
    case approved
    case disabled
    case enabled

    /// The change in words, for the admin page: `actor` changed `person`'s account.
    package func sentence(actor: String, person: String, in reader: Reader) -> String {
        switch self {
        case .passwordReset: reader.say("\(person) set a new password from an emailed link")
        case .passwordResetLinkSent: reader.say("\(actor) sent \(person) a link to set a new password")
        case .healthOfficerGranted: reader.say("\(actor) made \(person) a health officer")
        case .healthOfficerRevoked: reader.say("\(actor) removed \(person) as health officer")
        case .madeTeacher: reader.say("\(actor) made \(person) a teacher")
        case .madeStudent: reader.say("\(actor) made \(person) a student")
        case .approved: reader.say("\(actor) approved \(person) as a teacher")
        case .disabled: reader.say("\(actor) disabled \(person)'s account")
        case .enabled: reader.say("\(actor) enabled \(person)'s account again")
        }
    }
}

/// The record of `AccountChange`s, in `account_audit`: who changed whose account, how, and when. Each is written in
/// the transaction of its change.
package enum AccountAudit {
    package static func record(
        _ change: AccountChange, userID: Int64, actor: User, at now: Date = Date(), in sql: any SQLDatabase
    ) async throws {
        try await sql.insert(into: "account_audit").columns("user_id", "action", "actor_id", "actor_name", "at")
            .values(SQLBind(userID), SQLBind(change.rawValue), SQLBind(actor.id), SQLBind(actor.name), SQLBind(now))
            .run()
    }

    /// One entry, with the name of the person whose account changed.
    package struct Entry: Codable, Sendable, Equatable {
        package var id: Int64
        package var userId: Int64
        package var userName: String
        package var action: String
        package var actorId: Int64?
        package var actorName: String
        package var at: Date

        package init(
            id: Int64, userId: Int64, userName: String, action: String, actorId: Int64? = nil, actorName: String,
            at: Date
        ) {
            self.id = id
            self.userId = userId
            self.userName = userName
            self.action = action
            self.actorId = actorId
            self.actorName = actorName
            self.at = at
        }

        package func sentence(in reader: Reader) -> String {
            AccountChange(rawValue: action)?.sentence(actor: actorName, person: userName, in: reader)
                ?? "\(actorName): \(action)"
        }
    }

    /// The newest entries first.
    package static func entries(limit: Int = 50, in database: Database) async throws -> [Entry] {
        try await database.read { sql in
            try await sql.raw(
                """
                SELECT account_audit.*, users.name AS user_name FROM account_audit
                JOIN users ON users.id = account_audit.user_id
                ORDER BY account_audit.id DESC LIMIT \(bind: limit)
                """
            ).all(decoding: Entry.self, with: .rollcall)
        }
    }
}
