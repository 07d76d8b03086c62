import Foundation
import RollcallCore
import RollcallWords

/// The language a course's teacher writes its content in: its name, description, quizzes and session titles. Pages
/// mark that content with `lang` where it is not the page's language, so that a screen reader reads a French quiz to
/// a German student with a French voice.
package enum CourseLanguage {
    /// A language a teacher names for a course: one Rollcall speaks, by its tag in any case (`FR` is `fr`).
    package static func validated(_ raw: String, catalogs: Catalogs = .shipped) throws -> String {
        let trimmed = raw.trimmingCharacters(in: .whitespaces)
        guard let found = catalogs.named(trimmed), found != PseudoLocale.language else {
            let names = catalogs.choices.map { "\($0.language) (\($0.name))" }.joined(separator: ", ")
            throw AppError.invalid(
                RuleViolation(
                    field: "language",
                    message: "Give the language the course is taught in as one of \(names)."))
        }
        return found
    }

    /// A new course's language: the one its teacher chose on the form, else the one they read Rollcall in (their
    /// profile's, else their browser's, else the school's).
    package static func forNewCourse(chosen: String?, reader: Reader) throws -> String {
        if let chosen { return try validated(chosen) }
        let reading = reader.language
        return reading == PseudoLocale.language ? "en" : reading
    }

    /// What a page sets as `lang` on the course's content: its language where the reader's page is in another, else
    /// nothing (the content is in the page's language, or the course was made before Rollcall kept it).
    package static func marked(_ language: String?, for reader: Reader) -> String? {
        guard let language, language != reader.language else { return nil }
        return language
    }

    /// The languages a course may be taught in, for a form's choice, `selected` chosen.
    package static func choices(selected: String?) -> [Choice] {
        Catalogs.shipped.choices.map { Choice(id: $0.language, name: $0.name, selected: $0.language == selected) }
    }

    /// One language of a form's choice, named in its own words ("Français").
    package struct Choice: Sendable {
        package var id: String
        package var name: String
        package var selected: Bool
    }
}

extension Course {
    /// `lang` for the course's content on a page in the reader's language, where it differs.
    package func contentLang(for reader: Reader) -> String? { CourseLanguage.marked(language, for: reader) }
}
