import Foundation
import HTTPTypes
import RollcallCore
import RollcallDelivery
import RollcallParts
import RollcallWords
import ServerTestSupport
import Testing

@testable import RollcallServer

/// Pages, answers and letters in the reader's language: their choice, else their browser's, else the school's; the
/// codes never change. The expected words come from the shipped catalogs, so a test fails when a page stays English.
@Suite("Languages on pages, answers and letters", .timeLimit(.minutes(5)))
struct LanguagesTests {
    static let catalogs = Catalogs.shipped
    static func french(_ english: String) -> String { catalogs["fr"].text(english) }

    @Test func the_shipped_catalogs_are_complete_and_every_language_is_offered() throws {
        let catalogs = try Catalogs.load()
        #expect(catalogs.choices.map(\.language) == ["en", "de", "es", "fr"])
        #expect(catalogs.choices.map(\.name) == ["English", "Deutsch", "Español", "Français"])
        #expect(catalogs.messages.count > 1000, "the template of all messages is shipped")
        for language in ["de", "es", "fr"] {
            let catalog = catalogs[language]
            let missing = catalogs.messages.filter { !catalog.translates($0.msgid, context: $0.context) }.map(\.msgid)
            #expect(missing.isEmpty, "\(language) lacks \(missing.prefix(5))")
        }
        // The pseudo-locale exists for tests but is nobody's choice.
        #expect(catalogs.languages.contains(PseudoLocale.language))
    }

    @Test func a_page_is_in_the_browsers_language_and_says_so() async throws {
        try await withServer { api in
            let french = try await api.call(.get, "/sign-in", headers: [.acceptLanguage: "fr-CA, fr;q=0.9, en;q=0.5"])
            #expect(french.text.contains(#"<html lang="fr">"#))
            #expect(french.text.contains("<h1>\(Self.french("Sign in"))</h1>"), "\(french.text.prefix(2000))")
            #expect(Self.french("Sign in") != "Sign in")
            #expect(french.headers[.vary]?.contains("Accept-Language") == true, "a cache keeps each language apart")
            // What the scripts say is in the page, in French too.
            #expect(french.text.contains(#"<script type="application/json" id="words">{""#))

            let unknown = try await api.call(.get, "/sign-in", headers: [.acceptLanguage: "pt-BR, ja;q=0.8"])
            #expect(unknown.text.contains(#"<html lang="en">"#) && unknown.text.contains("<h1>Sign in</h1>"))
            let none = try await api.call(.get, "/sign-in")
            #expect(none.text.contains(#"<html lang="en">"#))
        }
    }

