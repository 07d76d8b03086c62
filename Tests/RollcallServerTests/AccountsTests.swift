import Foundation
import HTTPTypes
import RollcallCore
import RollcallParts
import RollcallWeb
import RollcallWords
import ServerTestSupport
import Testing

@testable import RollcallAccounts
@testable import RollcallServer
@testable import RollcallTeaching

@Suite("Accounts", .timeLimit(.minutes(5)))
struct AccountsTests {
    @Test func register_signs_up_and_mails_a_confirmation_link() async throws {
        try await withServer { api in
            let reply = try await api.call(
                .post, "/api/v1/auth/register",
                json: [
                    "name": "  Sam Student ", "email": "Sam@School.test", "password": API.password,
                    "studentNumber": "s-123",
                ]
            )
            #expect(reply.status == .created)
            #expect(reply.string("user.name") == "Sam Student")
            #expect(reply.string("user.email") == "sam@school.test")
            #expect(reply.string("user.role") == "student")
            #expect(reply.string("user.studentNumber") == "S-123")
            #expect(reply.value("user.emailVerified") as? Bool == false)
            #expect(reply.value("user.passwordHash") == nil)

            let mail = try #require(try await api.outbox().first)
            #expect(mail.recipient == "sam@school.test")
            let token = try #require(mail.body.firstMatch(of: /token=([\w-]+)/)?.1)
            let verified = try await api.call(.post, "/api/v1/auth/verify-email", json: ["token": String(token)])
            #expect(verified.status == .ok)
            #expect(verified.value("user.emailVerified") as? Bool == true)
            try await api.expectRefused(
                .post, "/api/v1/auth/verify-email", json: ["token": String(token)], status: .badRequest,
                code: "invalid_verification_token"
            )
        }
    }

    @Test func register_refuses_bad_input_and_stores_nothing() async throws {
        try await withServer { api in
            _ = try await api.register("Taken Name", email: "taken@school.test", studentNumber: "T1")
            let good: [String: Any] = ["name": "New Person", "email": "new@school.test", "password": API.password]
            func with(_ key: String, _ value: Any?) -> [String: Any] {
                var body = good
                body[key] = value
                return body
            }
            let cases: [(Any, HTTPResponse.Status, String)] = [
                (with("name", nil), .badRequest, "missing_field"),
                (with("email", nil), .badRequest, "missing_field"),
                (with("password", nil), .badRequest, "missing_field"),
                (with("name", 42), .badRequest, "wrong_type"),
                (with("email", ["a"]), .badRequest, "wrong_type"),
                (with("name", "   "), .badRequest, "invalid_name"),
                (with("name", String(repeating: "x", count: 101)), .badRequest, "invalid_name"),
                (with("email", "not-an-email"), .badRequest, "invalid_email"),
                (with("email", "a@b"), .badRequest, "invalid_email"),
                (with("password", "short"), .badRequest, "invalid_password"),
                (with("password", String(repeating: "p", count: 129)), .badRequest, "invalid_password"),
                (with("role", "admin"), .badRequest, "invalid_role"),
                (with("role", "wizard"), .badRequest, "wrong_type"),
                (with("signIn", "cookie"), .badRequest, "wrong_type"),
                (with("signIn", true), .badRequest, "wrong_type"),
                (with("studentNumber", "no spaces allowed"), .badRequest, "invalid_student_number"),
                (with("email", "TAKEN@school.test"), .conflict, "email_taken"),
                (with("studentNumber", "t1"), .conflict, "student_number_taken"),
                ([1, 2, 3], .badRequest, "invalid_json"),
            ]
            for (body, status, code) in cases {
                try await api.expectRefused(.post, "/api/v1/auth/register", json: body, status: status, code: code)
            }
            try await api.expectRefused(
                .post, "/api/v1/auth/register", raw: Array("{\"name\":".utf8), contentType: "application/json",
                status: .badRequest, code: "invalid_json"
            )
            try await api.expectRefused(
                .post, "/api/v1/auth/register", raw: Array("name=x".utf8),
                contentType: "application/x-www-form-urlencoded", status: .unsupportedMediaType,
                code: "unsupported_media_type"
            )
            try await api.expectRefused(
                .post, "/api/v1/auth/register",
                json: with("name", String(repeating: "x", count: 70_000)), status: .contentTooLarge,
                code: "body_too_large"
            )
            // Nothing of the refused registrations was kept: no account to sign in to, no letter but the first one's.
            let nobody = try await api.call(
                .post, "/api/v1/auth/tokens", json: ["email": "new@school.test", "password": API.password])
            #expect(nobody.errorCode == "invalid_credentials")
            #expect(try await api.outbox().count == 1)
        }
    }

