import Crypto
import Foundation
import HTTPTypes
import RollcallCore
import RollcallParts
import RollcallWeb
import ServerTestSupport
import Testing

@testable import RollcallAccounts
@testable import RollcallServer

/// The school's sign-in as real providers behave (claims in UserInfo, no `email_verified`, an HMAC keyed with the
/// client secret, a role claim that goes missing), and the attacks on the seam between the school and Rollcall.
@Suite("Federation", .timeLimit(.minutes(3)))
struct FederationTests {
    /// A token as a provider on its defaults signs it: the subject, and nothing about the person.
    static func bare(_ claims: inout [String: Any]) {
        for name in ["email", "email_verified", "name", "affiliation", "student_number"] { claims[name] = nil }
    }

    @Test func claims_only_in_userinfo_make_the_account_and_the_role() async throws {
        try await SchoolProvider.run { api, provider in
            provider.answerUserInfo([
                "sub": "t-7", "email": "tess@hill.test", "name": "Tess Hill", "affiliation": ["faculty"],
                "student_number": "T7",
            ])
            let reply = try await SchoolSignIn.through(api, provider, subject: "t-7", email: "", Self.bare)
            #expect(reply.status == .found, "\(reply.text)")
            let me = try await api.call(.get, "/api/v1/me", headers: [.cookie: try #require(reply.sessionCookie)])
            #expect(me.string("user.email") == "tess@hill.test" && me.string("user.name") == "Tess Hill", "\(me.text)")
            #expect(me.string("user.role") == "teacher")
            // No `email_verified` anywhere: the address is not taken as proved.
            #expect(me.value("user.emailVerified") as? Bool == false)
        }
    }

    @Test func userinfo_about_someone_else_is_refused_and_signs_nobody_in() async throws {
        try await SchoolProvider.run { api, provider in
            provider.answerUserInfo(["sub": "someone-else", "email": "eve@hill.test", "name": "Eve"])
            let reply = try await SchoolSignIn.through(api, provider, subject: "t-7", email: "", Self.bare)
            #expect(reply.status == .forbidden && reply.text.contains("described someone else"), "\(reply.text)")
            #expect(reply.sessionCookie == nil)
            #expect(try await api.rows("SELECT id FROM users").isEmpty)
        }
    }

    @Test func a_missing_role_claim_leaves_a_teacher_a_teacher() async throws {
        try await SchoolProvider.run { api, provider in
            _ = try await SchoolSignIn.through(api, provider, subject: "t-1", email: "tess@hill.test") {
                $0["affiliation"] = ["faculty"]
            }
            #expect(try await api.rows("SELECT role FROM users").first?["role"] == "teacher")
            // The provider stops releasing the claim (a scope lost in its settings): nothing changes.
            let again = try await SchoolSignIn.through(api, provider, subject: "t-1", email: "tess@hill.test") {
                $0["affiliation"] = nil
            }
            #expect(again.status == .found, "\(again.text)")
            #expect(try await api.rows("SELECT role FROM users").first?["role"] == "teacher")
        }
    }

    static func hmacSigned(_ signIn: SchoolSignIn, _ provider: SchoolProvider, key: [UInt8]) throws -> String {
        try SchoolProvider.token(header: ["alg": "HS256"], claims: signIn.claims(provider), key: nil, hmacSecret: key)
    }

    @Test func an_hmac_keyed_with_the_client_secret_is_taken_where_the_provider_announces_it() async throws {
        let secret = Array(SchoolProvider.clientSecret.utf8)
        try await SchoolProvider.run { api, provider in
            // Not announced: refused, as any algorithm the provider does not announce.
            let unannounced = try await SchoolSignIn.begin(api)
            let refused = try await unannounced.finish(
                api, provider, idToken: try Self.hmacSigned(unannounced, provider, key: secret))
            #expect(refused.status == .forbidden, "\(refused.text)")
            #expect(refused.sessionCookie == nil)
        }
        try await SchoolProvider.run { api, provider in
            provider.set { $0.algorithms = ["RS256", "HS256", "HS512"] }
            let forged = try await SchoolSignIn.begin(api)
            let wrongKey = try await forged.finish(
                api, provider, idToken: try Self.hmacSigned(forged, provider, key: Array("another secret".utf8)))
            #expect(wrongKey.status == .forbidden, "\(wrongKey.text)")
            #expect(try await api.rows("SELECT id FROM users").isEmpty)
            let signIn = try await SchoolSignIn.begin(api)
            let reply = try await signIn.finish(
                api, provider, idToken: try Self.hmacSigned(signIn, provider, key: secret))
            #expect(reply.status == .found, "\(reply.text)")
        }
    }

    @Test func an_hmac_keyed_with_a_secret_too_short_for_it_is_refused_and_named() async throws {
        try await SchoolProvider.run { api, provider in
            provider.set { $0.algorithms = ["RS256", "HS512"] }
            let signIn = try await SchoolSignIn.begin(api)
            // The secret is 40 bytes; HS512 asks for 64 (RFC 7518 §3.2).
            let token = try SchoolProvider.token(
                header: ["alg": "HS512"], claims: signIn.claims(provider), key: nil,
                hmacSecret: Array(SchoolProvider.clientSecret.utf8))
            let reply = try await signIn.finish(api, provider, idToken: token)
            #expect(reply.status == .forbidden && reply.text.contains("at least 64 characters"), "\(reply.text)")
            #expect(try await api.call(.get, "/healthz").status == .ok, "the server is still there")
        }
    }

    @Test func an_issuer_that_differs_by_a_slash_is_named_not_called_an_outage() async throws {
        try await SchoolProvider.run { api, provider in
            provider.set { $0.announcedIssuer = provider.issuer + "/" }
            let reply = try await api.call(.get, "/auth/oidc/start?next=/courses", headers: [.accept: "text/html"])
            #expect(reply.status == .serviceUnavailable, "\(reply.text)")
            #expect(reply.text.contains("ROLLCALL_OIDC_ISSUER"), "\(reply.text)")
            #expect(reply.text.contains("one ends with a slash"), "\(reply.text)")
            #expect(!reply.text.contains("does not answer just now"))
        }
    }

    @Test func discovery_is_kept_a_minute_even_when_the_provider_says_no_store() async throws {
        try await SchoolProvider.run { api, provider in
            provider.set { $0.discoveryCaching = "no-store" }
            for _ in 0..<5 {
                _ = try await api.call(.get, "/auth/oidc/start?next=/courses")
            }
            await withTaskGroup(of: Void.self) { group in
                for _ in 0..<5 { group.addTask { _ = try? await api.call(.get, "/sign-in?signed-out=1") } }
            }
            #expect(provider.discoveryFetches == 1, "fetched \(provider.discoveryFetches) times")
        }
    }

    @Test func made_up_key_ids_fetch_the_key_set_once_per_interval_not_once_each() async throws {
        // The first unknown key fetches the set again at once, as a rotation needs; the rest wait for the interval.
        try await SchoolProvider.run(configure: { $0.singleSignOn?.keyRefetchInterval = 600 }) { api, provider in
            #expect(
                try await SchoolSignIn.through(api, provider, subject: "warm-up", email: "w@hill.test").status == .found
            )
            let fetches = provider.keyFetches
            for attempt in 0..<15 {
                let signIn = try await SchoolSignIn.begin(api)
                let key = SchoolProvider.Key(kid: "made-up-\(attempt)", key: P256.Signing.PrivateKey())
                let token = try SchoolProvider.token(
                    header: ["alg": "ES256", "kid": key.kid], claims: signIn.claims(provider), key: key)
                let reply = try await signIn.finish(api, provider, idToken: token)
                #expect(reply.status == .forbidden)
            }
            #expect(
                provider.keyFetches == fetches + 1, "15 unknown keys fetched \(provider.keyFetches - fetches) times")
        }
    }

