import Foundation
import HTTPTypes
import RollcallCore
import RollcallParts
import ServerTestSupport
import Testing

@testable import RollcallAccounts
@testable import RollcallServer

/// A learning platform as real ones behave (the default privacy, the scopes a launch offers, a gradebook that shows
/// learners only the column of the placed link), and the attacks through a launch or a registration.
@Suite("Learning platform federation", .timeLimit(.minutes(3)))
struct PlatformFederationTests {
    static let institutionInstructor = "http://purl.imsglobal.org/vocab/lis/v2/institution/person#Instructor"

    /// The course linked by its instructor's launch; answers the course id.
    static func linkCourse(_ api: API, _ platform: TestPlatform) async throws -> Int64 {
        LearningPlatformTests.fillCourse(platform, students: 3)
        let launch = try await PlatformLaunch.through(api, platform, subject: "t-1", role: TestPlatform.instructorRole)
        #expect(launch.status == .seeOther, "\(launch.text)")
        let location = try #require(launch.headers[.location])
        return try #require(Int64(location.replacingOccurrences(of: "/courses/", with: "")))
    }

    @Test func a_learner_who_teaches_elsewhere_in_the_school_is_a_student_here() async throws {
        try await TestPlatform.run { api, platform, _ in
            _ = try await Self.linkCourse(api, platform)
            let launch = try await PlatformLaunch.through(api, platform, subject: "s-0", role: TestPlatform.learnerRole)
            {
                $0[LTI.Claim.roles] = [TestPlatform.learnerRole, Self.institutionInstructor]
            }
            #expect(launch.status == .seeOther, "\(launch.text)")
            let rows = try await api.rows(
                "SELECT u.role FROM users u JOIN lti_identities i ON i.user_id = u.id WHERE i.subject = 's-0'")
            #expect(rows.first?["role"] == "student", "\(rows)")
            #expect(try await api.rows("SELECT user_id FROM course_staff").count <= 1, "no co-teacher of their class")
            // An institution role alone says nothing about the course: no role Rollcall knows.
            let only = try await PlatformLaunch.through(api, platform, subject: "s-1", role: Self.institutionInstructor)
            #expect(only.status == .forbidden, "\(only.text)")
        }
    }

    @Test func a_course_a_platform_makes_takes_the_schools_zone() async throws {
        try await TestPlatform.run(configure: { $0.defaultTimeZone = "Europe/Paris" }) { api, platform, _ in
            _ = try await Self.linkCourse(api, platform)
            let zones = try await api.rows("SELECT time_zone FROM courses")
            #expect(zones.map { $0["time_zone"] ?? nil } == ["Europe/Paris"], "\(zones)")
        }
    }

