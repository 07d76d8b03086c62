import Foundation
import HTTPTypes
import QRCode
import RollcallCore
import RollcallModel
import RollcallStorage
import RollcallWeb
import ServerTestSupport
import Testing

@testable import RollcallServer
@testable import RollcallTeaching

@Suite("Check-in", .timeLimit(.minutes(5)))
struct CheckInTests {
    @Test func a_student_in_the_room_checks_in_once_and_a_retry_gets_the_same_answer() async throws {
        try await withServer { api in
            let room = try await Classroom.open(api, settings: ["latitude": 52, "longitude": 4, "radius": 30])
            let frame = try await room.projector(api)
            #expect(frame.string("url")?.hasPrefix("HTTP://LOCALHOST:8080/C/") == true)
            #expect(frame.int("checkedIn") == 0)
            let ticket = try await room.scan(api)
            let body: [String: Any] = ["ticket": ticket, "location": Classroom.here, "deviceId": "phone-of-cass"]
            let first = try await api.call(.post, "/api/v1/check-ins", as: room.student, json: body)
            #expect(first.status == .created)
            #expect(first.string("status") == "present")
            #expect(first.value("new") as? Bool == true)
            let again = try await api.call(.post, "/api/v1/check-ins", as: room.student, json: body)
            #expect(again.status == .ok)
            #expect(again.value("new") as? Bool == false)
            #expect(again.string("checkedInAt") == first.string("checkedInAt"))
            #expect(try await room.projector(api).int("checkedIn") == 1)
            let session = try await api.call(.get, "/api/v1/sessions/\(room.sessionID)", as: room.teacher)
            #expect(session.int("session.counts.present") == 1)
        }
    }

