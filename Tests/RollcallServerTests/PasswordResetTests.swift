import Foundation
import RollcallStorage
import SQLKit
import ServerTestSupport
import Testing

@testable import RollcallServer

@Suite("Password reset", .timeLimit(.minutes(5)))
struct PasswordResetTests {
    /// The token of the newest reset link mailed to `email`.
    static func link(_ api: API, to email: String) async throws -> String {
        let mail = try #require(
            try await api.outbox().first { $0.recipient == email && $0.body.contains("/reset-password?token=") },
            "a reset link mailed to \(email)")
        return String(try #require(mail.body.firstMatch(of: /reset-password\?token=([\w-]+)/)?.1))
    }

    @Test func a_forgotten_password_is_replaced_once_through_the_emailed_link_and_every_session_ends() async throws {
        try await withServer { api in
            let ada = try await api.register("Ada Forgetful")
            let otherDevice = try await api.signIn(ada.email)
            let web = try await api.call(
                .post, "/api/v1/auth/session", json: ["email": ada.email, "password": API.password])
            let cookie = try #require(web.headers[.setCookie]?.split(separator: ";").first.map(String.init))

            let asked = try await api.call(
                .post, "/api/v1/auth/password-reset", json: ["email": " Ada.Forgetful@School.test "])
            #expect(asked.status == .accepted)
            let mail = try #require(try await api.outbox().first)
            #expect(mail.subject == "Set a new password for Rollcall")
            #expect(mail.recipientName == "Ada Forgetful")
            #expect(mail.body.contains("The link works once, for 30 minutes."))
            #expect(mail.html?.contains("<a href=\"http://localhost:8080/reset-password?token=") == true)
            let token = try await Self.link(api, to: ada.email)

            let set = try await api.call(
                .post, "/api/v1/auth/password-reset/complete", json: ["token": token, "newPassword": "a brand new one"])
            #expect(set.status == .noContent, "\(set.text)")

            for account in [ada, otherDevice] {
                #expect(try await api.call(.get, "/api/v1/me", as: account).status == .unauthorized)
            }
            #expect(try await api.call(.get, "/api/v1/me", headers: [.cookie: cookie]).status == .unauthorized)
            let old = try await api.call(
                .post, "/api/v1/auth/tokens", json: ["email": ada.email, "password": API.password])
            #expect(old.status == .unauthorized)
            let new = try await api.call(
                .post, "/api/v1/auth/tokens", json: ["email": ada.email, "password": "a brand new one"])
            #expect(new.status == .created)
            #expect(new.value("user.emailVerified") as? Bool == true, "the link proved the address")

            try await api.expectRefused(
                .post, "/api/v1/auth/password-reset/complete",
                json: ["token": token, "newPassword": "yet another one"],
                status: .badRequest, code: "invalid_reset_token")
            let admin = try await api.admin()
            let page = try await api.call(.get, "/admin", as: admin)
            #expect(page.text.contains("Ada Forgetful set a new password from an emailed link"))
        }
    }