    @Test func an_admins_hand_set_role_outlives_an_instructor_launch_and_a_roster_sync() async throws {
        try await TestPlatform.run { api, platform, admin in
            let courseID = try await Self.linkCourse(api, platform)
            let learner = try #require(
                try await api.rows("SELECT i.user_id FROM lti_identities i WHERE i.subject = 's-0'").first?["user_id"]
                    ?? nil)
            let made = try await api.call(
                .put, "/api/v1/admin/users/\(learner)/role", as: admin, json: ["role": "student"])
            #expect(made.status == .ok, "\(made.text)")
            // The platform now calls them an instructor, in a launch and in its roster.
            platform.set { $0.members[2].role = TestPlatform.instructorRole }
            _ = try await api.call(.post, "/api/v1/courses/\(courseID)/lti/sync", as: admin)
            _ = try await PlatformLaunch.through(api, platform, subject: "s-0", role: TestPlatform.instructorRole)
            let role = try await api.rows("SELECT role, role_source FROM users WHERE id = \(learner)")
            #expect(role.first?["role"] == "student" && role.first?["role_source"] == "admin", "\(role)")
        }
    }

    @Test func people_the_platform_shares_no_name_of_get_distinct_names() async throws {
        try await TestPlatform.run { api, platform, admin in
            LearningPlatformTests.fillCourse(platform, students: 40)
            platform.set { state in
                for index in state.members.indices where index >= 2 {
                    state.members[index].name = ""
                    state.members[index].email = ""
                }
            }
            let launch = try await PlatformLaunch.through(
                api, platform, subject: "t-1", role: TestPlatform.instructorRole)
            let location = try #require(launch.headers[.location])
            let courseID = try #require(Int64(location.dropFirst("/courses/".count)))
            let roster = try await api.call(.get, "/api/v1/courses/\(courseID)/students", as: admin).list("students")
            let names = Set(roster.compactMap { $0["name"] as? String })
            #expect(roster.count == 40 && names.count == 40, "\(names.sorted().prefix(5))")
            #expect(names.allSatisfy { $0.hasPrefix("Learner ") })
            // A later launch with a name brings it.
            let named = try await PlatformLaunch.through(api, platform, subject: "s-5", role: TestPlatform.learnerRole)
            {
                $0["name"] = nil
                $0["given_name"] = "Ada"
                $0["family_name"] = "Hill"
            }
            #expect(named.status == .seeOther)
            #expect(try await api.rows("SELECT id FROM users WHERE name = 'Ada Hill'").count == 1)
        }
    }

    @Test func the_line_item_is_bound_to_the_placed_link_and_scores_ask_only_for_the_score_scope() async throws {
        try await TestPlatform.run { api, platform, admin in
            let courseID = try await Self.linkCourse(api, platform)
            let links = platform.state.withLockedValue { Array($0.lineItemLinks.values) }
            #expect(links == [.some("link-1")], "the column is the placed link's: \(links)")
            _ = try await PlatformLaunch.through(api, platform, subject: "s-0", role: TestPlatform.learnerRole)
            let sent = try await api.call(.post, "/api/v1/courses/\(courseID)/lti/grades", as: admin)
            #expect(sent.status == .ok || sent.status == .accepted, "\(sent.text)")
            let deadline = Date().addingTimeInterval(60)
            while platform.scores.isEmpty, Date() < deadline { try await Task.sleep(for: .milliseconds(100)) }
            #expect(!platform.scores.isEmpty)
            let asked = platform.state.withLockedValue { $0.scopesAsked }
            #expect(asked.contains(LTI.Scope.scores), "\(asked)")
            #expect(!asked.contains { $0.contains(LTI.Scope.scores) && $0.contains(LTI.Scope.lineItems) }, "\(asked)")
        }
    }

    @Test func a_launch_that_offered_read_only_line_items_never_asks_to_make_one() async throws {
        try await TestPlatform.run { api, platform, _ in
            LearningPlatformTests.fillCourse(platform, students: 2)
            let launch = try await PlatformLaunch.through(
                api, platform, subject: "t-1", role: TestPlatform.instructorRole
            ) {
                var grades = $0[LTI.Claim.gradeEndpoint] as? [String: Any] ?? [:]
                grades["scope"] = [LTI.Scope.lineItemsReadOnly, LTI.Scope.scores]
                $0[LTI.Claim.gradeEndpoint] = grades
            }
            #expect(launch.status == .seeOther, "\(launch.text)")
            let asked = platform.state.withLockedValue { $0.scopesAsked }
            #expect(!asked.contains { $0.split(separator: " ").contains(Substring(LTI.Scope.lineItems)) }, "\(asked)")
        }
    }

    @Test func made_up_key_ids_in_launches_fetch_the_platforms_keys_at_most_once() async throws {
        try await TestPlatform.run { api, platform, _ in
            _ = try await Self.linkCourse(api, platform)
            let fetches = platform.keyFetches
            for attempt in 0..<15 {
                let launch = try await PlatformLaunch.begin(api, platform)
                let key = TestPlatform.Key(kid: "made-up-\(attempt)", key: TestPlatform.Key.unpublished.key)
                let token = try TestPlatform.token(
                    header: ["alg": "RS256", "kid": key.kid],
                    claims: platform.claims(nonce: launch.nonce, subject: "s-0", role: TestPlatform.learnerRole),
                    key: key)
                let reply = try await launch.post(api, idToken: token)
                #expect(reply.status == .forbidden, "\(reply.text)")
            }
            #expect(
                platform.keyFetches - fetches <= 1, "15 made-up keys fetched \(platform.keyFetches - fetches) times")
        }
    }

    // MARK: Dynamic registration

    static func registrationPath(_ api: API, _ admin: Account) async throws -> String {
        let made = try await api.call(.post, "/api/v1/admin/lti-registration-links", as: admin)
        let url = try #require(made.string("url"))
        return String(url.dropFirst("http://rollcall.test".count))
    }

    @Test func a_registration_follows_no_redirect_and_believes_only_the_issuers_own_origin() async throws {
        try await TestPlatform.serving { platform in
            try await withServer(setup: .live, configure: TestPlatform.configure) { api in
                let admin = try await api.admin()
                let path = try await Self.registrationPath(api, admin)
                let token = "&registration_token=registration-token-1"
                let json: HTTPFields = [.accept: "application/json"]

                let moved = try await api.call(
                    .get, path + "&openid_configuration=\(platform.issuer)/moved/openid-configuration" + token,
                    headers: json)
                #expect(moved.status != .ok, "\(moved.text)")

                platform.set { $0.configurationChanges = ["registration_endpoint": "http://localhost:9/collect"] }
                let collector = try await api.call(
                    .get, path + "&openid_configuration=\(platform.issuer)/.well-known/openid-configuration" + token,
                    headers: json)
                #expect(
                    collector.status == .badRequest && collector.errorCode == "lti_launch_refused", "\(collector.text)")

                platform.set { $0.configurationChanges = ["issuer": platform.issuer + "7"] }
                let prefix = try await api.call(
                    .get, path + "&openid_configuration=\(platform.issuer)/.well-known/openid-configuration" + token,
                    headers: json)
                #expect(prefix.status == .badRequest, "an issuer is an origin, not a prefix: \(prefix.text)")

                // The platform refuses with words of its own: the page summarizes, it does not relay them.
                platform.set {
                    $0.configurationChanges = [:]
                    $0.registrationStatus = 418
                }
                let refused = try await api.call(
                    .get, path + "&openid_configuration=\(platform.issuer)/.well-known/openid-configuration" + token,
                    headers: json)
                #expect(refused.status == .badRequest, "\(refused.text)")
                #expect(!refused.text.contains("418") && !refused.text.contains("internal words"), "\(refused.text)")
                #expect(platform.state.withLockedValue { $0.registrations }.isEmpty)
                #expect(try await api.rows("SELECT id FROM lti_platforms").isEmpty)

                // Five tries per URL, then it is spent.
                let last = try await api.call(
                    .get, path + "&openid_configuration=\(platform.issuer)/.well-known/openid-configuration" + token,
                    headers: json)
                #expect(last.status == .badRequest)
                platform.set { $0.registrationStatus = nil }
                let spent = try await api.call(
                    .get, path + "&openid_configuration=\(platform.issuer)/.well-known/openid-configuration" + token,
                    headers: json)
                #expect(spent.status == .tooManyRequests, "\(spent.text)")
                #expect(try await api.rows("SELECT id FROM lti_platforms").isEmpty)
            }
        }
    }

    @Test func anonymous_logins_are_limited_per_address() async throws {
        try await TestPlatform.run { api, platform, _ in
            for _ in 0..<SignIns.anonymousStarts.limit - 1 {
                _ = try await PlatformLaunch.begin(api, platform)
            }
            let refused = try await api.call(
                .get,
                "/lti/login?iss=\(platform.issuer)&login_hint=x&target_link_uri=http://rollcall.test/lti/launch"
                    + "&client_id=\(TestPlatform.clientID)")
            #expect(refused.status == .found)
            let over = try await api.call(
                .get,
                "/lti/login?iss=\(platform.issuer)&login_hint=x&target_link_uri=http://rollcall.test/lti/launch"
                    + "&client_id=\(TestPlatform.clientID)")
            #expect(over.status == .tooManyRequests, "\(over.text)")
            #expect(
                try await api.rows("SELECT state_hash FROM lti_logins").count == SignIns.anonymousStarts.limit)
        }
    }
}