    @Test func sign_out_hands_the_school_its_id_token_hint() async throws {
        try await SchoolProvider.run { api, provider in
            let signedIn = try await SchoolSignIn.through(api, provider)
            let session = try #require(signedIn.sessionCookie)
            let page = try await api.call(.get, "/courses", headers: [.cookie: session])
            let csrf = String(try #require(page.text.firstMatch(of: /name="csrf-token" content="([^"]+)"/)?.1))
            var headers: HTTPFields = [.cookie: session]
            headers[AuthenticationMiddleware.csrfHeader] = csrf
            let out = try await api.call(.delete, "/api/v1/auth/session", headers: headers)
            #expect(out.status == .noContent)
            let hint = try #require(
                out.headers[values: .setCookie].first { $0.hasPrefix("\(AccountPages.signOutHintCookie)=") })
            let signedOut = try await api.call(
                .get, "/sign-in?signed-out=1",
                headers: [.cookie: String(hint.prefix { $0 != ";" }), .accept: "text/html"])
            let link = try #require(signedOut.text.firstMatch(of: /href="([^"]+)" id="school-sign-out"/)?.1)
            #expect(link.contains("id_token_hint=ey"), "\(link)")
            // Read once: the page clears it.
            #expect(
                signedOut.headers[values: .setCookie].contains { $0.hasPrefix("\(AccountPages.signOutHintCookie)=;") })
            // A password session has no hint.
            let plain = try await api.call(.get, "/sign-in?signed-out=1", headers: [.accept: "text/html"])
            #expect(!plain.text.contains("id_token_hint"))
        }
    }

    @Test func students_a_roster_invited_land_on_it_when_the_school_signs_them_in() async throws {
        try await SchoolProvider.run { api, provider in
            let (teacher, courseID, _) = try await api.teacherWithCourse()
            let imported = try await api.call(
                .post, "/api/v1/courses/\(courseID)/roster-import", as: teacher,
                raw: Array("name,email\nAda Hill,ada@hill.test\nBo Unverified,bo@hill.test".utf8),
                contentType: "text/csv")
            #expect(imported.list("invited").count == 2, "\(imported.text)")
            _ = try await SchoolSignIn.through(api, provider)
            // The school did not vouch for Bo's address: Bo's place waits for a confirmation.
            _ = try await SchoolSignIn.through(api, provider, subject: "s-2", email: "bo@hill.test") {
                $0["email_verified"] = false
            }
            let roster = try await api.rows(
                "SELECT u.email FROM enrollments e JOIN users u ON u.id = e.student_id WHERE e.course_id = \(courseID)")
            #expect(roster.map { $0["email"] ?? nil } == ["ada@hill.test"], "\(roster)")
        }
    }

    @Test func a_trusted_domain_vouches_for_addresses_a_provider_sends_no_verification_for() async throws {
        try await SchoolProvider.run(configure: { $0.singleSignOn?.trustedEmailDomains = ["hill.test"] }) {
            api, provider in
            let reply = try await SchoolSignIn.through(api, provider) { $0["email_verified"] = nil }
            let me = try await api.call(.get, "/api/v1/me", headers: [.cookie: try #require(reply.sessionCookie)])
            #expect(me.value("user.emailVerified") as? Bool == true, "\(me.text)")
            let other = try await SchoolSignIn.through(api, provider, subject: "s-9", email: "x@elsewhere.test") {
                $0["email_verified"] = nil
            }
            let them = try await api.call(.get, "/api/v1/me", headers: [.cookie: try #require(other.sessionCookie)])
            #expect(them.value("user.emailVerified") as? Bool == false)
        }
    }

    // MARK: Attacks

    @Test func a_school_login_linked_to_an_unproved_address_is_cut_when_its_owner_proves_it() async throws {
        try await SchoolProvider.run { api, provider in
            // Eve registers Ada's address, never confirms it, and links her own school login to the account.
            let squatted = try await api.register("Ada Hill", email: "ada@hill.test")
            let web = try await api.call(
                .post, "/api/v1/auth/session", json: ["email": "ada@hill.test", "password": API.password])
            let cookie = try #require(web.sessionCookie)
            let signIn = try await SchoolSignIn.begin(api, session: cookie)
            let key = provider.published[0]
            let linked = try await signIn.finish(
                api, provider,
                idToken: try SchoolProvider.token(
                    header: ["alg": "ES256", "kid": key.kid],
                    claims: signIn.claims(provider, subject: "eve", email: "eve@hill.test"), key: key))
            #expect(linked.status == .found, "\(linked.text)")

            // Ada asks for a new password: the link arrives at her address, which proves it is hers.
            _ = try await api.call(.post, "/api/v1/auth/password-reset", json: ["email": "ada@hill.test"])
            let letter = try #require(
                try await api.outbox().first { $0.recipient == "ada@hill.test" && $0.subject.contains("new password") })
            let token = String(try #require(letter.body.firstMatch(of: /token=([\w-]+)/)?.1))
            let reset = try await api.call(
                .post, "/api/v1/auth/password-reset/complete", json: ["token": token, "newPassword": "adas-own-pass"])
            #expect(reset.status == .noContent, "\(reset.text)")
            #expect(try await api.rows("SELECT user_id FROM sso_identities WHERE subject = 'eve'").isEmpty)
            let told = try await api.outbox().filter {
                $0.recipient == "ada@hill.test" && $0.subject.contains("removed")
            }
            #expect(told.count == 1, "Ada is told why the link went")

            // Eve's school login no longer opens Ada's account, nor rewrites it.
            let eve = try await SchoolSignIn.through(api, provider, subject: "eve", email: "eve@hill.test") {
                $0["name"] = "Eve"
            }
            let me = try await api.call(.get, "/api/v1/me", headers: [.cookie: try #require(eve.sessionCookie)])
            #expect(me.int("user.id") != squatted.id, "\(me.text)")
            let ada = try await api.rows("SELECT name, email FROM users WHERE id = \(squatted.id)")
            #expect(ada.first?["name"] == "Ada Hill" && ada.first?["email"] == "ada@hill.test", "\(ada)")
        }
    }

    @Test func a_link_made_with_the_account_is_kept_when_its_address_is_confirmed() async throws {
        try await SchoolProvider.run { api, provider in
            // The school made the account and did not vouch for the address; its owner confirms it later.
            let reply = try await SchoolSignIn.through(api, provider) { $0["email_verified"] = false }
            let me = try await api.call(.get, "/api/v1/me", headers: [.cookie: try #require(reply.sessionCookie)])
            let id = try #require(me.int("user.id"))
            try await api.confirmEmail(Account(id: id, email: "ada@hill.test", token: ""))
            #expect(try await api.rows("SELECT user_id FROM sso_identities").count == 1)
            #expect(try await api.outbox().allSatisfy { !$0.subject.contains("removed") })
        }
    }

    @Test func the_schools_word_never_opens_an_admin_account() async throws {
        try await SchoolProvider.run { api, provider in
            let admin = try await api.admin()
            let before = try await api.snapshot()
            let reply = try await SchoolSignIn.through(api, provider, subject: "mallory", email: admin.email)
            #expect(reply.status == .conflict && reply.text.contains("never opens an admin"), "\(reply.text)")
            #expect(reply.sessionCookie == nil)
            #expect(try await api.rows("SELECT user_id FROM sso_identities").isEmpty)
            let after = try await api.snapshot()
            #expect(after["users"] == before["users"])
        }
    }

    @Test func anonymous_starts_are_limited_per_address_and_purged() async throws {
        try await SchoolProvider.run { api, _ in
            let limit = SignIns.anonymousStarts.limit
            for _ in 0..<limit {
                let start = try await api.call(.get, "/auth/oidc/start?next=/courses")
                #expect(start.status == .found)
            }
            let refused = try await api.call(.get, "/auth/oidc/start?next=/courses")
            #expect(refused.status == .tooManyRequests, "\(refused.text)")
            #expect(refused.headers[.retryAfter] != nil)
            #expect(try await api.rows("SELECT state_hash FROM sso_sign_ins").count == limit, "a refusal keeps no row")
            // Expired starts go at the next start.
            try await api.execute("UPDATE sso_sign_ins SET expires_at = expires_at - 100000")
            try await api.execute("DELETE FROM attempt_counters")
            _ = try await api.call(.get, "/auth/oidc/start?next=/courses")
            #expect(try await api.rows("SELECT state_hash FROM sso_sign_ins").count == 1)
        }
    }
}