    @Test func a_password_change_ends_the_reset_links_asked_for_before_it() async throws {
        try await withServer { api in
            // Setup: a link asked for, then the password changed while signed in.
            let ada = try await api.register("Ada Careful")
            #expect(
                try await api.call(.post, "/api/v1/auth/password-reset", json: ["email": ada.email]).status == .accepted
            )
            let token = try await Self.link(api, to: ada.email)
            let changed = try await api.call(
                .put, "/api/v1/me/password", as: ada,
                json: ["currentPassword": API.password, "newPassword": "changed on purpose"])
            #expect(changed.status == .noContent || changed.status == .ok, "\(changed.text)")

            // The call under test and its validation: the old link sets nothing.
            try await api.expectRefused(
                .post, "/api/v1/auth/password-reset/complete",
                json: ["token": token, "newPassword": "an attacker's one"],
                status: .badRequest, code: "invalid_reset_token")
            let signIn = try await api.call(
                .post, "/api/v1/auth/tokens", json: ["email": ada.email, "password": "changed on purpose"])
            #expect(signIn.status == .created, "the changed password still works")
        }
    }

    @Test func an_address_without_an_account_gets_the_same_answer_and_nothing_is_sent() async throws {
        try await withServer { api in
            let known = try await api.register("Kim Known")
            let before = try await api.snapshot()
            let unknown = try await api.call(
                .post, "/api/v1/auth/password-reset", json: ["email": "nobody@school.test"])
            #expect(try await api.snapshot() == before, "nothing stored, nothing mailed")
            let answered = try await api.call(.post, "/api/v1/auth/password-reset", json: ["email": known.email])
            #expect(unknown.status == answered.status)
            #expect(unknown.text == answered.text)
            #expect(unknown.headers[.contentType] == answered.headers[.contentType])
        }
    }

    @Test func one_address_gets_at_most_three_links_an_hour_with_the_same_answer() async throws {
        try await withServer { api in
            let lee = try await api.register("Lee Limit")
            for _ in 0..<5 {
                let reply = try await api.call(.post, "/api/v1/auth/password-reset", json: ["email": lee.email])
                #expect(reply.status == .accepted)
            }
            #expect(try await api.outbox().filter { $0.body.contains("reset-password") }.count == 3)
        }
    }

    @Test func bad_requests_are_refused_and_change_nothing() async throws {
        try await withServer { api in
            let bea = try await api.register("Bea Bad")
            for email in ["", "not an address", String(repeating: "a", count: 300) + "@school.test"] {
                try await api.expectRefused(
                    .post, "/api/v1/auth/password-reset", json: ["email": email], status: .badRequest,
                    code: "invalid_email")
            }
            try await api.expectRefused(
                .post, "/api/v1/auth/password-reset", json: ["mail": bea.email], status: .badRequest,
                code: "missing_field")
            try await api.expectRefused(
                .post, "/api/v1/auth/password-reset", raw: Array("email=x".utf8),
                contentType: "application/x-www-form-urlencoded", status: .unsupportedMediaType,
                code: "unsupported_media_type")

            _ = try await api.call(.post, "/api/v1/auth/password-reset", json: ["email": bea.email])
            let token = try await Self.link(api, to: bea.email)
            // A password that breaks the rules keeps the link for a better one.
            for password in ["short", String(repeating: "p", count: 129)] {
                try await api.expectRefused(
                    .post, "/api/v1/auth/password-reset/complete", json: ["token": token, "newPassword": password],
                    status: .badRequest, code: "invalid_new_password")
            }
            for unknown in ["", "made-up-token", token + "x"] {
                try await api.expectRefused(
                    .post, "/api/v1/auth/password-reset/complete",
                    json: ["token": unknown, "newPassword": "long enough"], status: .badRequest,
                    code: "invalid_reset_token")
            }
            try await api.expectRefused(
                .post, "/api/v1/auth/password-reset/complete", json: ["token": token], status: .badRequest,
                code: "missing_field")
            let set = try await api.call(
                .post, "/api/v1/auth/password-reset/complete", json: ["token": token, "newPassword": "long enough"])
            #expect(set.status == .noContent)
        }
    }

    @Test func a_link_older_than_thirty_minutes_no_longer_works() async throws {
        try await withServer { api in
            let eve = try await api.register("Eve Expired")
            _ = try await api.call(.post, "/api/v1/auth/password-reset", json: ["email": eve.email])
            let token = try await Self.link(api, to: eve.email)
            try await Database.sqlite(path: api.databasePath, logger: .init(label: "test")).closing { database in
                try await database.write { sql in
                    let row = try #require(
                        try await sql.select().columns("created_at", "expires_at").from("password_resets").first())
                    let lifetime =
                        try row.decode(column: "expires_at", as: Date.self).timeIntervalSince(
                            try row.decode(column: "created_at", as: Date.self))
                    #expect(abs(lifetime - 1800) < 1)
                    try await sql.update("password_resets").set(
                        "expires_at", to: SQLBind(Date().addingTimeInterval(-1))
                    )
                    .run()
                }
            }
            let reply = try await api.call(
                .post, "/api/v1/auth/password-reset/complete", json: ["token": token, "newPassword": "long enough"])
            #expect(reply.status == .badRequest)
            #expect(reply.errorCode == "invalid_reset_token")
            #expect(
                try await api.call(.post, "/api/v1/auth/tokens", json: ["email": eve.email, "password": API.password])
                    .status == .created)
        }
    }

    @Test func an_admin_sends_anyone_a_link_and_the_audit_names_the_admin() async throws {
        try await withServer { api in
            let admin = try await api.admin()
            let sam = try await api.register("Sam Student")
            let sent = try await api.call(.post, "/api/v1/admin/users/\(sam.id)/password-reset", as: admin)
            #expect(sent.status == .accepted)
            let mail = try #require(try await api.outbox().first { $0.recipient == sam.email })
            #expect(mail.body.contains("An admin of Rollcall sent you this link"))
            let page = try await api.call(.get, "/admin", as: admin)
            #expect(page.text.contains("Admin sent Sam Student a link to set a new password"))

            try await api.expectRefused(
                .post, "/api/v1/admin/users/999999/password-reset", as: admin, status: .notFound,
                code: "user_not_found")
            try await api.expectRefused(
                .post, "/api/v1/admin/users/\(sam.id)/password-reset", as: sam, status: .forbidden, code: "forbidden")
            let gone = try await api.register("Gus Gone")
            #expect(try await api.call(.delete, "/api/v1/me", as: gone).status == .noContent)
            try await api.expectRefused(
                .post, "/api/v1/admin/users/\(gone.id)/password-reset", as: admin, status: .notFound,
                code: "user_not_found")
        }
    }

    @Test func the_pages_lead_from_signing_in_to_a_new_password() async throws {
        try await withServer { api in
            let signIn = try await api.call(.get, "/sign-in")
            #expect(signIn.text.contains("href=\"/forgot-password\""))
            let forgot = try await api.call(.get, "/forgot-password")
            #expect(forgot.status == .ok)
            #expect(forgot.text.contains("data-api=\"POST /api/v1/auth/password-reset\""))
            let reset = try await api.call(.get, "/reset-password?token=abc%22def")
            #expect(reset.text.contains("value=\"abc&quot;def\""), "the token is escaped into the form")
            #expect(reset.text.contains("data-api=\"POST /api/v1/auth/password-reset/complete\""))
        }
    }
}