    /// The register page and the typed client sign the new account in with the same request: one password hash
    /// where registering and then signing in took two.
    @Test func registering_signs_in_with_the_same_request_when_asked() async throws {
        try await withServer { api in
            let base: [String: Any] = ["name": "One Step", "email": "one.step@school.test", "password": API.password]
            var asToken = base
            asToken["signIn"] = "token"
            let token = try await api.call(.post, "/api/v1/auth/register", json: asToken)
            #expect(token.status == .created)
            #expect(token.headers[.setCookie] == nil)
            let bearer = try #require(token.string("token"))
            let me = try await api.call(.get, "/api/v1/me", headers: [.authorization: "Bearer \(bearer)"])
            #expect(me.status == .ok)
            #expect(me.int("user.id") == token.int("user.id"))

            var asSession = base
            asSession["email"] = "two.step@school.test"
            asSession["signIn"] = "session"
            let session = try await api.call(.post, "/api/v1/auth/register", json: asSession)
            #expect(session.status == .created)
            #expect(session.string("token") == nil)
            let cookie = try #require(session.headers[.setCookie])
            #expect(cookie.contains("HttpOnly"))
            let value = try #require(cookie.firstMatch(of: /rollcall_session=([^;]+)/)?.1)
            var headers: HTTPFields = [.cookie: "rollcall_session=\(value)"]
            let csrf = try #require(session.string("csrfToken"))
            headers[AuthenticationMiddleware.csrfHeader] = csrf
            let renamed = try await api.call(.patch, "/api/v1/me", json: ["name": "Two Steps"], headers: headers)
            #expect(renamed.string("user.name") == "Two Steps")
            #expect(renamed.string("user.email") == "two.step@school.test")

            // Without it, registering signs nobody in, as before.
            var plain = base
            plain["email"] = "no.step@school.test"
            let none = try await api.call(.post, "/api/v1/auth/register", json: plain)
            #expect(none.status == .created)
            #expect(none.string("token") == nil && none.string("csrfToken") == nil && none.headers[.setCookie] == nil)
            #expect(try await api.outbox().count == 3)
        }
    }

    @Test func web_sign_in_sets_an_http_only_cookie_and_requires_the_csrf_token() async throws {
        try await withServer { api in
            _ = try await api.register("Web User")
            let reply = try await api.call(
                .post, "/api/v1/auth/session", json: ["email": "web.user@school.test", "password": API.password]
            )
            #expect(reply.status == .ok)
            let cookie = try #require(reply.headers[.setCookie])
            #expect(cookie.contains("HttpOnly"))
            #expect(cookie.contains("SameSite=Lax"))
            let value = try #require(cookie.firstMatch(of: /rollcall_session=([^;]+)/)?.1)
            let csrf = try #require(reply.string("csrfToken"))
            let cookieHeader: HTTPFields = [.cookie: "rollcall_session=\(value)"]

            let me = try await api.call(.get, "/api/v1/me", headers: cookieHeader)
            #expect(me.string("user.name") == "Web User")

            let forged = try await api.call(.patch, "/api/v1/me", json: ["name": "Mallory"], headers: cookieHeader)
            #expect(forged.status == .forbidden)
            #expect(forged.errorCode == "csrf_token_invalid")

            var withToken = cookieHeader
            withToken[AuthenticationMiddleware.csrfHeader] = csrf
            let changed = try await api.call(.patch, "/api/v1/me", json: ["name": "Web Person"], headers: withToken)
            #expect(changed.string("user.name") == "Web Person")

            let out = try await api.call(.delete, "/api/v1/auth/session", headers: withToken)
            #expect(out.status == .noContent)
            let after = try await api.call(.get, "/api/v1/me", headers: cookieHeader)
            #expect(after.status == .unauthorized)
        }
    }

