import Foundation
import RollcallCore
import RollcallModel

/// A user as the API shows them to themselves and to admins.
struct UserView: Codable, Sendable, Equatable {
    var id: Int64
    var name: String
    var email: String
    var role: Role
    var studentNumber: String?
    var phone: String?
    /// Whether a code proved the phone number, so that it signs in.
    var phoneConfirmed: Bool
    var about: String
    var emailVerified: Bool
    var approved: Bool
    var disabled: Bool
    var hasPicture: Bool
    var createdAt: Date
    /// Whether an admin granted the health-officer role, who runs exposure reports.
    var healthOfficer: Bool
    /// Where the role came from: `registration`, `school` (the school's sign-in) or `admin`.
    var roleSource: RoleSource
    /// The zone of the person's pages not tied to a course; left out until set.
    var timeZone: String?
    /// The language the person chose; left out while their browser's is used.
    var language: String?

    init(_ user: User) {
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