    @Test func the_schools_default_serves_browsers_that_ask_for_nothing_rollcall_speaks() async throws {
        try await withServer(configure: { $0.defaultLanguage = "de" }) { api in
            let page = try await api.call(.get, "/sign-in", headers: [.acceptLanguage: "pt-BR"])
            #expect(page.text.contains(#"<html lang="de">"#))
            #expect(page.text.contains("<h1>\(Self.catalogs["de"].text("Sign in"))</h1>"))
        }
        #expect(throws: ConfigurationError.self) {
            try Configuration.fromEnvironment(["ROLLCALL_DEFAULT_LANGUAGE": "klingon"])
        }
        #expect(try Configuration.fromEnvironment(["ROLLCALL_DEFAULT_LANGUAGE": "es"]).defaultLanguage == "es")
    }

    @Test func a_refusal_keeps_its_code_and_is_said_in_the_readers_language() async throws {
        try await withServer { api in
            let body = ["email": "nobody@school.test", "password": "not the password"]
            let english = try await api.call(.post, "/api/v1/auth/session", json: body)
            let french = try await api.call(
                .post, "/api/v1/auth/session", json: body, headers: [.acceptLanguage: "fr"])
            #expect(english.errorCode == "invalid_credentials" && french.errorCode == "invalid_credentials")
            let sentence = try #require(english.errorMessage)
            #expect(french.errorMessage == Self.french(sentence) && french.errorMessage != sentence)

            // A sentence with values: the values stay, the words change.
            let student = try await api.register("Sam Student")
            let long = String(repeating: "x", count: 120)
            let refused = try await api.call(
                .patch, "/api/v1/me", as: student, json: ["name": long], headers: [.acceptLanguage: "fr"])
            #expect(refused.errorCode == "invalid_name")
            let pattern = Self.french("Enter a name of 1 to {0} characters.")
            #expect(refused.errorMessage == pattern.replacingOccurrences(of: "{0}", with: "100"), "\(refused.text)")
        }
    }

    @Test func a_persons_choice_outranks_the_browser_and_can_be_given_back() async throws {
        try await withServer { api in
            let student = try await api.register("Sam Student")
            try await api.expectRefused(
                .patch, "/api/v1/me", as: student, json: ["language": "klingon"], status: .badRequest,
                code: "invalid_language")
            try await api.expectRefused(
                .patch, "/api/v1/me", as: student, json: ["language": 7], status: .badRequest, code: "wrong_type")
            let chosen = try await api.call(.patch, "/api/v1/me", as: student, json: ["language": "DE"])
            #expect(chosen.string("user.language") == "de", "\(chosen.text)")

            let page = try await api.call(.get, "/courses", as: student, headers: [.acceptLanguage: "fr"])
            #expect(page.text.contains(#"<html lang="de">"#))
            let profile = try await api.call(.get, "/profile", as: student)
            #expect(profile.text.contains(#"<option value="de" lang="de" selected>Deutsch</option>"#))

            let back = try await api.call(.patch, "/api/v1/me", as: student, json: ["language": ""])
            #expect(back.string("user.language") == nil)
            let again = try await api.call(.get, "/courses", as: student, headers: [.acceptLanguage: "fr"])
            #expect(again.text.contains(#"<html lang="fr">"#))
        }
    }

    @Test func a_letter_is_in_the_recipients_language_whoever_sends_it() async throws {
        try await withServer { api in
            let ada = try await api.register("Ada Forgetful")
            _ = try await api.call(.patch, "/api/v1/me", as: ada, json: ["language": "es"])
            // Asked for from a French browser: Ada chose Spanish, so the letter is Spanish.
            _ = try await api.call(
                .post, "/api/v1/auth/password-reset", json: ["email": ada.email], headers: [.acceptLanguage: "fr"])
            let letters = Letters(school: "Rollcall")
            let spanish = letters.written(for: "es").passwordReset(
                name: "Ada Forgetful", link: "x", minutes: 30, byAdmin: false)
            let mail = try #require(try await api.outbox().first)
            #expect(mail.subject == spanish.subject && spanish.subject != "Set a new password for Rollcall")

            // Someone who chose nothing gets the language they asked in.
            let bea = try await api.register("Bea Forgetful")
            _ = try await api.call(
                .post, "/api/v1/auth/password-reset", json: ["email": bea.email], headers: [.acceptLanguage: "de"])
            let german = letters.written(for: "de").passwordReset(
                name: "Bea Forgetful", link: "x", minutes: 30, byAdmin: false)
            let beas = try #require(try await api.outbox().first(where: { $0.recipientName == "Bea Forgetful" }))
            #expect(beas.subject == german.subject)
        }
    }

    @Test func names_sort_in_the_readers_language() async throws {
        try await withServer { api in
            let teacher = try await api.register("Tess Teacher", role: "teacher")
            let created = try await api.call(.post, "/api/v1/courses", as: teacher, json: ["name": "Historia"])
            let courseID = try #require(created.int("course.id"))
            for name in ["Oscar Gil", "Ñandú Ruiz", "Nuria Paz"] {
                let student = try await api.register(name)
                _ = try await api.call(
                    .post, "/api/v1/courses/join", as: student, json: ["code": created.string("course.joinCode") ?? ""])
            }
            func order(_ language: String) async throws -> [String] {
                let page = try await api.call(
                    .get, "/courses/\(courseID)", as: teacher, headers: [.acceptLanguage: language])
                return ["Oscar Gil", "Ñandú Ruiz", "Nuria Paz"].sorted {
                    page.text.range(of: $0)!.lowerBound < page.text.range(of: $1)!.lowerBound
                }
            }
            // English reads Ñ as N; Spanish has it as a letter of its own, after N.
            #expect(try await order("en") == ["Ñandú Ruiz", "Nuria Paz", "Oscar Gil"])
            #expect(try await order("es") == ["Nuria Paz", "Ñandú Ruiz", "Oscar Gil"])
        }
    }
}