    @Test func wrong_password_is_refused_then_slowed_then_locked() async throws {
        try await withServer { api in
            _ = try await api.register("Guessed At")
            let wrong = ["email": "guessed.at@school.test", "password": "wrong password"]
            for _ in 0..<SignInThrottle().lockoutAfter {
                let reply = try await api.call(.post, "/api/v1/auth/tokens", json: wrong)
                #expect(reply.status == .unauthorized)
                #expect(reply.errorCode == "invalid_credentials")
            }
            let locked = try await api.call(
                .post, "/api/v1/auth/tokens", json: ["email": "guessed.at@school.test", "password": API.password]
            )
            #expect(locked.status == .tooManyRequests)
            #expect(locked.errorCode == "too_many_attempts")
            #expect(locked.headers[.retryAfter] != nil)
            let unknown = try await api.call(
                .post, "/api/v1/auth/tokens", json: ["email": "nobody@school.test", "password": API.password]
            )
            #expect(unknown.errorCode == "invalid_credentials")
        }
    }

    @Test func bearer_tokens_are_checked_and_revocable() async throws {
        try await withServer { api in
            let account = try await api.register("Token Holder")
            let bogus = Account(id: 0, email: "", token: "not-a-token")
            let refused = try await api.call(.get, "/api/v1/me", as: bogus)
            #expect(refused.status == .unauthorized)
            #expect(refused.errorCode == "invalid_token")
            #expect(try await api.call(.delete, "/api/v1/auth/tokens/current", as: account).status == .noContent)
            #expect(try await api.call(.get, "/api/v1/me", as: account).errorCode == "invalid_token")
        }
    }

    @Test func profile_updates_and_refuses_bad_values() async throws {
        try await withServer { api in
            let account = try await api.register("Pat Profile")
            let reply = try await api.call(
                .patch, "/api/v1/me", as: account,
                json: ["phone": "+44 20 7946 0958", "about": "Second year, biology."]
            )
            #expect(reply.status == .ok)
            #expect(reply.string("user.phone") == "+442079460958")
            #expect(reply.string("user.name") == "Pat Profile")
            let cleared = try await api.call(.patch, "/api/v1/me", as: account, json: ["phone": ""])
            #expect(cleared.value("user.phone") == nil)
            try await api.expectRefused(
                .patch, "/api/v1/me", as: account, json: ["phone": "call me"], status: .badRequest,
                code: "invalid_phone"
            )
            try await api.expectRefused(
                .patch, "/api/v1/me", as: account, json: ["about": String(repeating: "a", count: 1001)],
                status: .badRequest, code: "invalid_about"
            )
            try await api.expectRefused(
                .patch, "/api/v1/me", json: ["name": "Anon"], status: .unauthorized, code: "not_signed_in"
            )
        }
    }

    @Test func password_change_checks_the_current_one_and_signs_out_elsewhere() async throws {
        try await withServer { api in
            let here = try await api.register("Pass Changer")
            let elsewhere = try await api.signIn(here.email)
            try await api.expectRefused(
                .put, "/api/v1/me/password", as: here,
                json: ["currentPassword": "not it at all", "newPassword": "a brand new one"], status: .badRequest,
                code: "invalid_current_password"
            )
            try await api.expectRefused(
                .put, "/api/v1/me/password", as: here, json: ["currentPassword": API.password, "newPassword": "short"],
                status: .badRequest, code: "invalid_new_password"
            )
            let changed = try await api.call(
                .put, "/api/v1/me/password", as: here,
                json: ["currentPassword": API.password, "newPassword": "a brand new one"]
            )
            #expect(changed.status == .noContent)
            #expect(try await api.call(.get, "/api/v1/me", as: here).status == .ok)
            #expect(try await api.call(.get, "/api/v1/me", as: elsewhere).status == .unauthorized)
            _ = try await api.signIn(here.email, password: "a brand new one")
        }
    }

