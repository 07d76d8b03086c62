import Foundation
import RollcallCore
import Testing

@Suite("LTI 1.3 rules", .timeLimit(.minutes(5)))
struct LTITests {
    static let now = Date(timeIntervalSince1970: 1_800_000_000)
    static let registration = LTI.Registration(
        issuer: "https://canvas.school.test", clientID: "10000000000042", deploymentIDs: ["1:abc", "2:def"])
    static let instructor = "http://purl.imsglobal.org/vocab/lis/v2/membership#Instructor"
    static let learner = "http://purl.imsglobal.org/vocab/lis/v2/membership#Learner"

    /// A resource link launch that passes every check; each case below breaks one thing.
    static func payload(_ change: (inout [String: Any]) -> Void = { _ in }) -> [String: Any] {
        var payload: [String: Any] = [
            "iss": registration.issuer, "aud": registration.clientID, "sub": "a6d5c443-1f51-4783-ba1a-7686ffe3b54a",
            "exp": NSNumber(value: now.timeIntervalSince1970 + 300),
            "iat": NSNumber(value: now.timeIntervalSince1970 - 5), "nonce": "n-1",
            "name": "Ada Hill", "email": "ada@hill.test",
            LTI.Claim.messageType: "LtiResourceLinkRequest", LTI.Claim.version: "1.3.0",
            LTI.Claim.deploymentID: "2:def", LTI.Claim.roles: [learner],
            LTI.Claim.resourceLink: ["id": "link-1", "title": "Rollcall attendance"],
            LTI.Claim.context: ["id": "course-7", "label": "GEO 101", "title": "Geology"],
            LTI.Claim.lis: ["person_sourcedid": "s-4711"],
            LTI.Claim.namesRoles: ["context_memberships_url": "https://canvas.school.test/nrps/7"],
            LTI.Claim.gradeEndpoint: [
                "lineitems": "https://canvas.school.test/ags/7/lineitems",
                "scope": [LTI.Scope.lineItems, LTI.Scope.scores],
            ],
        ]
        change(&payload)
        return payload
    }

    static func check(_ payload: [String: Any]) -> Result<LTI.Launch, LTI.Refusal> {
        do throws(LTI.Refusal) {
            return .success(try LTI.launch(payload, registration: registration, nonce: "n-1", now: now))
        } catch {
            return .failure(error)
        }
    }

    static func refusal(_ change: (inout [String: Any]) -> Void) -> LTI.Refusal? {
        if case .failure(let refusal) = check(payload(change)) { return refusal }
        return nil
    }

    @Test func a_learners_launch_passes_with_everything_it_carries() throws {
        let launch = try Self.check(Self.payload()).get()
        #expect(launch.messageType == .resourceLink && launch.role == .student)
        #expect(launch.subject == "a6d5c443-1f51-4783-ba1a-7686ffe3b54a" && launch.deploymentID == "2:def")
        #expect(launch.context == LTI.Context(id: "course-7", title: "Geology"))
        #expect(launch.resourceLinkID == "link-1" && launch.studentNumber == "s-4711")
        #expect(launch.membershipsURL == "https://canvas.school.test/nrps/7")
        #expect(launch.lineItemsURL == "https://canvas.school.test/ags/7/lineitems" && launch.lineItemURL == nil)
        #expect(launch.name == "Ada Hill" && launch.email == "ada@hill.test")
    }

    @Test func the_name_is_made_of_given_and_family_names_when_there_is_no_full_name() throws {
        let launch = try Self.check(
            Self.payload {
                $0["name"] = nil
                $0["given_name"] = "Ada"
                $0["family_name"] = "Hill"
            }
        ).get()
        #expect(launch.name == "Ada Hill")
    }

