import Foundation
import RollcallCore

/// A user as the API shows them to themselves and to admins.
package struct UserView: Codable, Sendable, Equatable {
    package var id: Int64
    package var name: String
    package var email: String
    package var role: Role
    package var studentNumber: String?
    package var phone: String?
    /// Whether a code proved the phone number, so that it signs in.
    package var phoneConfirmed: Bool
    package var about: String
    package var emailVerified: Bool
    package var approved: Bool
    package var disabled: Bool
    package var hasPicture: Bool
    package var createdAt: Date
    /// Whether an admin granted the health-officer role, who runs exposure reports.
    package var healthOfficer: Bool
    /// Where the role came from: `registration`, `school` (the school's sign-in) or `admin`.
    package var roleSource: RoleSource
    /// The zone of the person's pages not tied to a course; left out until set.
    package var timeZone: String?
    /// The language the person chose; left out while their browser's is used.
    package var language: String?

    package init(_ user: User) {
        timeZone = user.timeZone
        language = user.language
        id = user.id
        roleSource = user.roleSource
        name = user.name
        email = user.email
        role = user.role
        studentNumber = user.studentNumber
        phone = user.phone
        phoneConfirmed = user.phone != nil && user.phoneConfirmedAt != nil
        about = user.about
        emailVerified = user.emailVerifiedAt != nil
        approved = user.approved
        disabled = user.disabled
        hasPicture = user.pictureId != nil
        createdAt = user.createdAt
        healthOfficer = user.healthOfficer
    }
}