    @Test func picture_upload_accepts_images_only_within_the_size_limit() async throws {
        try await withServer { api in
            let account = try await api.register("Pic Owner")
            let png = Pictures.png
            let uploaded = try await api.call(
                .put, "/api/v1/me/picture", as: account, raw: png, contentType: "image/png")
            #expect(uploaded.status == .noContent)
            let picture = try await api.call(.get, "/api/v1/users/\(account.id)/picture", as: account)
            #expect(picture.status == .ok)
            #expect(picture.headers[.contentType] == "image/png")
            #expect(picture.headers[.contentLength] == String(png.count), "a sound picture comes back whole")
            try await api.expectRefused(
                .put, "/api/v1/me/picture", as: account, raw: Array("<script>".utf8), contentType: "image/png",
                status: .unsupportedMediaType, code: "unsupported_image"
            )
            // A PNG signature followed by a page, as an attacker sends it, is no picture.
            try await api.expectRefused(
                .put, "/api/v1/me/picture", as: account,
                raw: Array(png.prefix(8)) + Array("<html><script>alert(document.cookie)</script>".utf8),
                contentType: "image/png", status: .unsupportedMediaType, code: "unsupported_image")
            try await api.expectRefused(
                .put, "/api/v1/me/picture", as: account, raw: png + Array("<html><script>".utf8),
                contentType: "image/png", status: .unsupportedMediaType, code: "unsupported_image")
            try await api.expectRefused(
                .put, "/api/v1/me/picture", as: account, raw: png + Array(repeating: 0, count: 2 * 1024 * 1024),
                contentType: "image/png", status: .contentTooLarge, code: "body_too_large"
            )
            try await api.expectRefused(
                .get, "/api/v1/users/999/picture", as: account, status: .notFound, code: "user_not_found"
            )
            try await api.expectRefused(
                .get, "/api/v1/users/abc/picture", as: account, status: .notFound, code: "user_not_found"
            )
        }
    }

    @Test func teacher_accounts_wait_for_approval_when_the_setting_asks() async throws {
        try await withServer(teacherApproval: true) { api in
            let teacher = try await api.register("New Teacher", role: "teacher")
            try await api.expectRefused(
                .post, "/api/v1/courses", as: teacher, json: ["name": "Too Soon"], status: .forbidden,
                code: "approval_pending"
            )
            let admin = try await api.admin()
            #expect(try await api.call(.post, "/api/v1/admin/users/\(teacher.id)/approve", as: admin).status == .ok)
            #expect(try await api.call(.post, "/api/v1/courses", as: teacher, json: ["name": "Now"]).status == .created)
        }
    }

    @Test func the_bcrypt_cost_is_read_and_checked_at_start() async throws {
        #expect(try Configuration.fromEnvironment([:]).bcryptCost == 10)
        // Nobody teaches on a server merely by saying so: approval is on unless turned off.
        #expect(try Configuration.fromEnvironment([:]).teacherApproval)
        #expect(try !Configuration.fromEnvironment(["ROLLCALL_TEACHER_APPROVAL": "false"]).teacherApproval)
        #expect(try Configuration.fromEnvironment(["ROLLCALL_BCRYPT_COST": "13"]).bcryptCost == 13)
        for bad in ["9", "4", "17", "31", "twelve", "12.5", "-10"] {
            let error = #expect(throws: ConfigurationError.self, "\(bad)") {
                try Configuration.fromEnvironment(["ROLLCALL_BCRYPT_COST": bad])
            }
            #expect(error?.variable == "ROLLCALL_BCRYPT_COST")
            #expect(error?.description.contains("from 10 to 16") == true)
        }
        let hash = try await PasswordHasher(cost: 10).hash("correct horse")
        #expect(hash.hasPrefix("$2b$10$"), "the hash carries the configured cost: \(hash)")
    }
}

@Suite("Redirect after signing in", .timeLimit(.minutes(5)))
struct SignInRedirectTests {
    /// The sign-in and register pages carry `next` into the form, the passkey button and the register link: only a
    /// path on this site may get there, whatever its encoding.
    @Test(arguments: [
        "/%09/evil.example/phish", "//evil.example", "/%5Cevil.example", "%2F%2Fevil.example", "/%0D%0A/evil.example",
        "https:%2F%2Fevil.example", "/%252F/evil.example", "/%5C/evil.example",
    ])
    func a_next_that_leaves_the_site_becomes_the_course_list(_ next: String) async throws {
        try await withServer { api in
            for page in ["/sign-in", "/register"] {
                let reply = try await api.call(.get, "\(page)?next=\(next)")
                #expect(reply.status == .ok)
                #expect(!reply.text.lowercased().contains("evil"), "\(page)?next=\(next)")
                #expect(reply.text.contains("go:/courses") || reply.text.contains("value=\"/courses\""), "\(page)")
            }
        }
    }