    @Test func the_scan_and_check_in_answers_carry_any_title_and_course_name_as_json() async throws {
        try await withServer { api in
            let (teacher, courseID, code) = try await api.teacherWithCourse()
            let awkward = #"Quiz "B" \ part 1/2 — ünïcödé ✓"#
            #expect(
                try await api.call(.patch, "/api/v1/courses/\(courseID)", as: teacher, json: ["name": awkward]).status
                    == .ok)
            let student = try await api.register("Jay Json")
            _ = try await api.call(.post, "/api/v1/courses/join", as: student, json: ["code": code])
            let session = try await api.call(
                .post, "/api/v1/courses/\(courseID)/sessions", as: teacher, json: ["title": awkward])
            let room = Classroom(
                teacher: teacher, student: student, courseID: courseID, sessionID: session.int("session.id") ?? 0)
            let url = try #require(try await room.projector(api).string("url"))
            let scanned = try await api.call(.get, String(url[url.range(of: "/C/")!.lowerBound...]), as: student)
            #expect(scanned.status == .ok)
            #expect(scanned.headers[.contentType] == "application/json; charset=utf-8")
            #expect(scanned.string("session.title") == awkward, "\(scanned.text)")
            #expect(scanned.string("session.courseName") == awkward)
            #expect(scanned.int("session.id") == room.sessionID)
            let expires = try #require(scanned.string("expiresAt").flatMap { Date(isoText: $0) })
            #expect(expires > Date())
            let ticket = try #require(scanned.string("ticket"))
            let answer = try await api.call(.post, "/api/v1/check-ins", as: student, json: ["ticket": ticket])
            #expect(answer.status == .created)
            #expect(
                Set(answer.json.keys) == ["status", "checkedInAt", "sessionId", "sessionTitle", "courseName", "new"])
            #expect(answer.string("sessionTitle") == awkward && answer.string("courseName") == awkward)
            #expect((answer.value("new") as? NSNumber)?.boolValue == true && answer.string("status") == "present")
            #expect(answer.int("sessionId") == room.sessionID)
            #expect(answer.string("checkedInAt").flatMap { Date(isoText: $0) } != nil)
        }
    }

    @Test func location_refusals_say_what_to_do() async throws {
        try await withServer { api in
            let room = try await Classroom.open(api, settings: ["latitude": 52, "longitude": 4, "radius": 30])
            let ticket = try await room.scan(api)
            try await api.expectRefused(
                .post, "/api/v1/check-ins", as: room.student, json: ["ticket": ticket], status: .badRequest,
                code: "location_required"
            )
            let far: [String: Any] = ["latitude": 52.001, "longitude": 4.0, "accuracy": 10]
            let refusal = try await api.call(
                .post, "/api/v1/check-ins", as: room.student, json: ["ticket": ticket, "location": far]
            )
            #expect(refusal.status == .forbidden)
            #expect(refusal.errorCode == "out_of_range")
            #expect(refusal.errorMessage == "You are 111 m from the classroom — move closer and try again.")
            let vague: [String: Any] = ["latitude": 52.0001, "longitude": 4.0, "accuracy": 400]
            let imprecise = try await api.call(
                .post, "/api/v1/check-ins", as: room.student, json: ["ticket": ticket, "location": vague])
            #expect(imprecise.status == .unprocessableContent && imprecise.errorCode == "location_inaccurate")
            #expect(imprecise.errorMessage?.hasSuffix("ask your teacher to mark you present.") == true, "a way out")
            // Refused twice, by distance and by precision: no record, and the teacher learns of each attempt once.
            _ = try await api.call(
                .post, "/api/v1/check-ins", as: room.student, json: ["ticket": ticket, "location": vague])
            #expect(try await api.attendanceRows(session: room.sessionID)[room.student.id] == nil)
            let flags = try await Database.sqlite(path: api.databasePath, logger: .init(label: "test")).closing {
                try await CheckInStore(database: $0).flags(sessionID: room.sessionID)
            }
            #expect(flags.map(\.kind) == [.triedImpreciseLocation, .triedOutOfRange], "\(flags)")
            #expect(flags.last?.words.description == "Cass Checkin tried to check in 111 m from the room.")
            #expect(
                flags.first?.words.description
                    == "Cass Checkin tried to check in, but the phone placed them only within 400 m.")
            let page = try await api.call(.get, "/sessions/\(room.sessionID)", as: room.teacher)
            #expect(page.text.contains("1 tried from too far · 1 had a location too imprecise: mark them by hand"))
            let nowhere: [String: Any] = ["latitude": 200, "longitude": 4.0, "accuracy": 5]
            try await api.expectRefused(
                .post, "/api/v1/check-ins", as: room.student, json: ["ticket": ticket, "location": nowhere],
                status: .badRequest, code: "invalid_location"
            )
        }
    }

    @Test func codes_that_are_not_this_sessions_or_too_old_are_refused() async throws {
        try await withServer { api in
            let room = try await Classroom.open(api)
            try await api.expectRefused(
                .post, "/api/v1/check-ins", as: room.student, json: ["code": "NOT-A-CODE"], status: .badRequest,
                code: "invalid_code"
            )
            try await api.expectRefused(
                .post, "/api/v1/check-ins", as: room.student, json: ["ticket": "made-up"], status: .badRequest,
                code: "invalid_code"
            )
            let url = try #require(try await room.projector(api).string("url"))
            let code = String(url.suffix(RotatingCode.length))
            var tampered = Array(code)
            tampered[20] = tampered[20] == "A" ? "B" : "A"
            try await api.expectRefused(
                .post, "/api/v1/check-ins", as: room.student, json: ["code": String(tampered)], status: .badRequest,
                code: "invalid_code"
            )
            // The session opened a minute ago: the code of its first step is long past the grace window.
            try await api.execute(
                "UPDATE sessions SET opened_at = opened_at - 60, closes_at = closes_at - 60 WHERE id = \(room.sessionID)"
            )
            try await api.expectRefused(
                .post, "/api/v1/check-ins", as: room.student, json: ["code": code], status: .conflict,
                code: "code_expired"
            )
            let page = try await api.call(.get, "/C/\(code)")
            #expect(page.status == .conflict)
            #expect(page.text.contains("The code has changed — scan the code on the screen again."))
        }
    }

    @Test func an_old_code_of_a_session_that_has_closed_says_so_rather_than_to_scan_again() async throws {
        try await withServer { api in
            let room = try await Classroom.open(api)
            let url = try #require(try await room.projector(api).string("url"))
            let code = String(url.suffix(RotatingCode.length))
            try await api.execute(
                "UPDATE sessions SET opened_at = opened_at - 60, closes_at = closes_at - 60 WHERE id = \(room.sessionID)"
            )
            _ = try await api.call(.post, "/api/v1/sessions/\(room.sessionID)/close", as: room.teacher)
            let page = try await api.call(.get, "/C/\(code)", as: room.student)
            #expect(page.text.contains("This session is not taking check-ins: it has closed"), "\(page.text)")
            #expect(!page.text.contains("scan the code on the screen again"))
            let answer = try await api.call(
                .get, "/C/\(code)", as: room.student, headers: [.accept: "application/json"])
            #expect(answer.errorCode == "session_closed", "\(answer.text)")
            // Reopened, the same old code is only old: the scan just before it had this process keep the closed times
            // for a second.
            let reopened = try await api.call(
                .post, "/api/v1/sessions/\(room.sessionID)/reopen", as: room.teacher, json: ["minutes": 10])
            #expect(reopened.status == .ok, "\(reopened.text)")
            let again = try await api.call(
                .get, "/C/\(code)", as: room.student, headers: [.accept: "application/json"])
            #expect(again.errorCode == "code_expired", "\(again.text)")
        }
    }

    @Test func signing_in_after_a_scan_names_the_class_and_how_long_the_scan_is_held() async throws {
        try await withServer { api in
            let room = try await Classroom.open(api)
            let ticket = try await room.scan(api)
            let next = "/check-in/\(ticket)".addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
            let signIn = try await api.call(.get, "/sign-in?next=\(next)")
            #expect(signIn.text.contains("Sign in to check in to Biology 101"), "\(signIn.text)")
            #expect(signIn.text.contains("held for 2 minutes"))
            let register = try await api.call(.get, "/register?next=\(next)")
            #expect(register.text.contains("id=\"scan-notice\""))
            let plain = try await api.call(.get, "/sign-in")
            #expect(!plain.text.contains("scan-notice"))
            // Every student who scans signed out reads it: in their browser's language, as the page around it.
            let french = try await api.call(.get, "/sign-in?next=\(next)", headers: [.acceptLanguage: "fr"])
            #expect(french.text.contains("Votre scan est conservé 2 minutes"), "\(french.text)")
        }
    }

    @Test func a_ticket_survives_a_slow_sign_in_but_not_two_minutes() async throws {
        try await withServer { api in
            let room = try await Classroom.open(api)
            let ticket = try await room.scan(api)  // scanned before signing in
            // The code it came from has long expired: the ticket carries the scan's freshness.
            try await api.execute("UPDATE sessions SET opened_at = opened_at - 30 WHERE id = \(room.sessionID)")
            let late = try await api.call(.post, "/api/v1/check-ins", as: room.student, json: ["ticket": ticket])
            #expect(late.status == .created, "\(late.text)")
            let other = try await api.register("Other Student")
            let secret = try await api.secret(ofSession: room.sessionID)
            let scannedLongAgo = ScanTicket(
                sessionRef: room.sessionID, step: 0, scannedAt: Date().addingTimeInterval(-121), studentID: nil)
            try await api.expectRefused(
                .post, "/api/v1/check-ins", as: other, json: ["ticket": scannedLongAgo.signed(secret: secret)],
                status: .conflict, code: "code_expired"
            )
        }
    }

    @Test func a_ticket_scanned_signed_out_belongs_to_the_first_student_who_checks_in_with_it() async throws {
        try await withServer { api in
            let room = try await Classroom.open(api)
            let course = try await api.call(.get, "/api/v1/courses/\(room.courseID)", as: room.teacher)
            let friend = try await api.register("Link Forwarder")
            _ = try await api.call(
                .post, "/api/v1/courses/join", as: friend,
                json: ["code": try #require(course.string("course.joinCode"))]
            )
            let ticket = try await room.scan(api)  // nobody signed in yet
            let first = try await api.call(.post, "/api/v1/check-ins", as: room.student, json: ["ticket": ticket])
            #expect(first.status == .created, "\(first.text)")
            let before = try await api.snapshot()
            let refusal = try await api.call(.post, "/api/v1/check-ins", as: friend, json: ["ticket": ticket])
            #expect(refusal.status == .badRequest)
            #expect(refusal.errorCode == "invalid_code")
            #expect(
                refusal.errorMessage
                    == "This check-in link was opened by another student. Scan the code on the screen yourself."
            )
            #expect(try await api.snapshot() == before, "a refused check-in changed stored data")
            let again = try await api.call(.post, "/api/v1/check-ins", as: room.student, json: ["ticket": ticket])
            #expect(again.status == .ok)
            #expect(again.string("checkedInAt") == first.string("checkedInAt"))
            let session = try await api.call(.get, "/api/v1/sessions/\(room.sessionID)", as: room.teacher)
            #expect(session.int("session.counts.present") == 1)
        }
    }

    @Test func tickets_not_signed_by_their_session_are_refused() async throws {
        try await withServer { api in
            let room = try await Classroom.open(api)
            let other = try await Classroom.open(api, teacher: "Olga Other", student: "Otto Other")
            let genuine = try await room.scan(api)
            var tampered = Array(genuine)
            tampered[40] = tampered[40] == "A" ? "B" : "A"
            let foreign = ScanTicket(sessionRef: room.sessionID, step: 0, scannedAt: Date(), studentID: nil)
                .signed(secret: try await api.secret(ofSession: other.sessionID))
            for ticket in [String(tampered), foreign, String(genuine.dropLast()), genuine + "A"] {
                try await api.expectRefused(
                    .post, "/api/v1/check-ins", as: room.student, json: ["ticket": ticket], status: .badRequest,
                    code: "invalid_code"
                )
            }
            let page = try await api.call(.get, "/check-in/\(String(tampered))", as: room.student)
            #expect(page.status == .notFound)
        }
    }

    @Test func a_ticket_opened_by_one_student_is_no_use_to_another() async throws {
        try await withServer { api in
            let room = try await Classroom.open(api)
            let ticket = try await room.scan(api, as: room.student)
            let friend = try await api.register("Absent Friend")
            try await api.expectRefused(
                .post, "/api/v1/check-ins", as: friend, json: ["ticket": ticket], status: .badRequest,
                code: "invalid_code"
            )
        }
    }

    @Test func the_session_must_be_open() async throws {
        try await withServer { api in
            let room = try await Classroom.open(api)
            let ticket = try await room.scan(api)
            _ = try await api.call(.post, "/api/v1/sessions/\(room.sessionID)/close", as: room.teacher)
            try await api.expectRefused(
                .post, "/api/v1/check-ins", as: room.student, json: ["ticket": ticket], status: .conflict,
                code: "session_closed"
            )
            #expect(try await room.projector(api).string("phase") == "closed")
        }
    }

    @Test func only_enrolled_students_check_in() async throws {
        try await withServer { api in
            let room = try await Classroom.open(api)
            let stranger = try await api.register("Stranger Danger")
            try await api.expectRefused(
                .post, "/api/v1/check-ins", as: stranger, json: ["ticket": try await room.scan(api)],
                status: .forbidden, code: "not_enrolled"
            )
            try await api.expectRefused(
                .post, "/api/v1/check-ins", as: room.teacher, json: ["ticket": try await room.scan(api)],
                status: .forbidden, code: "forbidden"
            )
            try await api.expectRefused(
                .post, "/api/v1/check-ins", json: ["ticket": "x"], status: .unauthorized, code: "not_signed_in"
            )
        }
    }

    @Test func one_phone_checks_in_one_student_and_the_teacher_sees_a_flag() async throws {
        try await withServer { api in
            let room = try await Classroom.open(api)
            let course = try await api.call(.get, "/api/v1/courses/\(room.courseID)", as: room.teacher)
            let code = try #require(course.string("course.joinCode"))
            let friend = try await api.register("Phone Borrower")
            _ = try await api.call(.post, "/api/v1/courses/join", as: friend, json: ["code": code])
            let first = try await api.call(
                .post, "/api/v1/check-ins", as: room.student,
                json: ["ticket": try await room.scan(api), "deviceId": "shared-phone-1"]
            )
            #expect(first.status == .created)
            let second = try await api.call(
                .post, "/api/v1/check-ins", as: friend,
                json: ["ticket": try await room.scan(api), "deviceId": "shared-phone-1"]
            )
            #expect(second.status == .conflict)
            #expect(second.errorCode == "device_already_used")
            let database = try Database.sqlite(path: api.databasePath, logger: .init(label: "test"))
            let flags = try await CheckInStore(database: database).flags(sessionID: room.sessionID)
            try await database.shutdown()
            #expect(flags.map(\.kind) == [.deviceAlreadyUsed])
            #expect(flags.first?.studentId == friend.id)
            #expect(flags.first?.otherStudentId == room.student.id, "the flag names both students, for “Flagged”")
            #expect(
                flags.first?.words.description
                    == "Phone Borrower tried to check in from the phone Cass Checkin used in this session.",
                "the flag names the phone's owner too")
            try await api.expectRefused(
                .post, "/api/v1/check-ins", as: friend, json: ["ticket": try await room.scan(api), "deviceId": "x"],
                status: .badRequest, code: "invalid_device_id"
            )
        }
    }

    @Test func after_the_late_threshold_a_check_in_is_late() async throws {
        try await withServer { api in
            let room = try await Classroom.open(api, settings: ["lateAfterMinutes": 0])
            let reply = try await api.call(
                .post, "/api/v1/check-ins", as: room.student, json: ["ticket": try await room.scan(api)]
            )
            #expect(reply.string("status") == "late")
        }
    }

    @Test func typed_codes_work_where_the_session_allows_typing() async throws {
        try await withServer { api in
            let room = try await Classroom.open(api, settings: ["mode": "typed"])
            let frame = try await room.projector(api)
            #expect(frame.value("url") == nil)
            let typed = try #require(frame.string("typedCode"))
            let wrong = typed == "000000" ? "111111" : "000000"
            let refused = try await api.call(
                .post, "/api/v1/check-ins", as: room.student, json: ["sessionId": room.sessionID, "typedCode": wrong])
            #expect(refused.status == .badRequest && refused.errorCode == "invalid_code", "\(refused.text)")
            #expect(
                refused.errorMessage
                    == "That is not the code on the screen. Check the digits and type the code shown there now.")
            let reply = try await api.call(
                .post, "/api/v1/check-ins", as: room.student, json: ["sessionId": room.sessionID, "typedCode": typed]
            )
            #expect(reply.status == .created, "\(reply.text)")

            let qrOnly = try await Classroom.open(api, teacher: "Quinn QR", student: "Stella Scan")
            try await api.expectRefused(
                .post, "/api/v1/check-ins", as: qrOnly.student,
                json: ["sessionId": qrOnly.sessionID, "typedCode": "123456"], status: .badRequest, code: "invalid_code"
            )
            try await api.expectRefused(
                .post, "/api/v1/check-ins", as: qrOnly.student, json: ["sessionId": qrOnly.sessionID],
                status: .badRequest, code: "invalid_code"
            )
        }
    }

    @Test func guessing_typed_codes_stops_after_a_few_wrong_ones() async throws {
        try await withServer { api in
            let room = try await Classroom.open(api, settings: ["mode": "typed"])
            let typed = try #require(try await room.projector(api).string("typedCode"))
            let wrong = typed == "000000" ? "111111" : "000000"
            for _ in 0..<CheckInDesk.typedCodeTries {
                let reply = try await api.call(
                    .post, "/api/v1/check-ins", as: room.student,
                    json: ["sessionId": room.sessionID, "typedCode": wrong]
                )
                #expect(reply.errorCode == "invalid_code")
            }
            try await api.expectRefused(
                .post, "/api/v1/check-ins", as: room.student, json: ["sessionId": room.sessionID, "typedCode": typed],
                status: .tooManyRequests, code: "too_many_attempts"
            )
        }
    }

    @Test func a_check_in_spot_needs_only_presence_in_its_radius() async throws {
        try await withServer { api in
            let room = try await Classroom.open(
                api, settings: ["mode": "spot", "latitude": 52, "longitude": 4, "classroomSize": "small"]
            )
            #expect(try await room.projector(api).value("url") == nil)
            let far: [String: Any] = ["latitude": 52.0005, "longitude": 4.0, "accuracy": 5]
            let refused = try await api.call(
                .post, "/api/v1/check-ins", as: room.student, json: ["sessionId": room.sessionID, "location": far]
            )
            #expect(refused.errorCode == "out_of_range")
            let reply = try await api.call(
                .post, "/api/v1/check-ins", as: room.student,
                json: ["sessionId": room.sessionID, "location": Classroom.here]
            )
            #expect(reply.status == .created, "\(reply.text)")
        }
    }

    @Test func allowed_networks_admit_their_addresses_and_refuse_others() async throws {
        // Over a real connection, so that the server sees the student's address: 127.0.0.1, on loopback.
        try await withServer(setup: .live) { api in
            let elsewhere = try await Classroom.open(api, settings: ["allowedNetworks": ["10.99.0.0/16"]])
            try await api.expectRefused(
                .post, "/api/v1/check-ins", as: elsewhere.student, json: ["ticket": try await elsewhere.scan(api)],
                status: .forbidden, code: "network_not_allowed"
            )
            let here = try await Classroom.open(
                api, settings: ["allowedNetworks": ["127.0.0.0/8"]], teacher: "Lou Loopback", student: "Lee Local")
            let reply = try await api.call(
                .post, "/api/v1/check-ins", as: here.student, json: ["ticket": try await here.scan(api)])
            #expect(reply.status == .created, "\(reply.text)")
            let evidence = try await api.rows(
                "SELECT client_address FROM check_in_evidence WHERE session_id = \(here.sessionID)")
            #expect(
                evidence.map { $0["client_address"] ?? nil } == ["127.0.0.1"], "the server saw the loopback address")
        }
    }

    @Test func bad_check_in_bodies_are_refused() async throws {
        try await withServer { api in
            let room = try await Classroom.open(api)
            try await api.expectRefused(
                .post, "/api/v1/check-ins", as: room.student, json: [:], status: .badRequest, code: "missing_field"
            )
            try await api.expectRefused(
                .post, "/api/v1/check-ins", as: room.student, json: ["sessionId": "one"], status: .badRequest,
                code: "wrong_type"
            )
            try await api.expectRefused(
                .post, "/api/v1/check-ins", as: room.student, json: ["sessionId": 9999], status: .notFound,
                code: "session_not_found"
            )
            try await api.expectRefused(
                .post, "/api/v1/check-ins", as: room.student,
                json: ["ticket": try await room.scan(api), "location": ["latitude": 1]], status: .badRequest,
                code: "missing_field"
            )
            try await api.expectRefused(
                .get, "/api/v1/sessions/\(room.sessionID)/projector", as: room.student, status: .forbidden,
                code: "forbidden"
            )
        }
    }

    @Test func the_check_in_url_is_upper_case_for_a_compact_qr_code() {
        #expect(
            CheckInRoutes.scanURL(publicURL: "https://rollcall.example.edu", code: "ABC")
                == "HTTPS://ROLLCALL.EXAMPLE.EDU/C/ABC"
        )
        #expect(
            CheckInRoutes.scanURL(publicURL: "https://school.edu:8443/rollcall", code: "ABC")
                == "HTTPS://SCHOOL.EDU:8443/rollcall/C/ABC"
        )
    }

    @Test func the_projector_draws_each_link_once_and_keeps_a_bounded_number() throws {
        let pictures = QRPictures(capacity: 8)
        let link = "HTTPS://ROLLCALL.EXAMPLE.EDU/C/ABC"
        let drawn = try QRCode(encoding: link, errorCorrection: .medium).svg(moduleSize: 10, quietZone: 4)
        #expect(try pictures.picture(of: link) == drawn)
        #expect(try pictures.picture(of: link) == drawn)
        #expect(pictures.kept == 1)
        for step in 0..<100 { _ = try pictures.picture(of: "\(link)\(step)") }
        #expect(pictures.kept <= 8)
        // The code in use stays drawn while older ones leave.
        let kept = pictures.kept
        #expect(kept >= 4)
        _ = try pictures.picture(of: "\(link)99")
        #expect(pictures.kept == kept)
    }
}