    @Test func a_jwt_that_is_no_lti_message_is_refused_as_such() {
        #expect(
            Self.refusal {
                $0[LTI.Claim.messageType] = nil
                $0[LTI.Claim.version] = nil
            } == .notLTI)
        #expect(Self.refusal { $0[LTI.Claim.messageType] = nil } == .missingClaim("message_type"))
    }

    @Test func another_version_is_refused() {
        #expect(Self.refusal { $0[LTI.Claim.version] = "1.1" } == .wrongVersion("1.1"))
        #expect(Self.refusal { $0[LTI.Claim.version] = nil } == .missingClaim("version"))
    }

    @Test func an_unknown_message_type_is_refused() {
        #expect(
            Self.refusal { $0[LTI.Claim.messageType] = "LtiSubmissionReviewRequest" }
                == .unknownMessageType("LtiSubmissionReviewRequest"))
    }

    @Test func the_id_tokens_own_rules_apply() {
        #expect(Self.refusal { $0["iss"] = "https://moodle.school.test" } == .token(.wrongIssuer))
        #expect(Self.refusal { $0["aud"] = "someone-else" } == .token(.wrongAudience))
        #expect(
            Self.refusal {
                $0["aud"] = [Self.registration.clientID, "other"]
            } == .token(.wrongAuthorizedParty))
        #expect(Self.refusal { $0["exp"] = NSNumber(value: Self.now.timeIntervalSince1970 - 600) } == .token(.expired))
        #expect(
            Self.refusal { $0["iat"] = NSNumber(value: Self.now.timeIntervalSince1970 + 600) }
                == .token(.issuedInFuture))
        #expect(Self.refusal { $0["nonce"] = "n-2" } == .token(.wrongNonce))
        #expect(Self.refusal { $0["nonce"] = nil } == .token(.wrongNonce))
        #expect(Self.refusal { $0["sub"] = "" } == .token(.missingSubject))
    }

    @Test func several_audiences_need_rollcall_as_authorized_party() throws {
        _ = try Self.check(
            Self.payload {
                $0["aud"] = [Self.registration.clientID, "other"]
                $0["azp"] = Self.registration.clientID
            }
        ).get()
    }

    @Test func a_deployment_not_registered_is_refused() {
        #expect(Self.refusal { $0[LTI.Claim.deploymentID] = "3:ghi" } == .unknownDeployment("3:ghi"))
        #expect(Self.refusal { $0[LTI.Claim.deploymentID] = nil } == .missingClaim("deployment_id"))
    }

    @Test func roles_are_required_and_must_name_one_rollcall_knows() {
        #expect(Self.refusal { $0[LTI.Claim.roles] = nil } == .missingClaim("roles"))
        #expect(Self.refusal { $0[LTI.Claim.roles] = [String]() } == .noRole)
        #expect(
            Self.refusal {
                $0[LTI.Claim.roles] = ["http://purl.imsglobal.org/vocab/lis/v2/membership#Mentor"]
            } == .noRole)
    }

    @Test func a_resource_link_launch_needs_its_link_id() {
        #expect(Self.refusal { $0[LTI.Claim.resourceLink] = nil } == .missingClaim("resource_link.id"))
        #expect(Self.refusal { $0[LTI.Claim.resourceLink] = ["id": ""] } == .missingClaim("resource_link.id"))
    }

    @Test func deep_linking_needs_a_return_url_and_a_teacher() throws {
        let deep: (inout [String: Any]) -> Void = {
            $0[LTI.Claim.messageType] = "LtiDeepLinkingRequest"
            $0[LTI.Claim.resourceLink] = nil
            $0[LTI.Claim.roles] = [Self.instructor]
            $0[LTI.Claim.deepLinkingSettings] = [
                "deep_link_return_url": "https://canvas.school.test/dl/return", "data": "opaque",
            ]
        }
        let launch = try Self.check(Self.payload(deep)).get()
        #expect(launch.messageType == .deepLinking && launch.role == .teacher)
        #expect(launch.deepLinkReturnURL == "https://canvas.school.test/dl/return" && launch.deepLinkData == "opaque")
        #expect(
            Self.refusal {
                deep(&$0)
                $0[LTI.Claim.deepLinkingSettings] = ["accept_types": ["ltiResourceLink"]]
            } == .missingClaim("deep_linking_settings.deep_link_return_url"))
        #expect(
            Self.refusal {
                deep(&$0)
                $0[LTI.Claim.roles] = [Self.learner]
            } == .noRole)
    }

    @Test func roles_map_to_the_course() {
        #expect(LTI.courseRole([Self.instructor]) == .teacher)
        #expect(LTI.courseRole(["http://purl.imsglobal.org/vocab/lis/v2/membership#Administrator"]) == .teacher)
        #expect(LTI.courseRole(["urn:lti:role:ims/lis/Instructor"]) == .teacher)
        #expect(
            LTI.courseRole([
                "http://purl.imsglobal.org/vocab/lis/v2/membership/Instructor#TeachingAssistant", Self.instructor,
            ]) == .assistant)
        #expect(LTI.courseRole([Self.learner]) == .student)
        #expect(LTI.courseRole(["Learner"]) == .student && LTI.courseRole(["Instructor"]) == .teacher)
        #expect(LTI.courseRole(["http://purl.imsglobal.org/vocab/lis/v2/membership#Mentor"]) == nil)
        #expect(LTI.courseRole([]) == nil)
    }

    @Test func registration_documents_are_compared_by_origin_not_by_prefix() {
        let issuer = "http://127.0.0.1:5400"
        #expect(
            LTI.sameOrigin(
                issuer: issuer, configuration: "http://127.0.0.1:5400/.well-known/openid-configuration",
                registrationEndpoint: "http://127.0.0.1:5400/lti/register"))
        // A string prefix is not an origin: :54007 begins with :5400.
        #expect(
            !LTI.sameOrigin(
                issuer: issuer, configuration: "http://127.0.0.1:54007/.well-known/openid-configuration",
                registrationEndpoint: "http://127.0.0.1:5400/lti/register"))
        #expect(
            !LTI.sameOrigin(
                issuer: "https://lms.school.edu", configuration: "https://lms.school.edu.evil.test/config",
                registrationEndpoint: "https://lms.school.edu/register"))
        // The registration endpoint must be the issuer's too.
        #expect(
            !LTI.sameOrigin(
                issuer: "https://lms.school.edu", configuration: "https://lms.school.edu/config",
                registrationEndpoint: "https://collector.evil.test/register"))
        #expect(
            LTI.sameOrigin(
                issuer: "https://LMS.school.edu", configuration: "https://lms.school.edu:443/config",
                registrationEndpoint: "https://lms.school.edu/register"))
        #expect(!LTI.sameOrigin(issuer: "not a url", configuration: "not a url", registrationEndpoint: "not a url"))
    }

    @Test func each_gradebook_call_asks_the_narrowest_scope_the_launch_offered() {
        let all = [LTI.Scope.lineItems, LTI.Scope.lineItemsReadOnly, LTI.Scope.scores]
        #expect(LTI.scope(for: .postScore, offered: all) == LTI.Scope.scores)
        #expect(LTI.scope(for: .findLineItem, offered: all) == LTI.Scope.lineItemsReadOnly)
        #expect(LTI.scope(for: .createLineItem, offered: all) == LTI.Scope.lineItems)
        // A launch that offered read-only line items and scores: Rollcall finds its column and posts, never makes one.
        let readOnly = [LTI.Scope.lineItemsReadOnly, LTI.Scope.scores]
        #expect(LTI.scope(for: .findLineItem, offered: readOnly) == LTI.Scope.lineItemsReadOnly)
        #expect(LTI.scope(for: .createLineItem, offered: readOnly) == nil)
        #expect(LTI.scope(for: .postScore, offered: readOnly) == LTI.Scope.scores)
        #expect(LTI.scope(for: .postScore, offered: [LTI.Scope.lineItems]) == nil)
        // A link kept before the offer was recorded asks as it always did.
        #expect(LTI.scope(for: .postScore, offered: []) == LTI.Scope.scores)
        #expect(LTI.scope(for: .findLineItem, offered: []) == LTI.Scope.lineItems)
    }

    @Test func a_name_comes_from_what_the_platform_shares() {
        #expect(LTI.personName(["name": "Ada Lovelace", "given_name": "A"]) == "Ada Lovelace")
        #expect(LTI.personName(["given_name": "Ada", "family_name": "Lovelace"]) == "Ada Lovelace")
        #expect(LTI.personName(["family_name": "Lovelace"]) == "Lovelace")
        #expect(LTI.personName(["name": " ", "preferred_username": "alovelace"]) == "alovelace")
        #expect(LTI.personName([:]) == nil)
        let placeholders = Set((0..<40).map { LTI.placeholderName(subject: "user-\($0)") })
        #expect(placeholders.count == 40, "forty learners without names get forty names")
        #expect(LTI.placeholderName(subject: "user-1") == LTI.placeholderName(subject: "user-1"))
        #expect(LTI.placeholderName(subject: "user-1").hasPrefix("Learner "))
    }

    @Test func institution_and_system_roles_say_nothing_about_the_course() {
        let institution = "http://purl.imsglobal.org/vocab/lis/v2/institution/person#Instructor"
        let system = "http://purl.imsglobal.org/vocab/lis/v2/system/person#Administrator"
        #expect(LTI.courseRole([institution]) == nil)
        #expect(LTI.courseRole([system, "urn:lti:instrole:ims/lis/Administrator"]) == nil)
        // A learner who teaches elsewhere in the school is a learner here.
        #expect(LTI.courseRole([Self.learner, institution, system]) == .student)
        #expect(LTI.courseRole(["http://example.edu/roles#Instructor"]) == nil)
    }

    @Test func members_are_read_from_a_page_of_the_roster() {
        let page: [String: Any] = [
            "members": [
                [
                    "user_id": "u1", "status": "Active", "given_name": "Ada", "family_name": "Hill",
                    "email": "ada@hill.test", "lis_person_sourcedid": "s-1", "roles": [Self.learner],
                ],
                ["user_id": "u2", "status": "Inactive", "name": "Bo Lee", "roles": ["Learner"]],
                ["user_id": "u3", "name": "Tess Hill", "roles": [Self.instructor]],
                ["name": "Nobody", "roles": [Self.learner]],
            ]
        ]
        let members = LTI.members(page)
        #expect(members.map(\.userID) == ["u1", "u2", "u3"])
        #expect(
            members[0]
                == LTI.Member(
                    userID: "u1", name: "Ada Hill", email: "ada@hill.test", studentNumber: "s-1", role: .student,
                    active: true))
        #expect(members[1].active == false && members[2].active && members[2].role == .teacher)
        #expect(LTI.members([:]).isEmpty)
    }

    @Test func the_next_page_is_the_link_whose_relation_is_next() {
        #expect(
            LTI.nextPage(linkHeaders: [
                "<https://p.test/m?page=1>; rel=\"first\", <https://p.test/m?page=3>; rel=\"next\""
            ]) == "https://p.test/m?page=3")
        #expect(LTI.nextPage(linkHeaders: ["<https://p.test/m?p=2>; rel=\"prev next\""]) == "https://p.test/m?p=2")
        #expect(LTI.nextPage(linkHeaders: ["<https://p.test/m?p=2>;rel=next"]) == "https://p.test/m?p=2")
        #expect(LTI.nextPage(linkHeaders: ["<https://p.test/m?p=1>; rel=\"first\""]) == nil)
        #expect(LTI.nextPage(linkHeaders: []) == nil)
        #expect(LTI.nextPage(linkHeaders: ["https://p.test/m; rel=next"]) == nil)
    }

    @Test func a_sync_enrolls_new_learners_marks_those_gone_and_updates_the_rest() {
        let roster = [
            LTI.LinkedStudent(userID: "u1", name: "Ada Hill", studentNumber: "s-1"),
            LTI.LinkedStudent(userID: "u2", name: "Bo Lee", studentNumber: nil),
            LTI.LinkedStudent(userID: "u4", name: "Cy Po", studentNumber: "s-4"),
        ]
        let members = [
            LTI.Member(userID: "u1", name: "Ada King", email: nil, studentNumber: "s-1", role: .student, active: true),
            LTI.Member(userID: "u2", name: "Bo Lee", email: nil, studentNumber: nil, role: .student, active: false),
            LTI.Member(userID: "u3", name: "Di Ro", email: nil, studentNumber: "s-3", role: .student, active: true),
            LTI.Member(userID: "u4", name: nil, email: nil, studentNumber: nil, role: .student, active: true),
            LTI.Member(userID: "u5", name: "Tess", email: nil, studentNumber: nil, role: .teacher, active: true),
            LTI.Member(userID: "u3", name: "Di Ro", email: nil, studentNumber: "s-3", role: .student, active: true),
        ]
        let change = LTI.rosterChange(roster: roster, members: members)
        #expect(change.enrolled.map(\.userID) == ["u3"], "once, though listed twice")
        #expect(change.left == ["u2"], "inactive on the platform; the teacher is never a student")
        #expect(change.updated.map(\.userID) == ["u1"], "renamed; a member without a name keeps Rollcall's")
        #expect(LTI.rosterChange(roster: roster, members: []).left == ["u1", "u2", "u4"])
    }

    @Test func a_score_is_the_course_grade_out_of_a_hundred_and_pending_while_nothing_counts() {
        let score = LTI.score(userID: "u1", grade: 87.456, explanation: "Course grade: 87%.", at: Self.now)
        #expect(score.scoreGiven == 87.46 && score.scoreMaximum == 100)
        #expect(score.activityProgress == "InProgress" && score.gradingProgress == "FullyGraded")
        #expect(score.timestamp.hasPrefix("2027-01-15T08:00:00") && score.timestamp.hasSuffix("Z"))
        let none = LTI.score(userID: "u1", grade: nil, explanation: "nothing", at: Self.now)
        #expect(none.scoreGiven == nil && none.scoreMaximum == nil && none.gradingProgress == "Pending")
        let later = LTI.score(userID: "u1", grade: 1, explanation: "", at: Self.now.addingTimeInterval(0.001))
        #expect(later.timestamp > score.timestamp, "milliseconds, so two sends a moment apart still increase")
    }

    @Test func a_registrations_fields_are_checked() throws {
        #expect(
            try LTI.platformURL(" https://canvas.school.test/api/lti/authorize ", field: "authorizationUrl")
                == "https://canvas.school.test/api/lti/authorize")
        for bad in [
            "", "canvas.school.test", "ftp://x.test", "https://", "https://x.test/#frag",
            "https://x.test/" + String(repeating: "a", count: 500),
        ] {
            #expect(throws: RuleViolation.self, "\(bad)") { try LTI.platformURL(bad, field: "tokenUrl") }
        }
        #expect(
            throws: RuleViolation(
                field: "clientId", message: "Enter the client id the platform gave Rollcall, 1 to 255 characters.")
        ) {
            try LTI.clientID("  ")
        }
        #expect(try LTI.deploymentIDs(["1:abc", " 2 "]) == ["1:abc", "2"])
        for bad in [nil, [], ["a", "a"], [""], Array(repeating: "x", count: 51).enumerated().map { "\($0.offset)" }] {
            #expect(throws: RuleViolation.self) { try LTI.deploymentIDs(bad) }
        }
    }
}
