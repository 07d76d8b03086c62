import Foundation
import HTTPTypes
import RollcallCore
import RollcallModel
import RollcallParts
import RollcallStorage
import RollcallWords
import ServerTestSupport
import Testing

@testable import RollcallServer

/// What an attacker measured: a header that costs more the longer it is, and answers that told a number in use, or
/// a right password, apart from the rest.
@Suite("Limits and oracles", .serialized, .timeLimit(.minutes(5)))
struct LimitsAndOraclesTests {
    @Test func accept_language_is_read_for_its_first_tags_only() async throws {
        try await withServer { api in
            // French after twenty tags nobody speaks is past what Rollcall reads.
            let late = (1...20).map { "x\($0)" }.joined(separator: ", ") + ", fr"
            let page = try await api.call(.get, "/sign-in", headers: [.acceptLanguage: late])
            #expect(page.text.contains(#"<html lang="en">"#), "\(page.text.prefix(200))")
            // A header of thousands of tags still answers its first.
            let long = "de, " + Array(repeating: "fr-FR;q=0.5", count: 1_750).joined(separator: ", ")
            #expect(long.utf8.count > 15_000)
            let german = try await api.call(.get, "/sign-in", headers: [.acceptLanguage: long])
            #expect(german.text.contains(#"<html lang="de">"#))
            // A tag cut by the byte limit is dropped whole, not read as its first half.
            let cut = String(repeating: " ", count: LanguageChoice.headerBytesRead - 3) + ", fr-FR"
            #expect(LanguageChoice.preferences(acceptLanguage: cut).isEmpty)
        }
    }

    /// Statuses of six requests for a confirmation code to `phone`.
    static func probe(_ api: API, _ phone: String, as prober: Account) async throws -> [Int] {
        var statuses: [Int] = []
        for _ in 0..<6 {
            statuses.append(
                try await api.call(.post, "/api/v1/me/phone", as: prober, json: ["phone": phone]).status.code)
        }
        return statuses
    }

    @Test func a_number_in_use_meets_the_limit_exactly_when_a_free_one_does() async throws {
        try await withServer(configure: PhoneSignInTests.quick) { api in
            // Setup: the owner confirmed the number and signed in with it three times this hour.
            _ = try await PhoneSignInTests.confirmedAccount(api, "Ona Owner", phone: "+447700900130")
            for _ in 0..<3 {
                let asked = try await api.call(.post, "/api/v1/auth/phone-code", json: ["phone": "+447700900130"])
                #expect(asked.status == .accepted)
            }
            let prober = try await api.register("Pat Prober")
            let taken = try await Self.probe(api, "+447700900130", as: prober)
            let free = try await Self.probe(api, "+447700900133", as: prober)
            #expect(taken == free, "in use: \(taken), free: \(free)")
            #expect(free == Array(repeating: 202, count: 5) + [429])
        }
    }

    @Test func with_passwords_off_a_right_password_answers_as_a_wrong_one() async throws {
        try await SchoolProvider.run(configure: { $0.passwordSignIn = false }) { api, _ in
            let admin = try await api.admin()
            try await Database.sqlite(path: api.databasePath, logger: .init(label: "test")).closing { database in
                _ = try await UserStore(database: database).create(
                    NewUser(
                        name: "Old Timer", email: "old@hill.test",
                        passwordHash: try await PasswordHasher(cost: 4).hash(API.password),
                        role: .student, studentNumber: nil, approved: true))
            }
            var answers: [String] = []
            for (email, password) in [
                ("old@hill.test", API.password), ("old@hill.test", "not the password"),
                ("nobody@hill.test", API.password), (admin.email, "not the password"),
            ] {
                let before = try await api.snapshot().filter { $0.key != "attempt_counters" }
                let reply = try await api.call(
                    .post, "/api/v1/auth/tokens", json: ["email": email, "password": password])
                #expect(reply.status == .forbidden, "\(email): \(reply.text)")
                #expect(try await api.snapshot().filter { $0.key != "attempt_counters" } == before)
                answers.append("\(reply.errorCode ?? "") \(reply.string("error.message") ?? "")")
            }
            #expect(Set(answers).count == 1, "\(answers)")
            #expect(answers.first?.hasPrefix("password_sign_in_off ") == true)
            // An admin's right password still signs in.
            let signedIn = try await api.call(
                .post, "/api/v1/auth/tokens", json: ["email": admin.email, "password": API.password])
            #expect(signedIn.status == .created, "\(signedIn.text)")
        }
    }

    @Test func with_passwords_off_only_the_schools_accounts_sign_in_by_texted_code() async throws {
        try await SchoolProvider.run(configure: {
            $0.passwordSignIn = false; $0.defaultRegion = "GB"
        }) {
            api, provider in
            _ = try await SchoolSignIn.through(api, provider)
            try await Database.sqlite(path: api.databasePath, logger: .init(label: "test")).closing { database in
                let users = UserStore(database: database)
                let old = try await users.create(
                    NewUser(
                        name: "Old Timer", email: "old@hill.test",
                        passwordHash: try await PasswordHasher(cost: 4).hash(API.password),
                        role: .student, studentNumber: nil, approved: true))
                try await users.confirmPhone(id: old.id, phone: "+447700900140")
                let ada = try #require(try await users.find(email: "ada@hill.test"))
                try await users.confirmPhone(id: ada.id, phone: "+447700900141")
            }
            let old = try await api.call(.post, "/api/v1/auth/phone-code", json: ["phone": "+447700900140"])
            let ada = try await api.call(.post, "/api/v1/auth/phone-code", json: ["phone": "+447700900141"])
            #expect(old.status == .accepted && ada.status == .accepted)
            #expect(
                old.string("message") == ada.string("message"), "a number that may not sign in answers as any other")
            #expect(try await api.texts(to: "+447700900140").isEmpty, "no code for the password account")
            let code = try await api.textedCode(to: "+447700900141")
            let signedIn = try await api.call(
                .post, "/api/v1/auth/phone-tokens", json: ["phone": "+447700900141", "code": code])
            #expect(signedIn.status == .created, "the school's account signs in: \(signedIn.text)")
        }
    }

    @Test func the_pseudo_locale_is_asked_for_by_name_never_set() async throws {
        #expect(throws: ConfigurationError.self) {
            try Configuration.fromEnvironment(["ROLLCALL_DEFAULT_LANGUAGE": "en-XA"])
        }
        try await withServer { api in
            let pat = try await api.register("Pat Person")
            try await api.expectRefused(
                .patch, "/api/v1/me", as: pat, json: ["language": "en-XA"], status: .badRequest,
                code: "invalid_language")
            // Tests and anyone who asks by name still read it.
            let page = try await api.call(.get, "/sign-in", headers: [.acceptLanguage: "en-XA"])
            #expect(page.text.contains(#"<html lang="en-XA">"#))
        }
    }
}
