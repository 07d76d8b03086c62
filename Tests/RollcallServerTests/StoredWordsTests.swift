import Foundation
import ServerTestSupport
import Testing

@testable import RollcallServer

/// Words Rollcall makes and stores are said in each reader's language when read, not in the creator's.
@Suite struct StoredWordsTests {
    @Test func a_default_session_title_is_said_in_the_readers_language() async throws {
        try await withServer { api in
            let (teacher, courseID, _) = try await api.teacherWithCourse()
            let created = try await api.call(
                .post, "/api/v1/courses/\(courseID)/sessions", as: teacher, json: [String: String]())
            let id = try #require(created.int("session.id"))
            #expect(created.string("session.title")?.hasPrefix("Session of ") == true, "\(created.text)")
            let french = try await api.call(
                .get, "/api/v1/sessions/\(id)", as: teacher, headers: [.acceptLanguage: "fr"])
            #expect(french.string("session.title")?.hasPrefix("Séance du ") == true, "\(french.text)")
            let german = try await api.call(.get, "/sessions/\(id)", as: teacher, headers: [.acceptLanguage: "de"])
            #expect(german.text.contains("Termin vom "), "the page too")
            // A title the teacher types replaces it, in every language.
            _ = try await api.call(.patch, "/api/v1/sessions/\(id)", as: teacher, json: ["title": "Labo 2"])
            let typed = try await api.call(
                .get, "/api/v1/sessions/\(id)", as: teacher, headers: [.acceptLanguage: "fr"])
            #expect(typed.string("session.title") == "Labo 2", "\(typed.text)")
        }
    }
}
