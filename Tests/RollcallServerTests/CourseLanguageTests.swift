import Foundation
import HTTPTypes
import RollcallCore
import ServerTestSupport
import Testing

@testable import RollcallServer

/// A course has a language for what its teacher writes, and pages mark that content with `lang` where they are in
/// another: a French quiz is read to a German student with a French voice.
@Suite("A course's language", .timeLimit(.minutes(2)))
struct CourseLanguageTests {
    @Test func a_new_course_takes_the_language_chosen_else_the_one_its_teacher_reads() async throws {
        try await withServer { api in
            let teacher = try await api.register("Claire Durand", role: "teacher")
            let fr: HTTPFields = [.acceptLanguage: "fr"]
            let form = try await api.call(.get, "/courses", as: teacher, headers: fr)
            #expect(form.text.contains(#"<option value="fr" lang="fr" selected>Français</option>"#), "\(form.text)")
            let browser = try await api.call(
                .post, "/api/v1/courses", as: teacher, json: ["name": "Biologie"], headers: fr)
            #expect(browser.string("course.language") == "fr", "\(browser.text)")
            let chosen = try await api.call(
                .post, "/api/v1/courses", as: teacher, json: ["name": "Biologie", "language": "DE"], headers: fr)
            #expect(chosen.string("course.language") == "de", "\(chosen.text)")
            _ = try await api.call(.patch, "/api/v1/me", as: teacher, json: ["language": "es"])
            let profile = try await api.call(.post, "/api/v1/courses", as: teacher, json: ["name": "Biología"])
            #expect(profile.string("course.language") == "es", "the profile's: \(profile.text)")
            let id = try #require(profile.int("course.id"))
            let changed = try await api.call(.patch, "/api/v1/courses/\(id)", as: teacher, json: ["language": "fr"])
            #expect(changed.string("course.language") == "fr", "\(changed.text)")
        }
    }

    @Test func a_language_rollcall_does_not_offer_is_refused_and_nothing_changes() async throws {
        try await withServer { api in
            let (teacher, courseID, _) = try await api.teacherWithCourse()
            for bad in ["klingon", "", "en-XA", "fr;DROP"] {
                try await api.expectRefused(
                    .post, "/api/v1/courses", as: teacher, json: ["name": "Biology", "language": bad],
                    status: .badRequest, code: "invalid_language")
                try await api.expectRefused(
                    .patch, "/api/v1/courses/\(courseID)", as: teacher, json: ["language": bad],
                    status: .badRequest, code: "invalid_language")
            }
            let refused = try await api.call(
                .patch, "/api/v1/courses/\(courseID)", as: teacher, json: ["language": "klingon"],
                headers: [.acceptLanguage: "fr"])
            #expect(refused.value("error.details.field") as? String == "language", "the form marks the field")
            #expect(refused.errorMessage?.contains("Français") == true, "names what to choose: \(refused.text)")
            try await api.expectRefused(
                .patch, "/api/v1/courses/\(courseID)", as: teacher, json: ["language": 5], status: .badRequest,
                code: "wrong_type")
        }
    }

    @Test func a_german_reader_of_a_french_courses_quiz_sees_its_words_marked_french() async throws {
        try await withServer { api in
            let quiz = try await QuizRoom.start(api)
            let room = quiz.room
            let set = try await api.call(
                .patch, "/api/v1/courses/\(room.courseID)", as: room.teacher, json: ["language": "fr"])
            #expect(set.status == .ok, "\(set.text)")
            let de: HTTPFields = [.acceptLanguage: "de"]
            let page = try await api.call(.get, "/quiz-runs/\(quiz.runID)", as: room.student, headers: de)
            #expect(page.text.contains(#"<html lang="de""#), "\(page.text.prefix(300))")
            #expect(page.text.contains(#"data-content-lang="fr""#), "the questions the script draws")
            #expect(page.text.contains(#"<h1 lang="fr">Cells</h1>"#), "the quiz's title")
            #expect(page.text.contains(#"<p lang="fr">No notes.</p>"#), "its instructions")
            let typed = try await api.call(
                .post, "/api/v1/courses/\(room.courseID)/sessions", as: room.teacher, json: ["title": "TP 2"])
            let typedID = try #require(typed.int("session.id"), "\(typed.text)")
            let course = try await api.call(.get, "/courses/\(room.courseID)", as: room.student, headers: de)
            #expect(course.text.contains(#"<h1 id="course-name" lang="fr">"#), "the course's name")
            #expect(course.text.contains(#"<a href="/sessions/\#(typedID)" lang="fr">TP 2</a>"#), "a typed title")
            #expect(
                course.text.contains(#"<a href="/sessions/\#(room.sessionID)">Termin vom"#),
                "a default title is said in the reader's language, unmarked")
            // In the course's own language, nothing is marked: the page's `lang` says it.
            let french = try await api.call(
                .get, "/quiz-runs/\(quiz.runID)", as: room.student, headers: [.acceptLanguage: "fr"])
            #expect(!french.text.contains("data-content-lang") && french.text.contains("<h1>Cells</h1>"))
        }
    }
}