@Suite("Scanning from a native client", .timeLimit(.minutes(5)))
struct NativeScanTests {
    @Test func a_program_scanning_the_link_gets_the_ticket_as_json_and_checks_in_with_it() async throws {
        try await withServer { api in
            let room = try await Classroom.open(api)
            let url = try #require(try await room.projector(api).string("url"))
            let path = String(url[url.range(of: "/C/")!.lowerBound...])
            let scanned = try await api.call(.get, path, as: room.student)
            #expect(scanned.status == .ok, "\(scanned.text)")
            #expect(scanned.int("session.id") == room.sessionID)
            #expect(scanned.string("session.courseName") == "Biology 101")
            #expect(scanned.string("expiresAt") != nil)
            let ticket = try #require(scanned.string("ticket"))
            let checkIn = try await api.call(.post, "/api/v1/check-ins", as: room.student, json: ["ticket": ticket])
            #expect(checkIn.status == .created, "\(checkIn.text)")
            // Signed out, asking for JSON: the same answer, never a page.
            let anonymous = try await api.call(.get, path, headers: [.accept: "application/json"])
            #expect(anonymous.status == .ok)
            #expect(anonymous.headers[.contentType]?.hasPrefix("application/json") == true)
        }
    }

    @Test func a_bad_scan_from_a_program_is_refused_in_json() async throws {
        try await withServer { api in
            let room = try await Classroom.open(api)
            try await api.expectRefused(
                .get, "/C/NOT-A-CODE", as: room.student, status: .badRequest, code: "invalid_code")
            let page = try await api.call(.get, "/C/NOT-A-CODE")
            #expect(page.headers[.contentType]?.hasPrefix("text/html") == true, "a browser still gets a page")
        }
    }

