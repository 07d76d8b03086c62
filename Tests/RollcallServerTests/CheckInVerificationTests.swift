import Foundation
import HTTPTypes
import PasskeyTestSupport
import RollcallCore
import RollcallProtocol
import ServerTestSupport
import Testing

@testable import RollcallServer

@Suite("Check-in verification", .timeLimit(.minutes(5)))
struct CheckInVerificationTests {
    @Test func a_course_that_requires_a_passkey_checks_in_only_with_a_verified_one() async throws {
        try await withServer { api in
            let room = try await Classroom.open(api)
            let off = try await api.call(.get, "/api/v1/courses/\(room.courseID)/verification", as: room.student)
            #expect(off.value("verification.required") as? Bool == false)
            try await api.requireVerification(room.teacher, courseID: room.courseID)
            let on = try await api.call(.get, "/api/v1/courses/\(room.courseID)/verification", as: room.teacher)
            #expect(on.value("verification.required") as? Bool == true)
            #expect(on.int("verification.reuseSeconds") == 0)

            // No passkey yet: the page is told to offer registering one, within the ticket's time.
            let ticket = try await room.scan(api)
            let none = try await api.checkInOptions(room.student, ticket: ticket)
            #expect(none.value("required") as? Bool == true)
            #expect(none.value("hasPasskeys") as? Bool == false)
            try await api.expectRefused(
                .post, "/api/v1/check-ins", as: room.student, json: ["ticket": ticket], status: .forbidden,
                code: "verification_required")

            var phone = SoftwareAuthenticator.of(room.student)
            try await api.addPasskey(room.student, phone)
            let options = try await api.checkInOptions(room.student, ticket: ticket)
            #expect(options.value("hasPasskeys") as? Bool == true)
            #expect(options.string("publicKey.userVerification") == "required")
            #expect(
                options.list("publicKey.allowCredentials").first?["id"] as? String
                    == Base64URL.encode(phone.credentialID))
            let checkIn = try await api.call(
                .post, "/api/v1/check-ins", as: room.student,
                json: [
                    "ticket": ticket, "deviceId": "phone-0001",
                    "passkey": phone.assertionJSON(challenge: options.challenge),
                ])
            #expect(checkIn.status == .created, "\(checkIn.text)")
            #expect(checkIn.string("status") == "present")

            let evidence = try await api.rows("SELECT * FROM passkey_verifications")
            #expect(evidence.count == 1)
            #expect(evidence.first?["backed_up"] == "0" && evidence.first?["reused"] == "0")
            #expect(evidence.first?["session_id"] == "\(room.sessionID)")
            let page = try await api.call(.get, "/sessions/\(room.sessionID)", as: room.teacher)
            #expect(page.text.contains("Passkey check-ins") && page.text.contains("device-bound"))
        }
    }

    @Test func a_course_without_the_setting_ignores_passkeys() async throws {
        try await withServer { api in
            let room = try await Classroom.open(api)
            let ticket = try await room.scan(api)
            let options = try await api.checkInOptions(room.student, ticket: ticket)
            #expect(options.value("required") as? Bool == false)
            let checkIn = try await api.call(.post, "/api/v1/check-ins", as: room.student, json: ["ticket": ticket])
            #expect(checkIn.status == .created)
            #expect(try await api.rows("SELECT * FROM passkey_verifications").isEmpty)
        }
    }

    /// One way the passkey at check-in fails, each refused with `verification_failed`.
    enum BadAssertion: String, CaseIterable, Sendable {
        case badSignature, userNotVerified, userNotPresent, wrongOrigin, challengeOfAnotherTicket, expiredChallenge,
            reusedChallenge, signInChallenge, anotherStudentsPasskey, malformed
    }

    @Test(arguments: BadAssertion.allCases)
    func a_passkey_that_does_not_verify_refuses_the_check_in(_ bad: BadAssertion) async throws {
        try await withServer { api in
            var classroom = try await VerifiedClassroom.open(api)
            let room = classroom.room
            var tweaks = SoftwareAuthenticator.Tweaks()
            switch bad {
            case .badSignature: tweaks.corruptSignature = true
            case .userNotVerified: tweaks.userVerified = false
            case .userNotPresent: tweaks.userPresent = false
            case .wrongOrigin: tweaks.origin = "http://evil.localhost:8080"
            default: break
            }
            var body = try await classroom.body(api, tweaks: tweaks)
            switch bad {
            case .challengeOfAnotherTicket:
                let other = try await room.scan(api)
                let options = try await api.checkInOptions(room.student, ticket: other)
                body["passkey"] = classroom.phone.assertionJSON(challenge: options.challenge)
            case .expiredChallenge:
                try await api.execute("UPDATE passkey_challenges SET expires_at = expires_at - 301")
            case .reusedChallenge:
                // The same answer again, after its check-in was undone: the challenge was used up.
                let ticket = body["ticket"] as! String
                let options = try await api.checkInOptions(room.student, ticket: ticket)
                let passkey = classroom.phone.assertionJSON(challenge: options.challenge)
                let first = try await api.call(
                    .post, "/api/v1/check-ins", as: room.student,
                    json: ["ticket": ticket, "deviceId": "phone-0001", "passkey": passkey])
                #expect(first.status == .created)
                try await api.execute("DELETE FROM attendance")
                body["passkey"] = passkey
            case .signInChallenge:
                body["passkey"] = classroom.phone.assertionJSON(challenge: try await api.signInChallenge())
            case .anotherStudentsPasskey:
                let friend = try await api.register("Fri End")
                var friendsPhone = SoftwareAuthenticator.of(friend)
                try await api.addPasskey(friend, friendsPhone)
                let options = try await api.checkInOptions(room.student, ticket: body["ticket"] as! String)
                body["passkey"] = friendsPhone.assertionJSON(challenge: options.challenge)
            case .malformed:
                body["passkey"] = ["id": "x", "response": ["clientDataJSON": "%%%"]]
            default: break
            }
            let reply = try await api.call(.post, "/api/v1/check-ins", as: room.student, json: body)
            #expect(reply.status == .forbidden, "\(reply.text)")
            #expect(reply.errorCode == "verification_failed")
            #expect(reply.errorMessage == CheckInError.verificationFailed.message(distance: nil).description)
            #expect(try await api.rows("SELECT * FROM attendance").isEmpty)
        }
    }

    @Test func a_failed_passkey_changes_nothing_stored() async throws {
        try await withServer { api in
            var classroom = try await VerifiedClassroom.open(api)
            var tweaks = SoftwareAuthenticator.Tweaks()
            tweaks.userVerified = false
            let body = try await classroom.body(api, tweaks: tweaks)
            try await api.expectRefused(
                .post, "/api/v1/check-ins", as: classroom.room.student, json: body, status: .forbidden,
                code: "verification_failed")
        }
    }

    @Test func a_recent_verification_from_the_same_phone_is_reused_within_the_window() async throws {
        try await withServer { api in
            var classroom = try await VerifiedClassroom.open(api, reuseSeconds: 300)
            let room = classroom.room
            let first = try await api.call(
                .post, "/api/v1/check-ins", as: room.student, json: try await classroom.body(api))
            #expect(first.status == .created)
            let next = try await api.call(
                .post, "/api/v1/courses/\(room.courseID)/sessions", as: room.teacher, json: ["title": "Next"])
            var second = room
            second.sessionID = try #require(next.int("session.id"))
            let ticket = try await second.scan(api)
            let options = try await api.checkInOptions(room.student, ticket: ticket, deviceID: "phone-0001")
            #expect(options.value("reuse") as? Bool == true)
            // Another phone is not covered by the confirmation made on the first.
            try await api.expectRefused(
                .post, "/api/v1/check-ins", as: room.student, json: ["ticket": ticket, "deviceId": "phone-0002"],
                status: .forbidden, code: "verification_required")
            let reused = try await api.call(
                .post, "/api/v1/check-ins", as: room.student, json: ["ticket": ticket, "deviceId": "phone-0001"])
            #expect(reused.status == .created, "\(reused.text)")
            let evidence = try await api.rows("SELECT reused FROM passkey_verifications ORDER BY id")
            #expect(evidence.map { $0["reused"] } == ["0", "1"])

            // Past the window, the phone must confirm again.
            try await api.execute("UPDATE passkey_verifications SET created_at = created_at - 300")
            let third = try await api.call(
                .post, "/api/v1/courses/\(room.courseID)/sessions", as: room.teacher, json: ["title": "Third"])
            var later = room
            later.sessionID = try #require(third.int("session.id"))
            try await api.expectRefused(
                .post, "/api/v1/check-ins", as: room.student,
                json: ["ticket": try await later.scan(api), "deviceId": "phone-0001"], status: .forbidden,
                code: "verification_required")
        }
    }

    @Test func reuse_is_off_by_default() async throws {
        try await withServer { api in
            var classroom = try await VerifiedClassroom.open(api)
            let room = classroom.room
            _ = try await api.call(.post, "/api/v1/check-ins", as: room.student, json: try await classroom.body(api))
            let next = try await api.call(
                .post, "/api/v1/courses/\(room.courseID)/sessions", as: room.teacher, json: [:])
            var second = room
            second.sessionID = try #require(next.int("session.id"))
            let ticket = try await second.scan(api)
            #expect(try await api.checkInOptions(room.student, ticket: ticket).value("reuse") as? Bool == false)
            try await api.expectRefused(
                .post, "/api/v1/check-ins", as: room.student, json: ["ticket": ticket, "deviceId": "phone-0001"],
                status: .forbidden, code: "verification_required")
        }
    }

    @Test func a_synced_passkey_used_from_two_phones_in_one_session_is_flagged() async throws {
        try await withServer { api in
            var classroom = try await VerifiedClassroom.open(api, synced: true)
            let room = classroom.room
            let first = try await api.call(
                .post, "/api/v1/check-ins", as: room.student,
                json: try await classroom.body(api, deviceID: "phone-0001"))
            #expect(first.status == .created)
            let second = try await api.call(
                .post, "/api/v1/check-ins", as: room.student,
                json: try await classroom.body(api, deviceID: "tablet-0002"))
            #expect(second.status == .ok)
            let flags = try await api.rows("SELECT kind, detail FROM flags")
            #expect(flags.map { $0["kind"] } == ["passkey_two_devices"])
            let listed = try await api.call(.get, "/api/v1/sessions/\(room.sessionID)/verifications", as: room.teacher)
            #expect(listed.list("verifications").map { $0["deviceId"] as? String } == ["tablet-0002", "phone-0001"])
            #expect(listed.list("verifications").allSatisfy { $0["synced"] as? Bool == true })
            try await api.expectRefused(
                .get, "/api/v1/sessions/\(room.sessionID)/verifications", as: room.student, status: .forbidden,
                code: "forbidden")
            try await api.expectRefused(
                .get, "/api/v1/sessions/999999/verifications", as: room.teacher, status: .notFound,
                code: "session_not_found")
            let evidence = try await api.rows("SELECT backed_up, backup_eligible FROM passkey_verifications")
            #expect(evidence.allSatisfy { $0["backed_up"] == "1" && $0["backup_eligible"] == "1" })
            let page = try await api.call(.get, "/sessions/\(room.sessionID)", as: room.teacher)
            #expect(page.text.contains("synced") && page.text.contains("used from two devices in this session"))
        }
    }

    @Test func a_counter_that_goes_backwards_at_check_in_is_flagged_for_the_teacher() async throws {
        try await withServer { api in
            var classroom = try await VerifiedClassroom.open(api)
            let room = classroom.room
            var tweaks = SoftwareAuthenticator.Tweaks()
            tweaks.signCount = 20
            _ = try await api.call(
                .post, "/api/v1/auth/passkey-tokens",
                json: [
                    "credential": classroom.phone.assertionJSON(
                        challenge: try await api.signInChallenge(), tweaks: tweaks)
                ])
            tweaks.signCount = 3
            let reply = try await api.call(
                .post, "/api/v1/check-ins", as: room.student, json: try await classroom.body(api, tweaks: tweaks))
            #expect(reply.status == .created)
            #expect(try await api.rows("SELECT kind FROM flags").map { $0["kind"] } == ["passkey_counter_regressed"])
        }
    }

    @Test func check_in_options_refuse_bad_requests() async throws {
        try await withServer { api in
            let classroom = try await VerifiedClassroom.open(api)
            let room = classroom.room
            let ticket = try await room.scan(api)
            try await api.expectRefused(
                .post, "/api/v1/check-ins/passkey-options", json: ["ticket": ticket], status: .unauthorized,
                code: "not_signed_in")
            try await api.expectRefused(
                .post, "/api/v1/check-ins/passkey-options", as: room.teacher, json: ["ticket": ticket],
                status: .forbidden, code: "forbidden")
            try await api.expectRefused(
                .post, "/api/v1/check-ins/passkey-options", as: room.student, json: [:], status: .badRequest,
                code: "missing_field")
            try await api.expectRefused(
                .post, "/api/v1/check-ins/passkey-options", as: room.student, json: ["ticket": "made-up"],
                status: .badRequest, code: "invalid_code")
            try await api.expectRefused(
                .post, "/api/v1/check-ins/passkey-options", as: room.student, json: ["sessionId": 999_999],
                status: .notFound, code: "session_not_found")
            let secret = try await api.secret(ofSession: room.sessionID)
            let scannedLongAgo = ScanTicket(
                sessionRef: room.sessionID, step: 0, scannedAt: Date().addingTimeInterval(-121), studentID: nil)
            try await api.expectRefused(
                .post, "/api/v1/check-ins/passkey-options", as: room.student,
                json: ["ticket": scannedLongAgo.signed(secret: secret)], status: .conflict, code: "code_expired")
        }
    }

    @Test func only_the_courses_teacher_sets_verification_and_within_bounds() async throws {
        try await withServer { api in
            let room = try await Classroom.open(api)
            let (other, _, _) = try await api.teacherWithCourse("Other Teacher")
            let path = "/api/v1/courses/\(room.courseID)/verification"
            try await api.expectRefused(
                .put, path, json: ["required": true], status: .unauthorized, code: "not_signed_in")
            try await api.expectRefused(
                .put, path, as: room.student, json: ["required": true], status: .forbidden, code: "forbidden")
            try await api.expectRefused(
                .put, path, as: other, json: ["required": true], status: .forbidden, code: "forbidden")
            try await api.expectRefused(
                .put, path, as: room.teacher, json: ["required": true, "reuseSeconds": 3601], status: .badRequest,
                code: "invalid_reuse_seconds")
            try await api.expectRefused(
                .put, path, as: room.teacher, json: ["required": true, "reuseSeconds": -5], status: .badRequest,
                code: "invalid_reuse_seconds")
            try await api.expectRefused(
                .put, path, as: room.teacher, json: ["reuseSeconds": 60], status: .badRequest, code: "missing_field")
            try await api.expectRefused(
                .put, path, as: room.teacher, json: ["required": "yes"], status: .badRequest, code: "wrong_type")
            try await api.expectRefused(
                .put, "/api/v1/courses/999999/verification", as: room.teacher, json: ["required": true],
                status: .notFound, code: "course_not_found")
            try await api.expectRefused(
                .get, path, as: other, status: .forbidden, code: "forbidden")
            let page = try await api.call(.get, "/courses/\(room.courseID)", as: room.teacher)
            #expect(
                page.text.contains("Check-in verification") && page.text.contains("no later check-ins (ask every time)")
            )
        }
    }

    @Test func a_check_in_spot_binds_the_challenge_to_the_session() async throws {
        try await withServer { api in
            let room = try await Classroom.open(
                api, settings: ["mode": "spot", "latitude": 52, "longitude": 4, "classroomSize": "small"])
            try await api.requireVerification(room.teacher, courseID: room.courseID)
            var phone = SoftwareAuthenticator.of(room.student)
            try await api.addPasskey(room.student, phone)
            let options = try await api.call(
                .post, "/api/v1/check-ins/passkey-options", as: room.student,
                json: ["sessionId": room.sessionID, "deviceId": "phone-0001"])
            #expect(options.value("hasPasskeys") as? Bool == true)
            let other = try await api.call(
                .post, "/api/v1/courses/\(room.courseID)/sessions", as: room.teacher,
                json: ["settings": ["mode": "spot", "latitude": 52, "longitude": 4, "classroomSize": "small"]])
            let otherID = try #require(other.int("session.id"))
            // A challenge for one session does not verify a check-in to another.
            let elsewhere = try await api.call(
                .post, "/api/v1/check-ins", as: room.student,
                json: [
                    "sessionId": otherID, "location": Classroom.here, "deviceId": "phone-0001",
                    "passkey": phone.assertionJSON(challenge: options.challenge),
                ])
            #expect(elsewhere.errorCode == "verification_failed", "\(elsewhere.text)")
            let fresh = try await api.call(
                .post, "/api/v1/check-ins/passkey-options", as: room.student,
                json: ["sessionId": room.sessionID, "deviceId": "phone-0001"])
            let reply = try await api.call(
                .post, "/api/v1/check-ins", as: room.student,
                json: [
                    "sessionId": room.sessionID, "location": Classroom.here, "deviceId": "phone-0001",
                    "passkey": phone.assertionJSON(challenge: fresh.challenge),
                ])
            #expect(reply.status == .created, "\(reply.text)")
        }
    }

    @Test func passkeys_work_on_postgresql() async throws {
        let postgres = try PostgresServer.start()
        defer { postgres.stop() }
        try await withServer(databaseURL: postgres.url) { api in
            var classroom = try await VerifiedClassroom.open(api, reuseSeconds: 300, synced: true)
            let room = classroom.room
            let checkIn = try await api.call(
                .post, "/api/v1/check-ins", as: room.student, json: try await classroom.body(api))
            #expect(checkIn.status == .created, "\(checkIn.text)")
            let again = try await api.call(
                .post, "/api/v1/check-ins", as: room.student,
                json: try await classroom.body(api, deviceID: "tablet-0002"))
            #expect(again.status == .ok)
            let next = try await api.call(
                .post, "/api/v1/courses/\(room.courseID)/sessions", as: room.teacher, json: ["title": "Next"])
            var second = room
            second.sessionID = try #require(next.int("session.id"))
            let reused = try await api.call(
                .post, "/api/v1/check-ins", as: room.student,
                json: ["ticket": try await second.scan(api), "deviceId": "phone-0001"])
            #expect(reused.status == .created, "\(reused.text)")
            let token = try await api.call(
                .post, "/api/v1/auth/passkey-tokens",
                json: ["credential": classroom.phone.assertionJSON(challenge: try await api.signInChallenge())])
            #expect(token.status == .created, "\(token.text)")
            let page = try await api.call(.get, "/sessions/\(room.sessionID)", as: room.teacher)
            #expect(page.text.contains("synced") && page.text.contains("used from two devices in this session"))
            let id = try #require(
                try await api.call(.get, "/api/v1/passkeys", as: room.student).list("passkeys").first?["id"] as? Int)
            #expect(try await api.call(.delete, "/api/v1/passkeys/\(id)", as: room.student).status == .noContent)
        }
    }
}

