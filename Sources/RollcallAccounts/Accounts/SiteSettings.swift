import Foundation
import RollcallParts

/// What the account pages and routes need of the school's settings, as values: the site's address and cookies, the
/// ways to sign in, the school's name, language and region, teacher approval, and the texted codes' spacing.
struct SiteSettings: Sendable {
    var publicURL: String
    var secureCookies: Bool
    var passwordSignIn: Bool
    var singleSignOn: SingleSignOnSettings?
    var schoolName: String
    var defaultLanguage: String
    var defaultRegion: String?
    var teacherApproval: Bool
    var phoneCodeInterval: TimeInterval

    init(_ configuration: Configuration) {
        publicURL = configuration.publicURL
        secureCookies = configuration.secureCookies
        passwordSignIn = configuration.passwordSignIn
        singleSignOn = configuration.singleSignOn
        schoolName = configuration.schoolName
        defaultLanguage = configuration.defaultLanguage
        defaultRegion = configuration.defaultRegion
        teacherApproval = configuration.teacherApproval
        phoneCodeInterval = configuration.phoneCodeInterval
    }
}
