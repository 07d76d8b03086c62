import Foundation
import RollcallCore
import RollcallStorage
import RollcallWords
import SQLKit

/// A person with a Rollcall account, as stored.
package struct User: Codable, Sendable, Equatable {
    package var id: Int64
    package var email: String
    package var name: String
    package var passwordHash: String
    package var role: Role
    package var studentNumber: String?
    package var phone: String?
    package var about: String
    package var pictureId: Int64?
    package var emailVerifiedAt: Date?
    package var approved: Bool
    package var disabled: Bool
    package var createdAt: Date
    /// Granted by an admin beside the person's own role.
    package var healthOfficer: Bool
    /// When the person's account was deleted: the row stays, emptied, so that their attendance still counts.
    package var deletedAt: Date?
    /// When the person proved with a code that `phone` is theirs; only a confirmed number signs in.
    package var phoneConfirmedAt: Date? = nil
    /// Where the role came from: the person's registration, the school's sign-in, or an admin.
    package var roleSource: RoleSource = .registration
    /// The IANA zone of the person's pages not tied to a course; `nil` until the browser or the person sets it.
    package var timeZone: String? = nil
    /// The language the person chose (`fr`); `nil` while their browser's is used.
    package var language: String? = nil
    /// The language the person first acted in, kept for their letters while they choose none.
    package var firstLanguage: String? = nil

    /// The language of letters to the person: the one they chose, else the one they first acted in; `nil` leaves
    /// it to the school's default.
    package var letterLanguage: String? { language ?? firstLanguage }

    /// How the person's pages write moments where no course is involved: their zone, else the server's.
    package func timeText(in reader: Reader) -> TimeText {
        TimeText(zoneIdentifier: timeZone ?? CourseTimeZone.serverDefault, locale: reader.locale)
    }

    /// Whether the person holds `role`, as their own or granted.
    package func has(_ role: Role) -> Bool { role == self.role || (role == .healthOfficer && healthOfficer) }

    /// Teachers awaiting approval may sign in and look around, but not create courses.
    package var mayTeach: Bool { (role == .teacher && approved) || role == .admin }

    /// Whether the person may reach others through a roster (add, import, invite): an address someone proved, or
    /// a role the school or an admin gave. A stranger's freshly registered account learns nobody's name and
    /// mails nobody.
    package var mayReachPeople: Bool { role == .admin || emailVerifiedAt != nil || roleSource != .registration }
}

extension User {
    /// The columns `init(row:)` reads, named rather than `*`: a statement with a fixed list of columns is prepared
    /// once per connection on PostgreSQL, and a column a newer release adds never changes its answer. Written out
    /// once, as both engines quote names: SQLKit quoted and escaped 40 names again for every signed-in request that
    /// missed the identity cache, 3 % of the server's CPU in a room checking in.
    package static let columns = SQLRaw(
        [
            "id", "email", "name", "password_hash", "role", "student_number", "phone", "about", "picture_id",
            "email_verified_at", "approved", "disabled", "created_at", "health_officer", "deleted_at",
            "phone_confirmed_at", "role_source", "time_zone", "language", "first_language",
        ].map { #""users"."\#($0)""# }.joined(separator: ", "))

    /// Reads a `users` row column by column: every signed-in request that misses the identity cache reads one, and
    /// Codable with snake-case keys cost more than the query.
    package init(row: any SQLRow) throws {
        guard let role = Role(rawValue: try row.decode(column: "role", as: String.self)) else {
            throw UnreadableRow(what: "an account's role")
        }
        let roleSource = try row.decodeIfPresent(column: "role_source", as: String.self)
        self.init(
            id: try row.decode(column: "id", as: Int64.self), email: try row.decode(column: "email", as: String.self),
            name: try row.decode(column: "name", as: String.self),
            passwordHash: try row.decode(column: "password_hash", as: String.self), role: role,
            studentNumber: try row.decodeIfPresent(column: "student_number", as: String.self),
            phone: try row.decodeIfPresent(column: "phone", as: String.self),
            about: try row.decode(column: "about", as: String.self),
            pictureId: try row.decodeIfPresent(column: "picture_id", as: Int64.self),
            emailVerifiedAt: try row.decodeIfPresent(column: "email_verified_at", as: Date.self),
            approved: try row.decode(column: "approved", as: Bool.self),
            disabled: try row.decode(column: "disabled", as: Bool.self),
            createdAt: try row.decode(column: "created_at", as: Date.self),
            healthOfficer: try row.decode(column: "health_officer", as: Bool.self),
            deletedAt: try row.decodeIfPresent(column: "deleted_at", as: Date.self),
            phoneConfirmedAt: try row.decodeIfPresent(column: "phone_confirmed_at", as: Date.self),
            roleSource: roleSource.flatMap(RoleSource.init(rawValue:)) ?? .registration,
            timeZone: try row.decodeIfPresent(column: "time_zone", as: String.self),
            language: try row.decodeIfPresent(column: "language", as: String.self),
            firstLanguage: try row.decodeIfPresent(column: "first_language", as: String.self)
        )
    }
}

/// Another account has confirmed this phone number.
package struct PhoneTaken: Error {}

/// What a new account starts with.
package struct NewUser: Sendable {
    package var name: String
    package var email: String
    package var passwordHash: String
    package var role: Role
    package var studentNumber: String?
    package var approved: Bool
    package var emailVerified: Bool = false
    /// The language the person registers in, kept for their letters; `nil` for accounts others make.
    package var firstLanguage: String? = nil

    package init(
        name: String, email: String, passwordHash: String, role: Role, studentNumber: String? = nil, approved: Bool,
        emailVerified: Bool = false, firstLanguage: String? = nil
    ) {
        self.name = name
        self.email = email
        self.passwordHash = passwordHash
        self.role = role
        self.studentNumber = studentNumber
        self.approved = approved
        self.emailVerified = emailVerified
        self.firstLanguage = firstLanguage
    }
}

/// The changes a person may make to their own profile; `nil` leaves a field as it is.
package struct ProfileChange: Sendable {
    package var name: String?
    package var phone: String??
    package var about: String?
    package var timeZone: String?
    /// A language tag, or `.some(nil)` to follow the browser again.
    package var language: String??

    package init(
        name: String? = nil, phone: String?? = nil, about: String? = nil, timeZone: String? = nil,
        language: String?? = nil
    ) {
        self.name = name
        self.phone = phone
        self.about = about
        self.timeZone = timeZone
        self.language = language
    }
}

extension Role {
    /// The role in words, on a page: “health officer”. The API sends `rawValue`.
    package func pageText(in reader: Reader) -> String {
        switch self {
        case .student: reader.say("student")
        case .teacher: reader.say("teacher")
        case .admin: reader.say("admin")
        case .healthOfficer: reader.say("health officer")
        }
    }
}
