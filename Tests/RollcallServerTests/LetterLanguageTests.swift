import Foundation
import ServerTestSupport
import Testing

@testable import RollcallServer

/// Letters reach people where no browser says which language they read: they go out in the one the person chose,
/// else the one they first acted in, else (for someone without an account) the inviting teacher's.
@Suite(.timeLimit(.minutes(5))) struct LetterLanguageTests {
    /// Registers and signs in through the API in `language`, as a person whose browser asks for it.
    static func register(
        _ api: API, _ name: String, email: String, role: String = "student", language: String
    ) async throws -> Account {
        let body: [String: Any] = ["name": name, "email": email, "password": API.password, "role": role]
        let registered = try await api.call(
            .post, "/api/v1/auth/register", json: body, headers: [.acceptLanguage: language])
        #expect(registered.status == .created, "\(registered.text)")
        return try await api.signIn(email)
    }

    @Test func an_invitation_from_a_teacher_who_works_in_french_is_in_french_and_greets_the_full_name() async throws {
        try await withServer { api in
            let teacher = try await Self.register(
                api, "Claire Durand", email: "claire@school.test", role: "teacher", language: "fr")
            try await api.confirmEmail(teacher)
            // Asked for with no language at all: what counts is the one the teacher registered in.
            let course = try await api.call(.post, "/api/v1/courses", as: teacher, json: ["name": "Biologie"])
            let courseID = try #require(course.int("course.id"))
            // A French export: "Nom" is the family name, "Prénom" the given one.
            let csv = "Nom;Prénom;Courriel\nPÉREZ;María;maria@school.test\n"
            let imported = try await api.call(
                .post, "/api/v1/courses/\(courseID)/roster-import", as: teacher, raw: Array(csv.utf8),
                contentType: "text/csv")
            #expect(imported.status == .ok, "\(imported.text)")
            let letter = try #require(try await api.outbox().first { $0.recipient == "maria@school.test" })
            #expect(letter.body.contains("Bonjour María PÉREZ,"), "\(letter.body)")
            #expect(
                letter.body.contains("Claire Durand vous a ajouté au cours Biologie sur Rollcall"), "\(letter.body)")
            #expect(!letter.body.contains("(Rollcall)") && !letter.body.contains("at Rollcall on Rollcall"))
        }
    }

    @Test func an_admins_password_link_is_in_the_language_the_person_registered_in() async throws {
        try await withServer { api in
            let admin = try await api.admin()
            let jonas = try await Self.register(api, "Jonas Weber", email: "jonas@school.test", language: "de")
            let sent = try await api.call(.post, "/api/v1/admin/users/\(jonas.id)/password-reset", as: admin)
            #expect(sent.status == .accepted)
            let mail = try #require(try await api.outbox().first { $0.recipient == jonas.email })
            #expect(mail.body.contains("Hallo Jonas Weber,"), "\(mail.body)")
        }
    }
}
