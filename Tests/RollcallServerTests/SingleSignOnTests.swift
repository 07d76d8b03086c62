import Crypto
import Foundation
import HTTPTypes
import RollcallCore
import RollcallModel
import RollcallParts
import RollcallStorage
import RollcallWeb
import RollcallWords
import ServerTestSupport
import Testing

@testable import RollcallServer

/// The school's sign-in against a provider the test runs on loopback, with tokens the test signs: the way in, the
/// accounts it makes and links, and every refusal the specifications ask of a relying party.
@Suite("The school's sign-in", .timeLimit(.minutes(2)))
struct SingleSignOnServerTests {
    @Test func a_student_signs_in_through_the_school_and_is_known_by_subject_not_address() async throws {
        try await SchoolProvider.run { api, provider in
            let first = try await SchoolSignIn.through(api, provider) { $0["student_number"] = "s-42" }
            #expect(first.status == .found, "\(first.text)")
            #expect(first.headers[.location] == "/courses", "back where the person was going")
            // A `next` that leaves the site is not followed: the person lands on Rollcall's front page.
            let away = try await SchoolSignIn.begin(api, next: "//evil.test/")
            let key = provider.published[0]
            let landed = try await away.finish(
                api, provider,
                idToken: try SchoolProvider.token(
                    header: ["alg": "ES256", "kid": key.kid], claims: away.claims(provider), key: key))
            #expect(landed.headers[.location] == "/", "\(landed.headers)")
            let session = try #require(first.sessionCookie)
            let me = try await api.call(.get, "/api/v1/me", headers: [.cookie: session])
            #expect(me.string("user.email") == "ada@hill.test" && me.string("user.name") == "Ada Hill", "\(me.text)")
            #expect(me.string("user.role") == "student")
            #expect(me.value("user.emailVerified") as? Bool == true)
            #expect(me.string("user.studentNumber") == "S-42")

            // The same person later, renamed and with a new address: the same account, brought up to date.
            let again = try await SchoolSignIn.through(api, provider, email: "ada.hill@hill.test") {
                $0["name"] = "Ada King"
            }
            let later = try await api.call(.get, "/api/v1/me", headers: [.cookie: try #require(again.sessionCookie)])
            #expect(later.int("user.id") == me.int("user.id"))
            #expect(later.string("user.email") == "ada.hill@hill.test" && later.string("user.name") == "Ada King")

            // No password signs in to an account the school made.
            try await api.expectRefused(
                .post, "/api/v1/auth/tokens", json: ["email": "ada.hill@hill.test", "password": ""],
                status: .unauthorized, code: "invalid_credentials")
        }
    }

    @Test func the_schools_role_claim_makes_teachers_and_everyone_else_a_student() async throws {
        try await SchoolProvider.run { api, provider in
            let teacher = try await SchoolSignIn.through(api, provider, subject: "t-1", email: "tess@hill.test") {
                $0["affiliation"] = ["Faculty", "member"]
                $0["email_verified"] = false
            }
            let session = try #require(teacher.sessionCookie)
            let me = try await api.call(.get, "/api/v1/me", headers: [.cookie: session])
            #expect(me.string("user.role") == "teacher", "\(me.text)")
            // Approved by the school: no admin needs to.
            let users = try await api.rows(
                "SELECT role, approved, role_source FROM users WHERE email = 'tess@hill.test'")
            #expect(users.first?["approved"] == "1" && users.first?["role_source"] == "school", "\(users)")
            // Vouched for by the school, the teacher adds students though the provider did not say the address is
            // verified.
            #expect(
                try await api.rows("SELECT email_verified_at FROM users WHERE email = 'tess@hill.test'")
                    .first?["email_verified_at"] == .some(nil))
            let page = try await api.call(.get, "/courses", headers: [.cookie: session])
            let csrf = String(try #require(page.text.firstMatch(of: /name="csrf-token" content="([^"]+)"/)?.1))
            var headers: HTTPFields = [.cookie: session]
            headers[AuthenticationMiddleware.csrfHeader] = csrf
            let course = try await api.call(.post, "/api/v1/courses", json: ["name": "Geology"], headers: headers)
            let student = try await api.register("Stu Dent")
            let added = try await api.call(
                .post, "/api/v1/courses/\(try #require(course.int("course.id")))/students",
                json: ["email": student.email], headers: headers)
            #expect(added.status == .created, "\(added.text)")

            // The school changes its mind: the next sign-in follows it.
            _ = try await SchoolSignIn.through(api, provider, subject: "t-1", email: "tess@hill.test") {
                $0["affiliation"] = "student"
            }
            let after = try await api.rows("SELECT role FROM users WHERE email = 'tess@hill.test'")
            #expect(after.first?["role"] == "student")
        }
    }

    @Test func an_admin_gives_a_role_by_hand_and_the_schools_sign_in_leaves_it() async throws {
        try await SchoolProvider.run { api, provider in
            let first = try await SchoolSignIn.through(api, provider)
            let me = try await api.call(.get, "/api/v1/me", headers: [.cookie: try #require(first.sessionCookie)])
            #expect(me.string("user.roleSource") == "school")
            let id = try #require(me.int("user.id"))
            let admin = try await api.admin()

            let made = try await api.call(.put, "/api/v1/admin/users/\(id)/role", as: admin, json: ["role": "teacher"])
            #expect(made.string("user.role") == "teacher" && made.string("user.roleSource") == "admin", "\(made.text)")
            // The school still calls Ada a student; the admin's choice stands.
            let again = try await SchoolSignIn.through(api, provider)
            let after = try await api.call(.get, "/api/v1/me", headers: [.cookie: try #require(again.sessionCookie)])
            #expect(after.string("user.role") == "teacher")
            let page = try await api.call(.get, "/admin", as: admin, headers: [.accept: "text/html"])
            #expect(page.text.contains("(set by an admin)"), "the page says where a role came from")

            // Bad input changes nothing.
            let path = "/api/v1/admin/users/\(id)/role"
            try await api.expectRefused(
                .put, path, as: admin, json: ["role": "admin"], status: .badRequest, code: "invalid_role")
            try await api.expectRefused(.put, path, as: admin, json: [:], status: .badRequest, code: "missing_field")
            try await api.expectRefused(
                .put, "/api/v1/admin/users/\(admin.id)/role", as: admin, json: ["role": "student"], status: .conflict,
                code: "admin_role_fixed")
            try await api.expectRefused(
                .put, "/api/v1/admin/users/999999/role", as: admin, json: ["role": "student"], status: .notFound,
                code: "user_not_found")
        }
    }

    /// A token that breaks one rule, and how it is made.
    enum BadToken: String, CaseIterable, Sendable {
        case wrongIssuer, wrongAudience, otherAuthorizedParty, expired, issuedInFuture, badSignature, unknownKey,
            algorithmNone, hmacWithThePublicKey, replayedNonce, noNonce, noSubject, notAToken
    }

    @Test(arguments: BadToken.allCases)
    func a_token_that_breaks_a_rule_is_refused_with_a_page_and_signs_nobody_in(_ bad: BadToken) async throws {
        try await SchoolProvider.run { api, provider in
            // A first sign-in fetches the provider's keys; what follows counts fetches from there.
            #expect(
                try await SchoolSignIn.through(api, provider, subject: "warm-up", email: "w@hill.test").status == .found
            )
            let signIn = try await SchoolSignIn.begin(api)
            let key = provider.published[0]
            var header: [String: Any] = ["alg": "ES256", "kid": key.kid, "typ": "JWT"]
            var claims = signIn.claims(provider)
            var signingKey: SchoolProvider.Key? = key
            var hmac: [UInt8]?
            switch bad {
            case .wrongIssuer: claims["iss"] = "https://evil.test"
            case .wrongAudience: claims["aud"] = "another-app"
            case .otherAuthorizedParty:
                claims["aud"] = [SchoolProvider.clientID, "another-app"]
                claims["azp"] = "another-app"
            case .expired: claims["exp"] = Int(Date().timeIntervalSince1970 - 600)
            case .issuedInFuture: claims["iat"] = Int(Date().timeIntervalSince1970 + 600)
            case .badSignature: signingKey = SchoolProvider.Key(kid: key.kid, key: P256.Signing.PrivateKey())
            case .unknownKey:
                signingKey = SchoolProvider.Key(kid: "key-nobody-published", key: P256.Signing.PrivateKey())
                header["kid"] = "key-nobody-published"
            case .algorithmNone:
                header["alg"] = "none"
                signingKey = nil
            case .hmacWithThePublicKey:
                header["alg"] = "HS256"
                hmac = Array(key.key.publicKey.x963Representation)
            case .replayedNonce:
                let other = try await SchoolSignIn.begin(api)
                claims["nonce"] = other.nonce
            case .noNonce: claims["nonce"] = nil
            case .noSubject: claims["sub"] = ""
            case .notAToken: break
            }
            let token =
                bad == .notAToken
                ? "not.a-token"
                : try SchoolProvider.token(header: header, claims: claims, key: signingKey, hmacSecret: hmac)
            let fetchesBefore = provider.keyFetches

            let reply = try await signIn.finish(api, provider, idToken: token)

            #expect(reply.status == .forbidden, "\(bad): \(reply.text)")
            #expect(reply.headers[.contentType]?.hasPrefix("text/html") == true)
            #expect(
                reply.text.contains("sso_token_refused") || reply.text.contains("could not accept"), "\(reply.text)")
            #expect(reply.sessionCookie == nil, "\(bad) signed someone in")
            #expect(try await api.rows("SELECT id FROM users").count == 1, "\(bad) made an account")
            if bad == .unknownKey {
                #expect(provider.keyFetches - fetchesBefore == 1, "an unknown key fetches the key set again once")
            }
        }
    }

    @Test func a_rotated_key_is_fetched_once_and_then_served_from_the_cache() async throws {
        try await SchoolProvider.run { api, provider in
            let first = try await SchoolSignIn.through(api, provider)
            #expect(first.status == .found)
            let fetches = provider.keyFetches
            provider.publish([SchoolProvider.Key(kid: "key-2", key: P256.Signing.PrivateKey())])
            let rotated = try await SchoolSignIn.through(api, provider)
            #expect(rotated.status == .found, "the new key is fetched: \(rotated.text)")
            #expect(provider.keyFetches == fetches + 1)
            let cached = try await SchoolSignIn.through(api, provider)
            #expect(cached.status == .found)
            #expect(provider.keyFetches == fetches + 1, "and kept as the provider's max-age says")
        }
    }

    @Test func a_sign_in_comes_back_once_and_only_to_the_browser_that_started_it() async throws {
        try await SchoolProvider.run { api, provider in
            let signIn = try await SchoolSignIn.begin(api)
            let key = provider.published[0]
            let token = try SchoolProvider.token(
                header: ["alg": "ES256", "kid": key.kid], claims: signIn.claims(provider), key: key)
            // Another browser (no cookie, or another one) cannot finish it, and uses it up trying.
            let stolen = try await signIn.finish(api, provider, idToken: token, browser: "rollcall_sso=someone-else")
            #expect(
                stolen.status == .badRequest && stolen.text.contains("not started in this browser"), "\(stolen.text)")
            let late = try await signIn.finish(api, provider, idToken: token)
            #expect(late.status == .badRequest, "a state is used once: \(late.text)")

            // The provider said no: a page that says so, and nobody signed in.
            let denied = try await SchoolSignIn.begin(api)
            let refused = try await api.call(
                .get, "/auth/oidc/callback?state=\(denied.state)&error=access_denied",
                headers: [.cookie: denied.browser, .accept: "text/html"])
            #expect(refused.status == .forbidden && refused.text.contains("did not sign you in"), "\(refused.text)")
            #expect(refused.sessionCookie == nil)

            for query in ["", "?state=unknown&code=x", "?code=x"] {
                let reply = try await api.call(
                    .get, "/auth/oidc/callback\(query)", headers: [.cookie: signIn.browser, .accept: "text/html"])
                #expect(reply.status == .badRequest, "\(query): \(reply.text)")
                #expect(reply.sessionCookie == nil)
            }
            #expect(try await api.rows("SELECT id FROM users").isEmpty)
        }
    }

    @Test func a_password_account_with_the_address_is_linked_only_once_its_owner_proves_it() async throws {
        try await SchoolProvider.run { api, provider in
            let ada = try await api.register("Ada Hill", email: "ada@hill.test")
            // Rollcall never confirmed the address: the school's word alone does not hand the account over.
            let refused = try await SchoolSignIn.through(api, provider)
            #expect(
                refused.status == .conflict && refused.text.contains("Sign in with its password once"),
                "\(refused.text)")
            #expect(refused.sessionCookie == nil)

            // Signed in with the password, Ada starts the school's sign-in: the two are linked.
            let web = try await api.call(
                .post, "/api/v1/auth/session", json: ["email": ada.email, "password": API.password])
            let session = try #require(web.sessionCookie)
            let signIn = try await SchoolSignIn.begin(api, session: session)
            let key = provider.published[0]
            let linked = try await signIn.finish(
                api, provider,
                idToken: try SchoolProvider.token(
                    header: ["alg": "ES256", "kid": key.kid], claims: signIn.claims(provider), key: key))
            #expect(linked.status == .found, "\(linked.text)")
            // From now on the school's sign-in alone is enough, and it is the same account.
            let again = try await SchoolSignIn.through(api, provider)
            let me = try await api.call(.get, "/api/v1/me", headers: [.cookie: try #require(again.sessionCookie)])
            #expect(me.int("user.id") == ada.id)
        }
    }

    @Test func a_school_that_turns_passwords_off_keeps_them_for_admins_only() async throws {
        try await SchoolProvider.run(configure: { $0.passwordSignIn = false }) { api, provider in
            let page = try await api.call(.get, "/sign-in?next=/courses", headers: [.accept: "text/html"])
            #expect(page.text.contains("id=\"school-sign-in\"") && page.text.contains("Sign in with Hill School"))
            #expect(page.text.contains("/auth/oidc/start?next="), "the button keeps where the person was going")
            #expect(!page.text.contains("id=\"register-link\""), "no registration")
            #expect(
                page.text.contains("<details id=\"admin-password-sign-in\">"), "the password form, folded for admins")
            let register = try await api.call(.get, "/register?next=/courses", headers: [.accept: "text/html"])
            #expect(register.status == .found && register.headers[.location]?.hasPrefix("/sign-in") == true)

            try await api.expectRefused(
                .post, "/api/v1/auth/register",
                json: ["name": "Sam Self", "email": "sam@hill.test", "password": API.password],
                status: .forbidden, code: "password_sign_in_off")
            let admin = try await api.admin()
            #expect(!admin.token.isEmpty, "an admin still signs in with a password")
            // A password account from before the switch is told to use the school's sign-in.
            try await Database.sqlite(path: api.databasePath, logger: .init(label: "test")).closing { database in
                _ = try await UserStore(database: database).create(
                    NewUser(
                        name: "Old Timer", email: "old@hill.test",
                        passwordHash: try await PasswordHasher(cost: 4).hash(API.password),
                        role: .student, studentNumber: nil, approved: true))
            }
            try await api.expectRefused(
                .post, "/api/v1/auth/session", json: ["email": "old@hill.test", "password": API.password],
                status: .forbidden, code: "password_sign_in_off")
            // Nor does a link to set a password go to anyone but an admin; the answer is the same for everyone.
            for address in ["old@hill.test", "admin@school.test"] {
                let asked = try await api.call(.post, "/api/v1/auth/password-reset", json: ["email": address])
                #expect(asked.status == .accepted)
            }
            let links = try await api.outbox().filter { $0.subject.contains("new password") }.map(\.recipient)
            #expect(links == ["admin@school.test"], "\(links)")
            // A student made by the school has no password to sign in with, and is told where to go.
            _ = try await SchoolSignIn.through(api, provider)
            try await api.expectRefused(
                .post, "/api/v1/auth/tokens", json: ["email": "ada@hill.test", "password": API.password],
                status: .forbidden, code: "password_sign_in_off")
        }
    }

    @Test func signing_out_offers_the_schools_sign_out_too() async throws {
        try await SchoolProvider.run { api, provider in
            let page = try await api.call(.get, "/sign-in?signed-out=1", headers: [.accept: "text/html"])
            let link = try #require(
                page.text.firstMatch(of: /id="school-sign-out"|href="([^"]+)" id="school-sign-out"/))
            #expect(page.text.contains("You are signed out of Rollcall"))
            #expect(page.text.contains("\(provider.issuer)/logout?client_id=\(SchoolProvider.clientID)"), "\(link.0)")
            #expect(page.text.contains("post_logout_redirect_uri="))
            let plain = try await api.call(.get, "/sign-in", headers: [.accept: "text/html"])
            #expect(!plain.text.contains("school-sign-out"), "only after signing out")
        }
    }

    @Test func with_passwords_on_the_sign_in_page_offers_both() async throws {
        try await SchoolProvider.run { api, _ in
            let page = try await api.call(.get, "/sign-in", headers: [.accept: "text/html"])
            #expect(page.text.contains("id=\"school-sign-in\"") && page.text.contains("id=\"register-link\""))
            #expect(!page.text.contains("admin-password-sign-in"))
        }
        try await withServer { api in
            let page = try await api.call(.get, "/sign-in", headers: [.accept: "text/html"])
            #expect(!page.text.contains("school-sign-in"), "no button without the settings")
        }
    }

    @Test func a_provider_that_does_not_answer_gives_a_page_that_says_so() async throws {
        try await withServer(configure: { configuration in
            configuration.singleSignOn = SingleSignOnSettings(
                issuer: "http://127.0.0.1:9", clientID: "rollcall", clientSecret: "secret", name: "Hill School")
        }) { api in
            let reply = try await api.call(.get, "/auth/oidc/start?next=/courses", headers: [.accept: "text/html"])
            #expect(reply.status == .serviceUnavailable, "\(reply.text)")
            #expect(reply.text.contains("Hill School does not answer"))
            #expect(reply.headers[.retryAfter] != nil)
        }
    }

    @Test func without_the_settings_there_is_no_school_sign_in() async throws {
        try await withServer { api in
            let start = try await api.call(.get, "/auth/oidc/start")
            let callback = try await api.call(.get, "/auth/oidc/callback?state=x&code=y")
            #expect(start.status == .notFound && callback.status == .notFound)
        }
    }

    @Test func settings_that_cannot_work_stop_the_server_naming_the_variable() throws {
        let base = [
            "ROLLCALL_OIDC_ISSUER": "https://login.hill.test", "ROLLCALL_OIDC_CLIENT_ID": "rollcall",
            "ROLLCALL_OIDC_CLIENT_SECRET": "secret",
        ]
        let good = try Configuration.fromEnvironment(base)
        #expect(good.singleSignOn?.issuer == "https://login.hill.test")
        let bad: [([String: String], String)] = [
            (base.merging(["ROLLCALL_OIDC_ISSUER": "login.hill.test"]) { $1 }, "ROLLCALL_OIDC_ISSUER"),
            (base.filter { $0.key != "ROLLCALL_OIDC_CLIENT_ID" }, "ROLLCALL_OIDC_CLIENT_ID"),
            (base.filter { $0.key != "ROLLCALL_OIDC_CLIENT_SECRET" }, "ROLLCALL_OIDC_CLIENT_SECRET"),
            (
                base.merging(["ROLLCALL_OIDC_CLIENT_SECRET_FILE": "/no/such/file"]) { $1 },
                "ROLLCALL_OIDC_CLIENT_SECRET_FILE"
            ),
            (base.merging(["ROLLCALL_OIDC_ROLE_CLAIM": "groups"]) { $1 }, "ROLLCALL_OIDC_TEACHER_VALUES"),
            (["ROLLCALL_PASSWORD_SIGN_IN": "false"], "ROLLCALL_PASSWORD_SIGN_IN"),
        ]
        for (environment, variable) in bad {
            #expect(throws: ConfigurationError.self, "\(variable)") { try Configuration.fromEnvironment(environment) }
            do {
                _ = try Configuration.fromEnvironment(environment)
            } catch let error as ConfigurationError {
                #expect(error.variable == variable)
            }
        }
    }
}