    @Test func a_next_on_this_site_is_kept() async throws {
        try await withServer { api in
            let reply = try await api.call(.get, "/sign-in?next=%2Fcheck-in%2FABC")
            #expect(reply.text.contains("data-next=\"/check-in/ABC\""))
        }
    }
}

@Suite("Text that cannot be stored", .timeLimit(.minutes(5)))
struct TextInputTests {
    /// A NUL used to cut a name short in storage ("\u0000Mallory" became ""); every text field refuses control
    /// characters instead, and nothing is stored.
    @Test func control_characters_are_refused_in_every_text_field() async throws {
        try await withServer { api in
            try await api.expectRefused(
                .post, "/api/v1/auth/register",
                json: ["name": "\u{0}Mallory", "email": "m@school.test", "password": API.password, "role": "student"],
                status: .badRequest, code: "invalid_name")
            try await api.expectRefused(
                .post, "/api/v1/auth/register",
                json: [
                    "name": "Mallory", "email": "m@school.test", "password": "\u{0}" + API.password, "role": "student",
                ],
                status: .badRequest, code: "invalid_password")
            let room = try await Classroom.open(api)
            try await api.expectRefused(
                .patch, "/api/v1/me", as: room.student, json: ["name": "Cass\u{1B}[2J"], status: .badRequest,
                code: "invalid_name")
            try await api.expectRefused(
                .patch, "/api/v1/me", as: room.student, json: ["about": "Hi\u{0}there"], status: .badRequest,
                code: "invalid_about")
            try await api.expectRefused(
                .patch, "/api/v1/courses/\(room.courseID)", as: room.teacher, json: ["description": "A\u{0}B"],
                status: .badRequest, code: "invalid_description")
            try await api.expectRefused(
                .post, "/api/v1/courses/\(room.courseID)/sessions", as: room.teacher, json: ["title": "Week\u{0}1"],
                status: .badRequest, code: "invalid_title")
            try await api.expectRefused(
                .put, "/api/v1/sessions/\(room.sessionID)/attendance/\(room.student.id)", as: room.teacher,
                json: ["status": "excused", "reason": "Ill\u{0}"], status: .badRequest, code: "invalid_reason")
            // Line breaks are text where a field has several lines.
            let about = try await api.call(.patch, "/api/v1/me", as: room.student, json: ["about": "One\nTwo"])
            #expect(about.status == .ok, "\(about.text)")
        }
    }

    /// A search of 50,000 characters used to fail inside SQLite ("LIKE pattern too complex") with a 500.
    @Test func a_search_too_long_is_refused_in_plain_words() async throws {
        try await withServer { api in
            let admin = try await api.admin()
            let room = try await Classroom.open(api)
            let long = String(repeating: "%25", count: 50_000)
            try await api.expectRefused(
                .get, "/api/v1/courses/\(room.courseID)/students?q=\(long)", as: room.teacher, status: .badRequest,
                code: "invalid_q")
            try await api.expectRefused(
                .get, "/api/v1/admin/users?q=\(long)", as: admin, status: .badRequest, code: "invalid_q")
            for page in ["/courses/\(room.courseID)?q=\(long)", "/admin?q=\(long)"] {
                let account = page.hasPrefix("/admin") ? admin : room.teacher
                let reply = try await api.call(.get, page, as: account)
                #expect(reply.status == .badRequest, "\(page.prefix(20)): \(reply.status)")
                #expect(reply.text.contains("Search for at most 100 characters."))
            }
            let found = try await api.call(
                .get, "/api/v1/courses/\(room.courseID)/students?q=cass", as: room.teacher)
            #expect(found.list("students").count == 1, "\(found.text)")
        }
    }
}

