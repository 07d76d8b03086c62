import Foundation
import HTTPTypes
import RollcallCore
import RollcallModel
import RollcallWords
import ServerTestSupport
import Testing

@testable import RollcallServer

/// Rollcall inside a learning platform (LTI 1.3) against a platform the test runs on loopback: registration, the
/// launch and every refusal the Security Framework and LTI Core ask for, the roster by NRPS, grades by AGS, deep
/// linking, and a launch in a frame that keeps no cookie.
@Suite("Learning platforms (LTI 1.3)", .timeLimit(.minutes(3)))
struct LearningPlatformTests {
    /// Forty learners, a co-teacher and an assistant on the platform's course.
    static func fillCourse(_ platform: TestPlatform, students: Int = 40) {
        platform.set { state in
            state.members = [
                .init(userID: "t-1", name: "Tess Hill", email: "tess@hill.test", role: TestPlatform.instructorRole),
                .init(
                    userID: "t-2", name: "Tom Rowe", email: "tom@hill.test",
                    role: "http://purl.imsglobal.org/vocab/lis/v2/membership/Instructor#TeachingAssistant"),
            ]
            for number in 0..<students {
                state.members.append(
                    .init(
                        userID: "s-\(number)", name: "Student \(String(format: "%02d", number))",
                        email: "student\(number)@hill.test", number: "h\(1000 + number)",
                        role: TestPlatform.learnerRole))
            }
        }
    }