    @Test func a_student_not_on_the_roster_joins_from_a_scan_with_the_same_ticket_where_the_course_allows_it()
        async throws
    {
        try await withServer { api in
            let room = try await Classroom.open(api, settings: ["allowTyping": true])
            let newcomer = try await api.register("Nia Newcomer")
            let ticket = try await room.scan(api, as: newcomer)
            // Without asking to join: refused, told that joining is possible, and nothing stored.
            try await api.expectRefused(
                .post, "/api/v1/check-ins", as: newcomer, json: ["ticket": ticket], status: .forbidden,
                code: "not_enrolled")
            let refused = try await api.call(.post, "/api/v1/check-ins", as: newcomer, json: ["ticket": ticket])
            #expect(refused.value("error.details.joinable") as? Bool == true, "\(refused.text)")
            #expect(refused.errorMessage?.contains("Join it and check in at once") == true)
            // Typing the code is no proof enough to join.
            let code = try #require(try await room.projector(api).string("typedCode"))
            try await api.expectRefused(
                .post, "/api/v1/check-ins", as: newcomer,
                json: ["sessionId": room.sessionID, "typedCode": code, "join": true], status: .forbidden,
                code: "not_enrolled")
            // Asking to join, with the same ticket: enrolled and checked in.
            let joined = try await api.call(
                .post, "/api/v1/check-ins", as: newcomer, json: ["ticket": ticket, "join": true])
            #expect(joined.status == .created, "\(joined.text)")
            let roster = try await api.call(.get, "/api/v1/courses/\(room.courseID)/students", as: room.teacher)
            #expect(roster.list("students").contains { $0["name"] as? String == "Nia Newcomer" })

            // A course that takes new students only from its teacher says so, and joining is refused.
            let closed = try await api.call(
                .patch, "/api/v1/courses/\(room.courseID)", as: room.teacher, json: ["joinFromScan": false])
            #expect(closed.value("course.joinFromScan") as? Bool == false, "\(closed.text)")
            let other = try await api.register("Otto Outsider")
            let otherTicket = try await room.scan(api, as: other)
            try await api.expectRefused(
                .post, "/api/v1/check-ins", as: other, json: ["ticket": otherTicket, "join": true],
                status: .forbidden, code: "not_enrolled")
            let told = try await api.call(
                .post, "/api/v1/check-ins", as: other, json: ["ticket": otherTicket, "join": true])
            #expect(told.value("error.details.joinable") as? Bool == false)
            #expect(told.errorMessage?.contains("Ask your teacher to add you") == true, "\(told.text)")
        }
    }
}