@Suite("Limits", .timeLimit(.minutes(5)))
struct LimitTests {
    /// 40 wrong passwords sent at once used to be checked all 40 (each read the count from before the others) and
    /// the right one was let in after them; now every attempt is counted before its password is checked.
    @Test func concurrent_wrong_passwords_cannot_pass_the_throttle() async throws {
        try await withServer { api in
            _ = try await api.register("Guessed At")
            let wrong = ["email": "guessed.at@school.test", "password": "wrong password"]
            let statuses = try await withThrowingTaskGroup(of: HTTPResponse.Status.self) { group in
                for _ in 0..<40 {
                    group.addTask { try await api.call(.post, "/api/v1/auth/tokens", json: wrong).status }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(statuses.filter { $0 == .unauthorized }.count == SignInThrottle().lockoutAfter, "\(statuses)")
            #expect(statuses.filter { $0 == .tooManyRequests }.count == 40 - SignInThrottle().lockoutAfter)
            let right = try await api.call(
                .post, "/api/v1/auth/tokens", json: ["email": "guessed.at@school.test", "password": API.password])
            #expect(right.status == .tooManyRequests, "\(right.text)")
            #expect((right.value("error.details.retryAfterSeconds") as? NSNumber).map { $0.intValue > 0 } == true)
        }
    }

    /// A spray of guesses at many accounts from one address is bounded, whatever the accounts.
    @Test func one_address_guessing_at_many_accounts_is_stopped() async throws {
        try await withServer { api in
            let failures = AccountsController.addressThrottle.lockoutAfter
            for index in 0..<failures {
                let reply = try await api.call(
                    .post, "/api/v1/auth/tokens",
                    json: ["email": "person\(index)@school.test", "password": "guess one"])
                #expect(reply.errorCode == "invalid_credentials", "attempt \(index): \(reply.text)")
            }
            let next = try await api.call(
                .post, "/api/v1/auth/tokens", json: ["email": "someone.else@school.test", "password": "guess one"])
            #expect(next.status == .tooManyRequests, "\(next.text)")
        }
    }

    @Test func wrong_typed_codes_are_counted_in_the_database() async throws {
        try await withServer { api in
            let room = try await Classroom.open(api, settings: ["allowTyping": true])
            let typed = try #require(try await room.projector(api).string("typedCode"))
            let wrong = typed == "000000" ? "111111" : "000000"
            for _ in 0..<3 {
                _ = try await api.call(
                    .post, "/api/v1/check-ins", as: room.student,
                    json: ["sessionId": room.sessionID, "typedCode": wrong])
            }
            let rows = try await api.rows("SELECT key, count FROM attempt_counters WHERE scope = 'typed_code'")
            #expect(rows.map { $0["count"] } == ["3"], "\(rows)")
            #expect(rows.first?["key"] == "\(room.sessionID) \(room.student.id)")
        }
    }

    @Test func join_codes_registrations_and_passkey_sign_ins_are_limited() async throws {
        try await withServer { api in
            let student = try await api.register("Code Guesser")
            for _ in 0..<CoursesController.joinLimit.limit {
                let reply = try await api.call(.post, "/api/v1/courses/join", as: student, json: ["code": "ACDEFGH"])
                #expect(reply.status == .notFound, "\(reply.text)")
            }
            let refused = try await api.call(.post, "/api/v1/courses/join", as: student, json: ["code": "ACDEFGH"])
            #expect(refused.status == .tooManyRequests, "\(refused.text)")
            #expect(refused.headers[.retryAfter] != nil)

            for _ in 0..<PasskeysController.signInOptionsLimit.limit {
                _ = try await api.call(.post, "/api/v1/auth/passkey-options")
            }
            try await api.expectRefused(
                .post, "/api/v1/auth/passkey-options", status: .tooManyRequests, code: "too_many_attempts")

            // One registration was made above; the rest of the hour's allowance, then a refusal.
            for index in 1..<AccountsController.registrations.limit {
                let reply = try await api.call(
                    .post, "/api/v1/auth/register",
                    json: ["name": "New \(index)", "email": "new\(index)@school.test", "password": API.password])
                #expect(reply.status == .created, "\(index): \(reply.text)")
            }
            try await api.expectRefused(
                .post, "/api/v1/auth/register",
                json: ["name": "One Too Many", "email": "late@school.test", "password": API.password],
                status: .tooManyRequests, code: "too_many_attempts")
        }
    }
}
