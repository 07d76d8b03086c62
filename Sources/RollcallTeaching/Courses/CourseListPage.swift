import Foundation
import RollcallModel
import RollcallWeb

/// What the course list shows.
struct CourseListPage: PageModel {
    static let template = "courses"

    struct Card: Sendable {
        var id: Int64
        var name: String
        var teacher: String
        /// "12 students", counted in the reader's language.
        var students: String
        var description: String
        /// `lang` of the course's name and description, where it is taught in another language than the page's.
        var cardLang: String?
    }

    var courses: [Card]
    var archived: [Card]
    var hasArchived: Bool
    var empty: Bool
    var teaches: Bool
    var mayTeach: Bool
    var isStudent: Bool
    var unverified: Bool
    /// Made by the school's sign-in, which did not vouch for the address: no link was sent.
    var schoolAccount: Bool
    /// The zones a new course may take, the one it would take selected.
    var timeZones: [TimeZoneChoice]
    /// The teacher's profile names no zone: the page's script selects the browser's.
    var zoneFromBrowser: Bool
    /// The languages a new course may be taught in, the teacher's own selected.
    var languages: [CourseLanguage.Choice]
}