    /// Polls `condition` until it holds or a generous deadline passes.
    static func eventually(_ seconds: Double = 60, _ condition: () async throws -> Bool) async throws -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if try await condition() { return true }
            try await Task.sleep(for: .milliseconds(100))
        }
        return try await condition()
    }

    @Test func an_admin_registers_platforms_and_reads_what_to_enter_on_their_side() async throws {
        try await TestPlatform.run { api, platform, admin in
            let list = try await api.call(.get, "/api/v1/admin/lti-platforms", as: admin)
            #expect(list.status == .ok)
            #expect(list.string("tool.loginUrl") == "http://rollcall.test/lti/login")
            #expect(list.string("tool.launchUrl") == "http://rollcall.test/lti/launch")
            #expect(list.string("tool.deepLinkingUrl") == "http://rollcall.test/lti/launch")
            #expect(list.string("tool.jwksUrl") == "http://rollcall.test/lti/jwks")
            let registered = try #require(list.list("platforms").first)
            #expect(registered["deploymentIds"] as? [String] == [TestPlatform.deployment])
            let id = try #require(registered["id"] as? Int)

            let changed = try await api.call(
                .patch, "/api/v1/admin/lti-platforms/\(id)", as: admin,
                json: ["name": "Hill Canvas", "deploymentIds": ["deployment-1", "deployment-2"]])
            #expect(changed.status == .ok, "\(changed.text)")
            #expect(changed.string("platform.name") == "Hill Canvas")
            #expect((changed.value("platform.deploymentIds") as? [String])?.count == 2)
            #expect(changed.string("platform.issuer") == platform.issuer, "a field left out keeps its value")

            // Rollcall's key set: one RSA key, made once, and the same on every read.
            let keys = try await api.call(.get, "/lti/jwks")
            #expect(keys.list("keys").count == 1 && keys.list("keys")[0]["kty"] as? String == "RSA")
            #expect(try await api.call(.get, "/lti/jwks").text == keys.text)
            let rotated = try await api.call(.post, "/api/v1/admin/lti-keys/rotate", as: admin)
            let after = try await api.call(.get, "/lti/jwks").list("keys").compactMap { $0["kid"] as? String }
            #expect(after.count == 2 && after.first == rotated.string("kid"), "the old key stays published")

            let second = try await api.call(
                .post, "/api/v1/admin/lti-platforms", as: admin,
                json: [
                    "name": "Other", "issuer": "https://other.test", "clientId": "x", "deploymentIds": ["1"],
                    "authorizationUrl": "https://other.test/auth", "tokenUrl": "https://other.test/token",
                    "jwksUrl": "https://other.test/jwks",
                ])
            let secondID = try #require(second.int("platform.id"))
            #expect(
                try await api.call(.delete, "/api/v1/admin/lti-platforms/\(secondID)", as: admin).status
                    == .noContent)
            #expect(try await api.call(.get, "/api/v1/admin/lti-platforms", as: admin).list("platforms").count == 1)
        }
    }

    @Test func bad_registrations_are_refused_and_change_nothing() async throws {
        try await TestPlatform.run { api, platform, admin in
            let good: [String: Any] = [
                "name": "Brightspace", "issuer": "https://d2l.hill.test", "clientId": "abc-123",
                "deploymentIds": ["d-1"], "authorizationUrl": "https://d2l.hill.test/d2l/lti/authenticate",
                "tokenUrl": "https://auth.brightspace.com/core/connect/token",
                "jwksUrl": "https://d2l.hill.test/d2l/.well-known/jwks",
            ]
            func with(_ field: String, _ value: Any?) -> [String: Any] {
                var body = good
                body[field] = value
                return body
            }
            let path = "/api/v1/admin/lti-platforms"
            for (field, value, code) in [
                ("name", "", "invalid_name"), ("name", nil, "invalid_name"),
                ("issuer", "d2l.hill.test", "invalid_issuer"),
                ("issuer", nil, "invalid_issuer"), ("clientId", " ", "invalid_client_id"),
                ("deploymentIds", [String](), "invalid_deployment_ids"),
                ("deploymentIds", ["a", "a"], "invalid_deployment_ids"),
                ("authorizationUrl", "javascript:alert(1)", "invalid_authorization_url"),
                ("tokenUrl", "ftp://x.test/token", "invalid_token_url"), ("jwksUrl", "https://", "invalid_jwks_url"),
            ] as [(String, Any?, String)] {
                try await api.expectRefused(
                    .post, path, as: admin, json: with(field, value), status: .badRequest, code: code)
            }
            try await api.expectRefused(
                .post, path, as: admin, json: with("deploymentIds", "d-1"), status: .badRequest, code: "wrong_type")
            try await api.expectRefused(
                .post, path, as: admin,
                json: with("issuer", platform.issuer).merging(["clientId": TestPlatform.clientID]) { $1 },
                status: .conflict, code: "lti_platform_exists")
            try await api.expectRefused(
                .patch, "\(path)/999", as: admin, json: ["name": "X"], status: .notFound, code: "lti_platform_not_found"
            )
            try await api.expectRefused(
                .delete, "\(path)/999", as: admin, status: .notFound, code: "lti_platform_not_found")
            let teacher = try await api.register("Tess Teacher", role: "teacher")
            try await api.expectRefused(.post, path, as: teacher, json: good, status: .forbidden, code: "forbidden")
            try await api.expectRefused(
                .post, "/api/v1/admin/lti-keys/rotate", as: teacher, status: .forbidden, code: "forbidden")
        }
    }

    @Test func an_instructors_launch_links_a_course_brings_the_roster_and_makes_the_line_item() async throws {
        try await TestPlatform.run { api, platform, admin in
            Self.fillCourse(platform)
            let launch = try await PlatformLaunch.through(
                api, platform, subject: "t-1", role: TestPlatform.instructorRole)
            #expect(launch.status == .seeOther, "\(launch.text)")
            let location = try #require(launch.headers[.location])
            let courseID = try #require(Int64(location.replacingOccurrences(of: "/courses/", with: "")))
            let session = try #require(launch.sessionCookie)
            let cookie = try #require(launch.headers[values: .setCookie].first { $0.hasPrefix("rollcall_session=") })
            #expect(cookie.contains("SameSite=None") && cookie.contains("Secure"), "kept inside the platform's frame")
            let page = try await api.call(.get, location, headers: [.cookie: session])
            #expect(page.status == .ok && page.text.contains("Geology"), "\(page.status)")

            let roster = try await api.call(.get, "/api/v1/courses/\(courseID)/students", as: admin)
            #expect(
                roster.list("students").count == 40, "three pages of the platform's roster: \(roster.text.prefix(300))")
            let numbers = try await api.rows("SELECT student_number FROM users WHERE student_number LIKE 'H1%'")
            #expect(numbers.count == 40)
            let staff = try await api.call(.get, "/api/v1/courses/\(courseID)/staff", as: admin)
            #expect(staff.text.contains("Tom Rowe"), "\(staff.text)")
            let linked = try await api.rows("SELECT line_item_url, synced_at FROM lti_courses")
            #expect(linked.count == 1 && linked[0]["line_item_url"]??.hasSuffix("/lineitems/1") == true)
            #expect(platform.state.withLockedValue { $0.lineItems.count } == 1)
            #expect(platform.state.withLockedValue { $0.scopesAsked }.allSatisfy { !$0.contains("result") })

            // The same instructor again: the same course, no second line item, no second account.
            let again = try await PlatformLaunch.through(
                api, platform, subject: "t-1", role: TestPlatform.instructorRole)
            #expect(again.headers[.location] == location)
            #expect(platform.state.withLockedValue { $0.lineItems.count } == 1)
            #expect(try await api.rows("SELECT id FROM users WHERE email = 'tess@hill.test'").count == 1)

            // One student drops, one is renamed: "Sync roster" reports it, and the one who left keeps their records.
            platform.set { state in
                state.members[2].status = "Deleted"
                state.members[3].name = "Renamed Student"
            }
            let sync = try await api.call(.post, "/api/v1/courses/\(courseID)/lti/sync", as: admin)
            #expect(sync.status == .ok, "\(sync.text)")
            #expect(sync.int("sync.left") == 1 && sync.int("sync.updated") == 1 && sync.int("sync.enrolled") == 0)
            #expect(sync.string("message") == "From Hill Moodle: 1 marked as left, 1 updated.")
            #expect(
                try await api.call(.get, "/api/v1/courses/\(courseID)/students", as: admin).list("students").count == 39
            )
            #expect(try await api.rows("SELECT id FROM users WHERE name = 'Renamed Student'").count == 1)
        }
    }

    @Test func students_launch_into_the_course_and_their_grades_reach_the_platform_in_order() async throws {
        try await TestPlatform.run { api, platform, admin in
            Self.fillCourse(platform, students: 4)
            let first = try await PlatformLaunch.through(
                api, platform, subject: "t-1", role: TestPlatform.instructorRole)
            let courseID = try #require(first.headers[.location]).replacingOccurrences(of: "/courses/", with: "")
            let student = try await PlatformLaunch.through(
                api, platform, subject: "s-0", role: TestPlatform.learnerRole)
            #expect(student.headers[.location] == "/courses/\(courseID)", "\(student.text)")

            // A session in which two of four were present; its end sends every student's grade.
            let opened = try await api.call(
                .post, "/api/v1/courses/\(courseID)/sessions", as: admin, json: ["title": "Week 1"])
            let sessionID = try #require(opened.int("session.id"))
            let students = try await api.rows(
                "SELECT users.id, lti_identities.subject FROM users JOIN lti_identities ON user_id = users.id WHERE role = 'student'"
            )
            let ids = Dictionary(uniqueKeysWithValues: students.map { ($0["subject"]!!, $0["id"]!!) })
            for subject in ["s-0", "s-1"] {
                let marked = try await api.call(
                    .put, "/api/v1/sessions/\(sessionID)/attendance/\(try #require(ids[subject]))", as: admin,
                    json: ["status": "present"])
                #expect(marked.status == .ok, "\(marked.text)")
            }
            #expect(try await api.call(.post, "/api/v1/sessions/\(sessionID)/close", as: admin).status == .ok)
            #expect(try await Self.eventually { platform.scores.count == 4 }, "\(platform.scores)")
            let given = Dictionary(uniqueKeysWithValues: platform.scores.map { ($0.userID, $0.given) })
            #expect(given == ["s-0": 100, "s-1": 100, "s-2": 0, "s-3": 0], "\(given)")
            #expect(platform.scores.allSatisfy { $0.maximum == 100 && $0.grading == "FullyGraded" })
            #expect(platform.scores.allSatisfy { $0.activity == "InProgress" })
            let tokens = platform.state.withLockedValue { $0.issuedTokens.count }

            // The platform goes down; "Send grades now" queues them; nothing is lost and, once it is back, each
            // student's newest grade arrives once, after the older one.
            platform.set { $0.down = true }
            let marked = try await api.call(
                .put, "/api/v1/sessions/\(sessionID)/attendance/\(try #require(ids["s-2"]))", as: admin,
                json: ["status": "late"])
            #expect(marked.status == .ok, "\(marked.text)")
            let send = try await api.call(.post, "/api/v1/courses/\(courseID)/lti/grades", as: admin)
            #expect(send.int("queued") == 4, "\(send.text)")
            // A refused POST leaves its job waiting, with the platform's answer, on the admin's list of grades.
            #expect(
                try await Self.eventually {
                    try await api.rows(
                        """
                        SELECT id FROM jobs WHERE kind = 'lti_score' AND status = 'pending' AND attempts > 0
                          AND last_error LIKE '%HTTP 503%'
                        """
                    ).count > 0
                })
            try await GradeListTests.expectListed(api, admin: admin, students: ["Student 00", "Student 02"])
            let again = try await api.call(.post, "/api/v1/courses/\(courseID)/lti/grades", as: admin)
            #expect(again.int("queued") == 4)
            // The newer scores take the older ones' places; a score on its way at that moment gives way to its newer
            // one as soon as its attempt fails.
            #expect(
                try await Self.eventually {
                    try await api.rows("SELECT id FROM jobs WHERE kind = 'lti_score' AND status = 'pending'").count == 4
                })
            platform.set { $0.down = false }
            #expect(try await Self.eventually { platform.scores.count == 8 }, "\(platform.scores.count)")
            let late = platform.scores.last { $0.userID == "s-2" }
            #expect(
                late?.given == 80 || late?.given == 100 || (late?.given ?? 0) > 0,
                "late counts: \(String(describing: late))")
            #expect(platform.state.withLockedValue { $0.refusedScores } == 0, "never out of order")
            let jobs = try await api.rows("SELECT status FROM jobs WHERE kind = 'lti_score'").map {
                $0["status"] ?? nil
            }
            #expect(jobs.filter { $0 == "done" }.count == 8, "\(jobs)")
            #expect(jobs.filter { $0 != "done" }.allSatisfy { $0 == "superseded" }, "the first grades were not sent")
            #expect(platform.state.withLockedValue { $0.issuedTokens.count } <= tokens + 1, "the token is kept")
        }
    }

    /// The explanation beside a score is read in the platform's gradebook by everyone of the course: the course's
    /// language, else the school's, whoever sends it; never the language of whoever pressed "Send grades now".
    @Test func a_grades_explanation_is_the_same_from_send_grades_now_in_french_and_from_the_background_round()
        async throws
    {
        try await TestPlatform.run { api, platform, admin in
            Self.fillCourse(platform, students: 2)
            let first = try await PlatformLaunch.through(
                api, platform, subject: "t-1", role: TestPlatform.instructorRole)
            let courseID = try #require(first.headers[.location]).replacingOccurrences(of: "/courses/", with: "")
            let opened = try await api.call(
                .post, "/api/v1/courses/\(courseID)/sessions", as: admin, json: ["title": "Week 1"])
            let sessionID = try #require(opened.int("session.id"))
            let student = try #require(
                try await api.rows(
                    "SELECT user_id FROM lti_identities WHERE subject = 's-0'"
                ).first?["user_id"] ?? nil)
            let marked = try await api.call(
                .put, "/api/v1/sessions/\(sessionID)/attendance/\(student)", as: admin, json: ["status": "present"])
            #expect(marked.status == .ok, "\(marked.text)")
            #expect(try await api.call(.post, "/api/v1/sessions/\(sessionID)/close", as: admin).status == .ok)
            /// The explanations of the score jobs for `s-0`: a newer job of a key may replace a waiting one in place,
            /// so what counts is which explanations there are.
            func explanations() async throws -> Set<String> {
                let payloads = try await api.rows("SELECT payload FROM jobs WHERE kind = 'lti_score'")
                return Set(
                    try payloads.compactMap { row in
                        let payload = try #require(row["payload"] ?? nil)
                        let job = try JSONSerialization.jsonObject(with: Data(payload.utf8)) as? [String: Any]
                        let score = job?["score"] as? [String: Any]
                        return score?["userId"] as? String == "s-0" ? score?["comment"] as? String : nil
                    })
            }
            #expect(try await Self.eventually { try await explanations().count == 1 }, "the background round")
            let background = try await explanations()

            // Someone reading French sends the same grades now.
            #expect(try await api.call(.patch, "/api/v1/me", as: admin, json: ["language": "fr"]).status == .ok)
            let send = try await api.call(.post, "/api/v1/courses/\(courseID)/lti/grades", as: admin)
            #expect(send.int("queued") == 2, "\(send.text)")
            let sent = try await explanations()
            #expect(sent == background, "one explanation whoever sends it: \(sent)")
            // The sender reads that explanation in French on Rollcall's own pages; the platform does not.
            let french = try await api.call(
                .get, "/api/v1/courses/\(courseID)/students/\(student)/attendance", as: admin)
            let theirs = try #require(french.string("explanations.courseGrade"))
            #expect(!sent.contains(theirs), "the sender's French stays on Rollcall's side: \(theirs)")
        }
    }

    @Test func deep_linking_places_rollcall_with_a_response_signed_by_rollcalls_key() async throws {
        try await TestPlatform.run { api, platform, _ in
            let launch = try await PlatformLaunch.begin(api, platform)
            let token = try platform.launchToken(nonce: launch.nonce, subject: "t-1", role: TestPlatform.instructorRole)
            {
                $0[LTI.Claim.messageType] = "LtiDeepLinkingRequest"
                $0[LTI.Claim.resourceLink] = nil
                $0[LTI.Claim.deepLinkingSettings] = [
                    "deep_link_return_url": "\(platform.issuer)/deep-link-return", "data": "opaque-7",
                    "accept_types": ["ltiResourceLink"],
                ]
            }
            let page = try await launch.post(api, idToken: token)
            #expect(page.status == .ok, "\(page.text)")
            #expect(page.text.contains("action=\"\(platform.issuer)/deep-link-return\""))
            let jwt = String(try #require(page.text.firstMatch(of: /name="JWT" value="([^"]+)"/)?.1))
            let claims = try await platform.verifyTool(jwt)
            #expect(claims["iss"] as? String == TestPlatform.clientID && claims["aud"] as? String == platform.issuer)
            #expect(claims[LTI.Claim.messageType] as? String == "LtiDeepLinkingResponse")
            #expect(claims[LTI.Claim.deploymentID] as? String == TestPlatform.deployment)
            #expect(claims[LTI.Claim.deepLinkingData] as? String == "opaque-7")
            let item = try #require((claims[LTI.Claim.contentItems] as? [[String: Any]])?.first)
            #expect(
                item["type"] as? String == "ltiResourceLink"
                    && item["url"] as? String == "http://rollcall.test/lti/launch")
            #expect((item["lineItem"] as? [String: Any])?["resourceId"] as? String == LTI.lineItemResourceID)

            // Once the course has its column (made on an instructor's launch), a link placed later asks for none.
            _ = try await PlatformLaunch.through(api, platform, subject: "t-1", role: TestPlatform.instructorRole)
            #expect(platform.state.withLockedValue { $0.lineItems.count } == 1)
            let later = try await PlatformLaunch.begin(api, platform)
            let again = try await later.post(
                api,
                idToken: try platform.launchToken(nonce: later.nonce, subject: "t-1", role: TestPlatform.instructorRole)
                {
                    $0[LTI.Claim.messageType] = "LtiDeepLinkingRequest"
                    $0[LTI.Claim.resourceLink] = nil
                    $0[LTI.Claim.deepLinkingSettings] = ["deep_link_return_url": "\(platform.issuer)/deep-link-return"]
                })
            let secondJWT = String(try #require(again.text.firstMatch(of: /name="JWT" value="([^"]+)"/)?.1))
            let secondClaims = try await platform.verifyTool(secondJWT)
            let second = try #require((secondClaims[LTI.Claim.contentItems] as? [[String: Any]])?.first)
            #expect(second["lineItem"] == nil, "no second Attendance column")
        }
    }

    @Test func grades_that_could_not_be_queued_while_the_platform_was_down_are_queued_once_it_is_back() async throws {
        try await TestPlatform.run { api, platform, admin in
            Self.fillCourse(platform, students: 2)
            platform.set { $0.down = true }
            let first = try await PlatformLaunch.through(
                api, platform, subject: "t-1", role: TestPlatform.instructorRole)
            let courseID = try #require(first.headers[.location]).replacingOccurrences(of: "/courses/", with: "")
            #expect(try await api.rows("SELECT line_item_url FROM lti_courses")[0]["line_item_url"] == .some(nil))
            // The roster could not come either: the students launch, and come in by their launch.
            platform.set { $0.down = false }
            _ = try await PlatformLaunch.through(api, platform, subject: "s-0", role: TestPlatform.learnerRole)
            platform.set { $0.down = true }
            let opened = try await api.call(
                .post, "/api/v1/courses/\(courseID)/sessions", as: admin, json: ["title": "Week 1"])
            let sessionID = try #require(opened.int("session.id"))
            #expect(try await api.call(.post, "/api/v1/sessions/\(sessionID)/close", as: admin).status == .ok)
            // A round of the grade return finds the platform away, and puts its mark back.
            let unavailable = platform.state.withLockedValue { $0.unavailable }
            #expect(try await Self.eventually { platform.state.withLockedValue { $0.unavailable } > unavailable })
            let marks = try await api.rows("SELECT graded_through FROM lti_courses")
            #expect(marks[0]["graded_through"] == .some(nil), "\(marks)")
            platform.set { $0.down = false }
            #expect(try await Self.eventually { platform.scores.count == 1 }, "\(platform.scores)")
            #expect(platform.scores.first?.userID == "s-0" && platform.scores.first?.given == 0)
        }
    }

    @Test func a_frame_that_keeps_no_cookie_opens_rollcall_in_a_new_window_once() async throws {
        try await TestPlatform.run { api, platform, _ in
            Self.fillCourse(platform, students: 1)
            _ = try await PlatformLaunch.through(api, platform, subject: "t-1", role: TestPlatform.instructorRole)
            let launch = try await PlatformLaunch.begin(api, platform)
            let page = try await launch.post(
                api,
                idToken: try platform.launchToken(nonce: launch.nonce, subject: "s-0", role: TestPlatform.learnerRole),
                browser: .some(nil))
            #expect(page.status == .ok && page.sessionCookie == nil, "\(page.text)")
            let href = String(try #require(page.text.firstMatch(of: /id="lti-open" href="([^"]+)"/)?.1))
            #expect(page.headers[.contentSecurityPolicy]?.contains("frame-ancestors \(platform.issuer)") == true)
            #expect(page.text.contains("continue as Student 00"), "the page names the person")
            // The link signs nobody in by itself: the new window logs in at the platform again, as a window of its
            // own, and the platform launches whoever is signed in to it in that browser.
            let opened = try await api.call(.get, href.replacingOccurrences(of: "&amp;", with: "&"))
            #expect(opened.status == .found && opened.sessionCookie == nil, "\(opened.text)")
            let location = try #require(opened.headers[.location].flatMap(URLComponents.init(string:)))
            func item(_ name: String) -> String? { location.queryItems?.first { $0.name == name }?.value }
            #expect(location.string?.hasPrefix("\(platform.issuer)/auth?") == true && item("login_hint") == "hint-1")
            let cookie = try #require(opened.headers[values: .setCookie].first { $0.hasPrefix("rollcall_lti=") })
            let relaunch = PlatformLaunch(
                state: try #require(item("state")), nonce: try #require(item("nonce")),
                browser: String(cookie.prefix { $0 != ";" }))
            let signedIn = try await relaunch.post(
                api,
                idToken: try platform.launchToken(nonce: relaunch.nonce, subject: "s-0", role: TestPlatform.learnerRole)
            )
            #expect(signedIn.status == .seeOther && signedIn.sessionCookie != nil, "\(signedIn.text)")
            #expect(signedIn.headers[.location]?.hasPrefix("/courses/") == true)
            let twice = try await api.call(
                .get, href.replacingOccurrences(of: "&amp;", with: "&"), headers: [.accept: "application/json"])
            #expect(twice.status == .badRequest && twice.errorCode == "lti_state_invalid")
        }
    }

    @Test func every_launch_that_breaks_a_rule_is_refused_and_leaves_nobody_behind() async throws {
        try await TestPlatform.run { api, platform, _ in
            let other = TestPlatform.Key.unpublished
            let good = platform.published[0]
            /// A launch with `token(nonce)`: refused with `code`, no account and no course made.
            func refused(
                _ what: String, code: String = "lti_launch_refused", status: HTTPResponse.Status = .forbidden,
                token: (String) throws -> String
            ) async throws {
                let launch = try await PlatformLaunch.begin(api, platform)
                let before = try await api.rows("SELECT id FROM users").count
                let reply = try await launch.post(api, idToken: try token(launch.nonce), json: true)
                #expect(reply.status == status && reply.errorCode == code, "\(what): \(reply.text)")
                #expect(try await api.rows("SELECT id FROM users").count == before, "\(what) made an account")
                #expect(try await api.rows("SELECT id FROM lti_courses").isEmpty, "\(what) linked a course")
            }
            func signed(
                _ nonce: String, header: [String: Any]? = nil, key: TestPlatform.Key? = nil,
                _ change: (inout [String: Any]) -> Void = { _ in }
            ) throws -> String {
                try TestPlatform.token(
                    header: header ?? ["alg": "RS256", "kid": good.kid],
                    claims: platform.claims(nonce: nonce, subject: "t-1", role: TestPlatform.instructorRole, change),
                    key: key ?? good)
            }
            try await refused("no kid") { try signed($0, header: ["alg": "RS256"]) }
            // A refusal after the signature checked out: the platform's keys are in hand from here on.
            try await refused("wrong version") { try signed($0) { $0[LTI.Claim.version] = "1.1.0" } }
            let fetches = platform.keyFetches
            try await refused("a kid the platform does not publish") {
                try signed($0, header: ["alg": "RS256", "kid": other.kid], key: other)
            }
            #expect(platform.keyFetches == fetches + 1, "an unknown kid fetches the key set again, once")
            try await refused("signed by another key under the platform's kid") {
                try signed($0, header: ["alg": "RS256", "kid": good.kid], key: other)
            }
            try await refused("HS256") { try signed($0, header: ["alg": "HS256", "kid": good.kid]) }
            try await refused("alg none") { try signed($0, header: ["alg": "none", "kid": good.kid], key: nil) }
            try await refused("not a token") { _ in "garbage" }
            try await refused("wrong version") { try signed($0) { $0[LTI.Claim.version] = "1.1.0" } }
            try await refused("a JWT that is no LTI message") {
                try signed($0) {
                    $0[LTI.Claim.version] = nil
                    $0[LTI.Claim.messageType] = nil
                }
            }
            try await refused("unknown message type") { try signed($0) { $0[LTI.Claim.messageType] = "Other" } }
            try await refused("unknown deployment") { try signed($0) { $0[LTI.Claim.deploymentID] = "elsewhere" } }
            try await refused("no roles") { try signed($0) { $0[LTI.Claim.roles] = nil } }
            try await refused("no resource link id") { try signed($0) { $0[LTI.Claim.resourceLink] = [:] } }
            try await refused("no subject") { try signed($0) { $0["sub"] = nil } }
            try await refused("wrong issuer") { try signed($0) { $0["iss"] = "https://evil.test" } }
            try await refused("wrong audience") { try signed($0) { $0["aud"] = "another-tool" } }
            try await refused("wrong azp") { try signed($0) { $0["azp"] = "another-tool" } }
            try await refused("expired") { try signed($0) { $0["exp"] = Int(Date().timeIntervalSince1970) - 600 } }
            try await refused("issued in the future") {
                try signed($0) { $0["iat"] = Int(Date().timeIntervalSince1970) + 600 }
            }
            try await refused("another nonce") { _ in try signed("another") }

            // The state: once, from this browser.
            let launch = try await PlatformLaunch.begin(api, platform)
            let token = try platform.launchToken(nonce: launch.nonce, subject: "t-1", role: TestPlatform.instructorRole)
            let otherBrowser = try await launch.post(
                api, idToken: token, browser: "rollcall_lti=someone-else", json: true)
            #expect(otherBrowser.status == .badRequest && otherBrowser.errorCode == "lti_state_invalid")
            let used = try await launch.post(api, idToken: token, json: true)
            #expect(used.status == .badRequest && used.errorCode == "lti_state_invalid", "the state is used once")
            let none = try await api.call(
                .post, "/lti/launch", raw: Array("id_token=\(token)".utf8),
                contentType: "application/x-www-form-urlencoded", headers: [.accept: "application/json"])
            #expect(none.errorCode == "lti_state_invalid")

            // A refusal is a page that says what was wrong.
            let page = try await PlatformLaunch.begin(api, platform)
            let shown = try await page.post(api, idToken: try signed(page.nonce) { $0[LTI.Claim.version] = "1.1.0" })
            #expect(shown.status == .forbidden && shown.text.contains("Rollcall speaks 1.3.0"), "\(shown.text)")

            // The login initiation: a platform not registered, a deployment not registered, a target elsewhere.
            for (query, what) in [
                ("iss=https://evil.test&login_hint=x&target_link_uri=http://rollcall.test/lti/launch", "issuer"),
                (
                    "iss=\(platform.issuer)&login_hint=x&target_link_uri=http://rollcall.test/&lti_deployment_id=d-9",
                    "deployment"
                ),
                ("iss=\(platform.issuer)&login_hint=x&target_link_uri=https://evil.test/lti/launch", "target"),
                ("iss=\(platform.issuer)&target_link_uri=http://rollcall.test/", "hint"),
            ] {
                let before = try await api.rows("SELECT state_hash FROM lti_logins").count
                let reply = try await api.call(.get, "/lti/login?\(query)", headers: [.accept: "application/json"])
                #expect(
                    reply.status == .badRequest && reply.errorCode == "lti_launch_refused", "\(what): \(reply.text)")
                #expect(try await api.rows("SELECT state_hash FROM lti_logins").count == before, "\(what) kept a login")
            }
            // The login as a form post, as some platforms send it.
            let posted = try await api.call(
                .post, "/lti/login",
                raw: Array("iss=\(platform.issuer)&login_hint=x&target_link_uri=http://rollcall.test/lti/launch".utf8),
                contentType: "application/x-www-form-urlencoded")
            #expect(posted.status == .found, "\(posted.text)")
        }
    }

    @Test func an_erased_person_is_no_longer_linked_and_their_unsent_grade_goes_too() async throws {
        try await TestPlatform.run { api, platform, admin in
            Self.fillCourse(platform, students: 1)
            let first = try await PlatformLaunch.through(
                api, platform, subject: "t-1", role: TestPlatform.instructorRole)
            let courseID = try #require(first.headers[.location]).replacingOccurrences(of: "/courses/", with: "")
            _ = try await PlatformLaunch.through(api, platform, subject: "s-0", role: TestPlatform.learnerRole)
            let before = try #require(
                try await api.rows("SELECT user_id FROM lti_identities WHERE subject = 's-0'").first?["user_id"] ?? nil)
            platform.set { $0.down = true }
            #expect(try await api.call(.post, "/api/v1/courses/\(courseID)/lti/grades", as: admin).int("queued") == 1)
            let erased = try await api.call(.delete, "/api/v1/admin/users/\(before)", as: admin)
            #expect(erased.status == .noContent, "\(erased.text)")
            #expect(try await api.rows("SELECT user_id FROM lti_identities WHERE subject = 's-0'").isEmpty)
            #expect(
                try await api.rows("SELECT id FROM jobs WHERE kind = 'lti_score'").isEmpty,
                "no grade of theirs is sent after they are gone")
            platform.set { $0.down = false }
            _ = try await PlatformLaunch.through(api, platform, subject: "s-0", role: TestPlatform.learnerRole)
            let after = try await api.rows("SELECT user_id FROM lti_identities WHERE subject = 's-0'")
            #expect(after.count == 1 && after[0]["user_id"] != .some(before), "a new account, not the emptied one")
        }
    }

    @Test func a_platform_registers_rollcall_itself_with_a_url_that_works_once() async throws {
        try await TestPlatform.serving { platform in
            try await withServer(setup: .live, configure: TestPlatform.configure) { api in
                let admin = try await api.admin()
                let made = try await api.call(.post, "/api/v1/admin/lti-registration-links", as: admin)
                #expect(made.status == .created, "\(made.text)")
                let url = try #require(made.string("url"))
                #expect(url.hasPrefix("http://rollcall.test/lti/register?secret="))
                let path = String(url.dropFirst("http://rollcall.test".count))
                let configuration = "\(platform.issuer)/.well-known/openid-configuration"
                let query = "&openid_configuration=\(configuration)&registration_token=registration-token-1"

                // Refused by the platform, or a configuration that names another issuer: the URL still works after.
                platform.set { $0.refuseRegistration = true }
                let refused = try await api.call(.get, path + query, headers: [.accept: "application/json"])
                #expect(refused.status == .badRequest && refused.errorCode == "lti_launch_refused", "\(refused.text)")
                platform.set { $0.refuseRegistration = false }
                let elsewhere = try await api.call(
                    .get, path + "&openid_configuration=\(platform.issuer)/.well-known/../elsewhere",
                    headers: [.accept: "application/json"])
                #expect(elsewhere.status != .ok)
                #expect(try await api.rows("SELECT id FROM lti_platforms").isEmpty)

                let page = try await api.call(.get, path + query)
                #expect(page.status == .ok && page.text.contains("lti-registered.js"), "\(page.text)")
                let registered = try await api.call(.get, "/api/v1/admin/lti-platforms", as: admin).list("platforms")
                #expect(registered.count == 1)
                #expect(registered.first?["clientId"] as? String == "dynamic-client-7")
                #expect(registered.first?["deploymentIds"] as? [String] == ["dynamic-deployment-1"])
                #expect(registered.first?["name"] as? String == "moodle at 127.0.0.1")
                let sentData = try #require(platform.state.withLockedValue { $0.registrations }.last)
                let sent = try #require(try JSONSerialization.jsonObject(with: sentData) as? [String: Any])
                #expect(sent["initiate_login_uri"] as? String == "http://rollcall.test/lti/login")
                #expect(sent["redirect_uris"] as? [String] == ["http://rollcall.test/lti/launch"])
                #expect(sent["token_endpoint_auth_method"] as? String == "private_key_jwt")

                let again = try await api.call(.get, path + query, headers: [.accept: "application/json"])
                #expect(again.status == .badRequest && again.errorCode == "lti_state_invalid", "used once")
                let unknown = try await api.call(
                    .get, "/lti/register?secret=made-up" + query, headers: [.accept: "application/json"])
                #expect(unknown.errorCode == "lti_state_invalid")
            }
        }
    }

    @Test func a_teacher_links_their_account_and_picks_their_course_never_by_address_alone() async throws {
        try await TestPlatform.run { api, platform, admin in
            Self.fillCourse(platform, students: 2)
            platform.set { $0.members[0].email = "ines@hill.test" }
            // Ines has used Rollcall on her own: an account with the address the platform gives, and a course.
            let ines = try await api.register("Ines Ortega", role: "teacher", email: "ines@hill.test")
            let biology = try await api.call(.post, "/api/v1/courses", as: ines, json: ["name": "Biology 101"])
            let biologyID = try #require(biology.int("course.id"))

            let launch = try await PlatformLaunch.through(
                api, platform, subject: "t-1", role: TestPlatform.instructorRole)
            #expect(launch.status == .ok && launch.sessionCookie == nil, "not signed in to anyone yet: \(launch.text)")
            let href = String(try #require(launch.text.firstMatch(of: /id="lti-open" href="([^"]+)"/)?.1))
            let code = String(try #require(href.firstMatch(of: /code=([^&"]+)/)?.1))
            #expect(try await api.rows("SELECT user_id FROM lti_identities").isEmpty, "nothing linked by the address")
            let page = try await api.call(.get, href)
            #expect(page.status == .ok && page.text.contains("Sign in as ines@hill.test"), "\(page.status)")

            // Someone else signed in cannot link Ines's account; the launch still waits.
            let other = try await api.register("Other Person")
            try await api.expectRefused(
                .post, "/api/v1/lti-pending/\(code)", as: other, json: ["link": true], status: .forbidden,
                code: "lti_launch_refused")
            try await api.expectRefused(
                .post, "/api/v1/lti-pending/\(code)", as: ines, json: [String: Any](), status: .badRequest,
                code: "missing_field")
            // Ines, signed in, links it: she teaches Biology 101, so she is asked which course this is.
            let linked = try await api.call(.post, "/api/v1/lti-pending/\(code)", as: ines, json: ["link": true])
            #expect(linked.status == .ok && linked.sessionCookie != nil, "\(linked.text)")
            let next = try #require(linked.string("next"))
            #expect(next.hasPrefix("/lti/course?code="))
            let identities = try await api.rows("SELECT user_id FROM lti_identities WHERE subject = 't-1'")
            #expect(identities.first?["user_id"] == .some(String(ines.id)))
            let choice = try await api.call(.get, next, headers: [.cookie: try #require(linked.sessionCookie)])
            #expect(choice.status == .ok && choice.text.contains("Biology 101") && choice.text.contains("Geology"))
            let courseCode = String(next.dropFirst("/lti/course?code=".count))
            let stranger = try await api.teacherWithCourse("Tom Stranger")
            try await api.expectRefused(
                .post, "/api/v1/lti-pending/\(courseCode)", as: ines, json: ["courseId": stranger.1],
                status: .badRequest, code: "invalid_course_id")
            try await api.expectRefused(
                .post, "/api/v1/lti-pending/\(courseCode)", as: stranger.0, json: ["courseId": biologyID],
                status: .forbidden, code: "lti_launch_refused")
            let picked = try await api.call(
                .post, "/api/v1/lti-pending/\(courseCode)", as: ines, json: ["courseId": biologyID])
            #expect(picked.string("next") == "/courses/\(biologyID)", "\(picked.text)")
            let roster = try await api.call(.get, "/api/v1/courses/\(biologyID)/students", as: ines)
            #expect(roster.list("students").count == 2, "the platform's roster came into Biology 101")
            try await api.expectRefused(
                .post, "/api/v1/lti-pending/\(courseCode)", as: ines, json: ["courseId": biologyID],
                status: .badRequest, code: "lti_state_invalid")
            // From now on her launches sign in to her account, straight to the course.
            let again = try await PlatformLaunch.through(
                api, platform, subject: "t-1", role: TestPlatform.instructorRole)
            #expect(again.headers[.location] == "/courses/\(biologyID)", "\(again.text)")

            // A platform course picks another course of hers; a second one that checked the same course before the
            // first was linked (as a request racing it would) is refused when it links, and nothing is linked twice.
            let chemistry = try await api.call(.post, "/api/v1/courses", as: ines, json: ["name": "Chemistry"])
            let chemistryID = try #require(chemistry.int("course.id"))
            let launched = try await PlatformLaunch.through(
                api, platform, subject: "t-1", role: TestPlatform.instructorRole
            ) { $0[LTI.Claim.context] = ["id": "course-2", "title": "Geology 2"] }
            let choice2 = String(try #require(launched.headers[.location]).dropFirst("/lti/course?code=".count))
            let pick = try await api.call(
                .post, "/api/v1/lti-pending/\(choice2)", as: ines, json: ["courseId": chemistryID])
            #expect(pick.string("next") == "/courses/\(chemistryID)", "\(pick.text)")
            let late = try JSONDecoder().decode(
                LTI.Launch.self,
                from: try JSONSerialization.data(withJSONObject: [
                    "messageType": "LtiResourceLinkRequest", "issuer": platform.issuer, "subject": "t-1",
                    "deploymentID": TestPlatform.deployment, "role": "teacher", "gradeScopes": [String](),
                ]))
            let refusal = try await api.database().closing { database in
                let store = PlatformCourses(database: database, courses: CourseStore(database: database))
                let platformID = try #require(try await PlatformStore(database: database).list().first?.id)
                do {
                    _ = try await store.link(
                        late, context: .init(id: "course-3", title: "Geology 3"), platformID: platformID,
                        teacherID: ines.id, existing: chemistryID)
                    return String?.none
                } catch let error as AppError {
                    return error.code
                }
            }
            #expect(refusal == "lti_course_linked")
            #expect(try await api.rows("SELECT id FROM lti_courses WHERE course_id = \(chemistryID)").count == 1)

            // A student whose address Rollcall knows goes on with a new account instead.
            _ = try await api.register("Zed Late", email: "zed@hill.test")
            platform.set {
                $0.members.append(
                    .init(userID: "s-9", name: "Zed Late", email: "zed@hill.test", role: TestPlatform.learnerRole))
            }
            let student = try await PlatformLaunch.through(
                api, platform, subject: "s-9", role: TestPlatform.learnerRole)
            let studentCode = String(try #require(student.text.firstMatch(of: /code=([^&"]+)/)?.1))
            let fresh = try await api.call(.post, "/api/v1/lti-pending/\(studentCode)", json: ["link": false])
            #expect(fresh.string("next") == "/courses/\(biologyID)" && fresh.sessionCookie != nil, "\(fresh.text)")
            let accounts = try await api.rows(
                "SELECT users.email FROM lti_identities JOIN users ON users.id = user_id WHERE subject = 's-9'")
            #expect(
                accounts.count == 1 && accounts.first?["email"] != .some("zed@hill.test"),
                "a new account, not the one by address: \(accounts)")
            _ = admin
        }
    }

    @Test func a_course_not_linked_says_so() async throws {
        try await TestPlatform.run { api, platform, admin in
            let (teacher, courseID, _) = try await api.teacherWithCourse()
            try await api.expectRefused(
                .post, "/api/v1/courses/\(courseID)/lti/sync", as: teacher, status: .notFound, code: "lti_not_linked")
            try await api.expectRefused(
                .post, "/api/v1/courses/\(courseID)/lti/grades", as: teacher, status: .notFound, code: "lti_not_linked")
            // A learner before any instructor set the course up.
            let launch = try await PlatformLaunch.begin(api, platform)
            let reply = try await launch.post(
                api,
                idToken: try platform.launchToken(nonce: launch.nonce, subject: "s-9", role: TestPlatform.learnerRole),
                json: true)
            #expect(reply.status == .notFound && reply.errorCode == "course_not_found", "\(reply.text)")
            _ = admin
        }
    }
}

/// Launches released at the same instant, on one server or spread over two processes on PostgreSQL: one course for a
/// platform course, one account for a platform person.
@Suite("Learning platforms, launches at once", .timeLimit(.minutes(3)))
struct LearningPlatformRacesTests {
    @Test(arguments: RaceGround.allCases)
    func launches_at_once_link_one_course_and_make_one_account_each(ground: RaceGround) async throws {
        try await TestPlatform.serving { platform in
            try await ground.run(configure: TestPlatform.configure) { servers, database in
                let admin = try await servers[0].admin()
                try await platform.register(at: servers[0], by: admin)
                LearningPlatformTests.fillCourse(platform, students: 3)
                // The logins first, each on one process; the launches then go to the other, all at once.
                var logins: [PlatformLaunch] = []
                for index in 0..<8 { logins.append(try await PlatformLaunch.begin(servers[index % 2], platform)) }
                let tokens = try logins.map {
                    try platform.launchToken(nonce: $0.nonce, subject: "t-1", role: TestPlatform.instructorRole)
                }
                let started = logins
                let replies = try await RacesTests.atOnce(8, over: servers.reversed()) { api, index in
                    try await started[index].post(api, idToken: tokens[index])
                }
                #expect(replies.allSatisfy { $0.status == .seeOther }, "\(replies.map(\.status))")
                let locations = replies.compactMap { $0.headers[.location] }
                #expect(Set(locations).count == 1, "one course for all: \(locations)")
                let counts = try await database.read { sql in
                    (
                        try await sql.raw("SELECT id FROM lti_courses").all().count,
                        try await sql.raw("SELECT id FROM courses").all().count,
                        try await sql.raw("SELECT user_id FROM lti_identities").all().count,
                        try await sql.raw("SELECT student_id FROM enrollments").all().count
                    )
                }
                #expect(counts.0 == 1 && counts.1 == 1, "one link, and no course left over: \(counts)")
                #expect(
                    counts.2 == 5 && counts.3 == 3, "the teacher, the assistant and 3 students, once each: \(counts)")

                // A session ends: of the processes' grade rounds, one queues the grades, once.
                let courseID = try #require(replies.first?.headers[.location]).replacingOccurrences(
                    of: "/courses/", with: "")
                let opened = try await servers[1].call(
                    .post, "/api/v1/courses/\(courseID)/sessions", as: admin, json: ["title": "Week 1"])
                let sessionID = try #require(opened.int("session.id"), "\(opened.text)")
                #expect(
                    try await servers[0].call(.post, "/api/v1/sessions/\(sessionID)/close", as: admin).status == .ok)
                #expect(try await LearningPlatformTests.eventually { platform.scores.count == 3 }, "\(platform.scores)")
                let letters = try await database.read { sql in
                    try await sql.raw("SELECT id FROM jobs WHERE kind = 'lti_score'").all().count
                }
                #expect(letters == 3 && platform.scores.count == 3, "queued once: \(letters) score jobs")
                // The claim itself, asked by eight rounds at the same instant: one wins.
                let store = PlatformCourses(database: database, courses: CourseStore(database: database))
                let linkedID = try await database.read { sql in
                    try await sql.raw("SELECT id FROM lti_courses").first(decodingColumn: "id", as: Int64.self)
                }
                let later = Date().addingTimeInterval(3600)
                let wins = try await withThrowingTaskGroup(of: Bool.self) { group in
                    for _ in 0..<8 {
                        group.addTask {
                            try await store.claimGrading(linkedCourseID: try #require(linkedID), through: later)
                        }
                    }
                    return try await group.reduce(0) { $0 + ($1 ? 1 : 0) }
                }
                #expect(wins == 1)

                // One student's launch sent twice at once, before any account of theirs exists.
                var twice: [PlatformLaunch] = []
                for index in 0..<2 { twice.append(try await PlatformLaunch.begin(servers[index], platform)) }
                let again = twice
                platform.set {
                    $0.members.append(
                        .init(
                            userID: "s-new", name: "New Student", email: "new@hill.test", role: TestPlatform.learnerRole
                        ))
                }
                let student = try twice.map {
                    try platform.launchToken(nonce: $0.nonce, subject: "s-new", role: TestPlatform.learnerRole)
                }
                let both = try await RacesTests.atOnce(2, over: servers) { api, index in
                    try await again[index].post(api, idToken: student[index])
                }
                #expect(both.allSatisfy { $0.status == .seeOther }, "\(both.map(\.status)) \(both.map(\.text))")
                let accounts = try await database.read { sql in
                    try await sql.raw("SELECT id FROM users WHERE email = 'new@hill.test'").all().count
                }
                #expect(accounts == 1)
            }
        }
    }
}