@Suite("Check-in refusals keep nothing", .timeLimit(.minutes(5)))
struct RefusedCheckInTests {
    /// A genuine passkey answer sent with another student's phone: refused, and the student's own retry over the
    /// same challenge still works, with no verification listed for the refusal.
    @Test func a_refusal_after_the_passkey_leaves_the_challenge_and_no_evidence() async throws {
        try await withServer { api in
            var classroom = try await VerifiedClassroom.open(api)
            let room = classroom.room
            let course = try await api.call(.get, "/api/v1/courses/\(room.courseID)", as: room.teacher)
            let friend = try await api.register("Phone Owner")
            _ = try await api.call(
                .post, "/api/v1/courses/join", as: friend,
                json: ["code": try #require(course.string("course.joinCode"))])
            var friendsPhone = SoftwareAuthenticator.of(friend)
            try await api.addPasskey(friend, friendsPhone)
            let friendsTicket = try await room.scan(api, as: friend)
            let friendsOptions = try await api.checkInOptions(friend, ticket: friendsTicket, deviceID: "friends-phone")
            let taken = try await api.call(
                .post, "/api/v1/check-ins", as: friend,
                json: [
                    "ticket": friendsTicket, "deviceId": "friends-phone",
                    "passkey": friendsPhone.assertionJSON(challenge: friendsOptions.challenge),
                ])
            #expect(taken.status == .created, "\(taken.text)")
            var body = try await classroom.body(api)
            body["deviceId"] = "friends-phone"
            let refused = try await api.call(.post, "/api/v1/check-ins", as: room.student, json: body)
            #expect(refused.status == .conflict, "\(refused.text)")
            #expect(refused.errorCode == "device_already_used")
            let verifications = try await api.call(
                .get, "/api/v1/sessions/\(room.sessionID)/verifications", as: room.teacher)
            #expect(
                verifications.list("verifications").map { $0["studentId"] as? Int64 } == [friend.id],
                "\(verifications.text)")

            body["deviceId"] = "phone-0001"
            let retry = try await api.call(.post, "/api/v1/check-ins", as: room.student, json: body)
            #expect(retry.status == .created, "\(retry.text)")
            let after = try await api.call(.get, "/api/v1/sessions/\(room.sessionID)/verifications", as: room.teacher)
            #expect(after.list("verifications").map { $0["studentId"] as? Int64 } == [room.student.id, friend.id])
        }
    }

    /// The common case: a student outside the fence moves closer and tries again with the same passkey answer.
    @Test func out_of_range_says_how_far_and_the_same_passkey_answer_works_from_inside() async throws {
        try await withServer { api in
            let room = try await Classroom.open(api, settings: ["latitude": 52, "longitude": 4, "radius": 30])
            try await api.requireVerification(room.teacher, courseID: room.courseID, reuseSeconds: 0)
            var phone = SoftwareAuthenticator.of(room.student)
            try await api.addPasskey(room.student, phone)
            let ticket = try await room.scan(api)
            let options = try await api.checkInOptions(room.student, ticket: ticket, deviceID: "phone-0001")
            var body: [String: Any] = [
                "ticket": ticket, "deviceId": "phone-0001",
                "passkey": phone.assertionJSON(challenge: options.challenge),
                "location": ["latitude": 52.001, "longitude": 4.0, "accuracy": 5],
            ]
            let before = try await api.snapshot()
            let far = try await api.call(.post, "/api/v1/check-ins", as: room.student, json: body)
            #expect(far.status == .forbidden, "\(far.text)")
            #expect(far.errorCode == "out_of_range")
            // 0.001° of latitude is 111 m.
            #expect((far.value("error.details.distanceMeters") as? NSNumber)?.intValue == 111)
            #expect((far.value("error.details.radiusMeters") as? NSNumber)?.intValue == 30)
            // Nothing is used up or recorded; only the teacher hears of the attempt, by a flag and its live event.
            var after = try await api.snapshot()
            #expect(after["flags"]?.count == 1 && after["flags"]?.first?.contains("tried_out_of_range") == true)
            #expect(after["session_events"]?.count == (before["session_events"]?.count ?? 0) + 1)
            after["flags"] = before["flags"]
            after["session_events"] = before["session_events"]
            #expect(after == before, "a refused check-in changed stored data")

            body["location"] = Classroom.here
            let near = try await api.call(.post, "/api/v1/check-ins", as: room.student, json: body)
            #expect(near.status == .created, "\(near.text)")
        }
    }

    /// Every passkey failure gives the student one sentence; the details name the step for clients and logs.
    @Test func a_failed_passkey_names_its_step_in_the_details() async throws {
        try await withServer { api in
            var classroom = try await VerifiedClassroom.open(api)
            let room = classroom.room
            var body = try await classroom.body(api)
            let other = try await room.scan(api)
            let options = try await api.checkInOptions(room.student, ticket: other)
            body["passkey"] = classroom.phone.assertionJSON(challenge: options.challenge)
            let reply = try await api.call(.post, "/api/v1/check-ins", as: room.student, json: body)
            #expect(reply.errorCode == "verification_failed", "\(reply.text)")
            #expect(reply.string("error.details.step") == "passkey_wrong_challenge")
            #expect(reply.errorMessage == CheckInError.verificationFailed.message(distance: nil).description)
        }
    }

    @Test func passkey_options_are_only_for_the_courses_students() async throws {
        try await withServer { api in
            let room = try await Classroom.open(api)
            try await api.requireVerification(room.teacher, courseID: room.courseID, reuseSeconds: 0)
            let outsider = try await api.register("Out Sider")
            try await api.expectRefused(
                .post, "/api/v1/check-ins/passkey-options", as: outsider, json: ["sessionId": room.sessionID],
                status: .forbidden, code: "forbidden")
        }
    }
}
