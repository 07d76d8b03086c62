import Foundation
import HTTPTypes
import RollcallCore
import RollcallModel
import RollcallStorage
import ServerTestSupport
import Testing

@testable import RollcallServer

@Suite("Sessions", .timeLimit(.minutes(5)))
struct SessionsTests {
    @Test func students_learn_what_to_do_and_never_where_the_fence_is() async throws {
        try await withServer { api in
            let room = try await Classroom.open(
                api,
                settings: ["latitude": 52.12345, "longitude": 4.54321, "radius": 30, "allowedNetworks": ["10.0.0.0/8"]]
            )
            let (outsider, _, _) = try await api.teacherWithCourse("Otto Other")
            for path in ["/api/v1/sessions/\(room.sessionID)", "/api/v1/courses/\(room.courseID)/sessions"] {
                let student = try await api.call(.get, path, as: room.student)
                #expect(student.status == .ok)
                for secret in ["52.12345", "4.54321", "grace", "10.0.0.0", "period", "\"radius\""] {
                    #expect(!student.text.contains(secret), "\(path) shows a student \(secret): \(student.text)")
                }
                #expect(student.text.contains(#""needsLocation":true"#), "\(student.text)")
                #expect(student.text.contains(#""schoolNetworkOnly":true"#))
                let teacher = try await api.call(.get, path, as: room.teacher)
                #expect(teacher.text.contains("52.12345") && teacher.text.contains("10.0.0.0"), "\(teacher.text)")
                try await api.expectRefused(.get, path, as: outsider, status: .forbidden, code: "forbidden")
            }
        }
    }

    @Test func a_session_opens_now_with_the_standard_settings() async throws {
        try await withServer { api in
            let (teacher, courseID, _) = try await api.teacherWithCourse()
            let reply = try await api.call(.post, "/api/v1/courses/\(courseID)/sessions", as: teacher, json: [:])
            #expect(reply.status == .created)
            #expect(reply.string("session.phase") == "open")
            #expect(reply.int("session.settings.period") == 5)
            #expect(reply.int("session.settings.grace") == 1)
            #expect(reply.string("session.settings.mode") == "qr")
            #expect(reply.value("session.secret") == nil, "the code secret never leaves the server")
            let id = try #require(reply.int("session.id"))
            let closed = try await api.call(.post, "/api/v1/sessions/\(id)/close", as: teacher)
            #expect(closed.string("session.phase") == "closed")
            try await api.expectRefused(
                .post, "/api/v1/sessions/\(id)/close", as: teacher, status: .conflict, code: "session_closed"
            )
            try await api.expectRefused(
                .post, "/api/v1/sessions/\(id)/open", as: teacher, status: .conflict, code: "session_closed"
            )
        }
    }

    @Test func a_scheduled_session_whose_time_passed_unopened_is_shown_as_missed_with_open_and_cancel()
        async throws
    {
        try await withServer { api in
            let (teacher, courseID, _) = try await api.teacherWithCourse()
            let later = ISO8601DateFormatter().string(from: Date().addingTimeInterval(3600))
            let made = try await api.call(
                .post, "/api/v1/courses/\(courseID)/sessions", as: teacher,
                json: ["title": "Lab 1", "scheduledAt": later, "settings": ["openMinutes": 30]])
            let id = try #require(made.int("session.id"))
            let upcoming = try await api.call(.get, "/courses/\(courseID)", as: teacher)
            #expect(upcoming.text.contains("class=\"badge scheduled\"") && !upcoming.text.contains("badge missed"))

            // Yesterday's class, never opened: it says so, and offers to open it late or cancel it.
            try await api.execute(
                "UPDATE sessions SET scheduled_at = scheduled_at - \(26 * 3600) WHERE id = \(id)")
            let page = try await api.call(.get, "/sessions/\(id)", as: teacher)
            #expect(page.text.contains("class=\"badge missed\"") && page.text.contains("id=\"missed-notice\""))
            #expect(page.text.contains("and never opened"))
            #expect(page.text.contains("DELETE /api/v1/sessions/\(id)?records=0&amp;attempts=0"))
            let course = try await api.call(.get, "/courses/\(courseID)", as: teacher)
            #expect(course.text.contains("class=\"badge missed\""))
            let opened = try await api.call(.post, "/api/v1/sessions/\(id)/open", as: teacher)
            #expect(opened.string("session.phase") == "open", "\(opened.text)")
            #expect(!(try await api.call(.get, "/sessions/\(id)", as: teacher)).text.contains("missed-notice"))
        }
    }

    @Test func a_scheduled_session_waits_until_it_is_opened() async throws {
        try await withServer { api in
            let (teacher, courseID, _) = try await api.teacherWithCourse()
            let later = ISO8601DateFormatter().string(from: Date().addingTimeInterval(3600))
            let reply = try await api.call(
                .post, "/api/v1/courses/\(courseID)/sessions", as: teacher,
                json: [
                    "title": "Lab 1", "scheduledAt": later,
                    "settings": [
                        "mode": "qr", "period": 10, "latitude": 51.5, "longitude": -0.12, "classroomSize": "hall",
                        "allowedNetworks": ["10.0.0.0/8"], "openMinutes": 30, "lateAfterMinutes": 5,
                    ],
                ]
            )
            #expect(reply.status == .created, "\(reply.text)")
            #expect(reply.string("session.phase") == "scheduled")
            #expect(reply.string("session.title") == "Lab 1")
            #expect(reply.value("session.settings.geofence.radius") as? Double == ClassroomSize.hall.radius)
            let id = try #require(reply.int("session.id"))
            let opened = try await api.call(.post, "/api/v1/sessions/\(id)/open", as: teacher)
            #expect(opened.string("session.phase") == "open")
            try await api.expectRefused(
                .post, "/api/v1/sessions/\(id)/open", as: teacher, status: .conflict, code: "session_already_open"
            )
            let list = try await api.call(.get, "/api/v1/courses/\(courseID)/sessions", as: teacher)
            #expect(list.list("sessions").count == 1)
        }
    }

    @Test func bad_settings_are_refused_with_the_field_named() async throws {
        try await withServer { api in
            let (teacher, courseID, _) = try await api.teacherWithCourse()
            let cases: [([String: Any], String)] = [
                (["period": 1], "invalid_period"),
                (["period": 61], "invalid_period"),
                (["period": "fast"], "wrong_type"),
                (["grace": 6], "invalid_grace"),
                (["openMinutes": 0], "invalid_open_minutes"),
                (["openMinutes": 30, "lateAfterMinutes": 31], "invalid_late_after_minutes"),
                (["radius": 30], "invalid_latitude"),
                (["latitude": 91, "longitude": 0, "radius": 30], "invalid_latitude"),
                (["latitude": 10, "longitude": 181, "radius": 30], "invalid_longitude"),
                (["latitude": 10], "invalid_latitude"),
                (["latitude": 10, "longitude": 10], "invalid_radius"),
                (["latitude": 10, "longitude": 10, "radius": 1], "invalid_radius"),
                (["mode": "spot"], "invalid_latitude"),
                (["mode": "carrier-pigeon"], "wrong_type"),
                (["classroomSize": "stadium"], "wrong_type"),
                (["allowedNetworks": ["10.0.0.0/33"]], "invalid_allowed_networks"),
                (["allowedNetworks": ["campus"]], "invalid_allowed_networks"),
                (["allowedNetworks": "10.0.0.0/8"], "wrong_type"),
            ]
            for (settings, code) in cases {
                try await api.expectRefused(
                    .post, "/api/v1/courses/\(courseID)/sessions", as: teacher, json: ["settings": settings],
                    status: .badRequest, code: code
                )
            }
            try await api.expectRefused(
                .post, "/api/v1/courses/\(courseID)/sessions", as: teacher, json: ["scheduledAt": "tomorrow"],
                status: .badRequest, code: "invalid_scheduled_at"
            )
            try await api.expectRefused(
                .post, "/api/v1/courses/\(courseID)/sessions", as: teacher,
                json: ["title": String(repeating: "t", count: 101)], status: .badRequest, code: "invalid_title"
            )
            try await api.expectRefused(
                .get, "/api/v1/sessions/99999", as: teacher, status: .notFound, code: "session_not_found"
            )
        }
    }
}

@Suite("Admin", .timeLimit(.minutes(5)))
struct AdminTests {
    @Test func the_admin_lists_disables_and_enables_people() async throws {
        try await withServer { api in
            let admin = try await api.admin()
            let student = try await api.register("Dis Abled")
            let list = try await api.call(.get, "/api/v1/admin/users?role=student", as: admin)
            #expect(list.list("users").map { $0["email"] as? String } == [student.email])
            let search = try await api.call(.get, "/api/v1/admin/users?q=dis", as: admin)
            #expect(search.list("users").count == 1)
            try await api.expectRefused(
                .get, "/api/v1/admin/users?role=wizard", as: admin, status: .badRequest, code: "invalid_role"
            )

            let disabled = try await api.call(.post, "/api/v1/admin/users/\(student.id)/disable", as: admin)
            #expect(disabled.value("user.disabled") as? Bool == true)
            #expect(try await api.call(.get, "/api/v1/me", as: student).status == .unauthorized)
            let refused = try await api.call(
                .post, "/api/v1/auth/tokens", json: ["email": student.email, "password": API.password]
            )
            #expect(refused.errorCode == "account_disabled")
            try await api.expectRefused(
                .post, "/api/v1/admin/users/\(admin.id)/disable", as: admin, status: .badRequest,
                code: "cannot_disable_self"
            )
            _ = try await api.call(.post, "/api/v1/admin/users/\(student.id)/enable", as: admin)
            _ = try await api.signIn(student.email)

            let outbox = try await api.call(.get, "/api/v1/admin/outbox", as: admin)
            #expect(outbox.list("messages").first?["recipient"] as? String == student.email)
            try await api.expectRefused(
                .post, "/api/v1/admin/users/777/approve", as: admin, status: .notFound, code: "user_not_found"
            )
        }
    }
}

@Suite("The outbox", .timeLimit(.minutes(5)))
struct OutboxTests {
    /// 75 messages, every third to Pat; the first 75 ids in the order they were sent.
    static func fill(_ api: API) async throws -> [Int64] {
        let database = try Database.sqlite(path: api.databasePath, logger: .init(label: "test"))
        let outbox = Outbox(database: database, logger: .init(label: "test"))
        do {
            for number in 1...75 {
                let recipient = number % 3 == 0 ? "Pat@School.test" : "someone\(number)@school.test"
                try await outbox.send(channel: .email, to: recipient, subject: "Message \(number)", body: "Hello")
            }
        } catch {
            try? await database.shutdown()
            throw error
        }
        try await database.shutdown()
        return try await api.outbox().map(\.id).reversed()
    }

    @Test func pages_of_30_give_every_message_once_newest_first() async throws {
        try await withServer { api in
            let admin = try await api.admin()
            let sent = try await Self.fill(api)
            #expect(sent.count == 75)
            var pages: [[Int64]] = []
            var path = "/api/v1/admin/outbox?limit=30"
            while pages.count < 5 {
                let reply = try await api.call(.get, path, as: admin)
                #expect(reply.status == .ok, "\(reply.text)")
                pages.append(reply.list("messages").compactMap { ($0["id"] as? NSNumber)?.int64Value })
                guard let cursor = reply.int("nextCursor") else { break }
                path = "/api/v1/admin/outbox?limit=30&before=\(cursor)"
            }
            #expect(pages.map(\.count) == [30, 30, 15])
            #expect(pages.flatMap { $0 } == sent.reversed(), "newest first, no repeats, no gaps")

            let defaultPage = try await api.call(.get, "/api/v1/admin/outbox", as: admin)
            #expect(defaultPage.list("messages").count == 30)
            let exact = try await api.call(.get, "/api/v1/admin/outbox?limit=75", as: admin)
            #expect(exact.list("messages").count == 75)
            #expect(exact.value("nextCursor") == nil, "no cursor on the last page: \(exact.text.suffix(80))")
        }
    }

    @Test func the_outbox_is_filtered_by_recipient() async throws {
        try await withServer { api in
            let admin = try await api.admin()
            _ = try await Self.fill(api)
            let first = try await api.call(.get, "/api/v1/admin/outbox?recipient=pat@school.test&limit=20", as: admin)
            let firstPage = first.list("messages")
            #expect(firstPage.count == 20)
            #expect(firstPage.allSatisfy { $0["recipient"] as? String == "Pat@School.test" }, "\(first.text)")
            let cursor = try #require(first.int("nextCursor"))
            let rest = try await api.call(
                .get, "/api/v1/admin/outbox?recipient=pat@school.test&limit=20&before=\(cursor)", as: admin)
            #expect(rest.list("messages").count == 5, "25 of the 75 went to Pat")
            #expect(rest.list("messages").allSatisfy { $0["recipient"] as? String == "Pat@School.test" })
            #expect(rest.value("nextCursor") == nil)
            let nobody = try await api.call(.get, "/api/v1/admin/outbox?recipient=nobody@school.test", as: admin)
            #expect(nobody.status == .ok && nobody.list("messages").isEmpty, "\(nobody.text)")
        }
    }

    @Test func bad_pages_are_refused() async throws {
        try await withServer { api in
            let admin = try await api.admin()
            _ = try await Self.fill(api)
            for limit in ["0", "101", "-3", "ten", "2.5"] {
                try await api.expectRefused(
                    .get, "/api/v1/admin/outbox?limit=\(limit)", as: admin, status: .badRequest, code: "invalid_limit")
            }
            for before in ["0", "-1", "abc", "99999999999999999999"] {
                try await api.expectRefused(
                    .get, "/api/v1/admin/outbox?before=\(before)", as: admin, status: .badRequest,
                    code: "invalid_before")
            }
            let teacher = try await api.register("Tom Teacher", role: "teacher")
            try await api.expectRefused(
                .get, "/api/v1/admin/outbox?limit=5", as: teacher, status: .forbidden, code: "forbidden")
        }
    }

    @Test func the_admin_page_shows_the_newest_30_and_links_to_older() async throws {
        try await withServer { api in
            let admin = try await api.admin()
            _ = try await Self.fill(api)
            let page = try await api.call(.get, "/admin", as: admin)
            #expect(page.status == .ok)
            let subjects = page.text.matches(of: /Message (\d+)<\/strong>/).map { Int($0.1)! }
            #expect(subjects == Array((46...75).reversed()), "the newest 30")
            let older = try #require(page.text.firstMatch(of: /href="([^"]+)" class="older-messages"/)?.1)
            let olderPage = try await api.call(.get, String(older), as: admin)
            let olderSubjects = olderPage.text.matches(of: /Message (\d+)<\/strong>/).map { Int($0.1)! }
            #expect(olderSubjects == Array((16...45).reversed()), "the next 30")
            #expect(olderPage.text.contains("class=\"newest-messages\""))
        }
    }
}

@Suite("System", .timeLimit(.minutes(5)))
struct SystemTests {
    @Test func health_metrics_and_the_api_description_are_served() async throws {
        try await withServer { api in
            #expect(try await api.call(.get, "/healthz").text == "ok\n")
            _ = try await api.call(.get, "/api/v1/courses")
            let metrics = try await api.call(.get, "/metrics")
            #expect(metrics.text.contains("hb_requests"))
            #expect(metrics.text.contains("http_route=\"/api/v1/courses\""))
            let description = try await api.call(.get, "/api/v1/openapi.yaml")
            #expect(description.status == .ok)
            #expect(description.text.hasPrefix("openapi: 3"))
        }
    }

    @Test func unknown_addresses_answer_in_the_error_format() async throws {
        try await withServer { api in
            let missing = try await api.call(.get, "/api/v1/nothing-here")
            #expect(missing.status == .notFound)
            #expect(missing.errorCode == "not_found")
            let page = try await api.call(.get, "/no-such-page")
            #expect(page.status == .notFound)
            #expect(page.headers[.contentType]?.hasPrefix("text/html") == true)
            #expect(page.text.contains("There is nothing at this address."))
        }
    }
}

@Suite("One session, one story", .timeLimit(.minutes(5)))
struct SessionContractTests {
    @Test func a_session_opened_at_once_was_never_scheduled() async throws {
        try await withServer { api in
            let room = try await Classroom.open(api)
            let session = try await api.call(.get, "/api/v1/sessions/\(room.sessionID)", as: room.teacher)
            #expect(session.value("session.scheduledAt") == nil, "\(session.text)")
            #expect(session.value("session.openedAt") != nil)
            let later = try await api.call(
                .post, "/api/v1/courses/\(room.courseID)/sessions", as: room.teacher,
                json: ["scheduledAt": "2099-09-01T09:00:00Z"])
            #expect(later.string("session.scheduledAt") == "2099-09-01T09:00:00.000Z", "\(later.text)")
        }
    }

    /// One precision in every answer, as in the live messages: UTC with exactly three fractional digits. Requests
    /// may send a moment with or without its fraction.
    @Test func answers_write_milliseconds_and_requests_may_leave_them_out() async throws {
        try await withServer { api in
            let (teacher, courseID, _) = try await api.teacherWithCourse()
            let course = try await api.call(.get, "/api/v1/courses/\(courseID)", as: teacher)
            let createdAt = try #require(course.string("course.createdAt"), "\(course.text)")
            #expect(createdAt.wholeMatch(of: /\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z/) != nil, "\(createdAt)")

            let whole = try await api.call(
                .post, "/api/v1/courses/\(courseID)/sessions", as: teacher,
                json: ["scheduledAt": "2099-09-01T09:00:00Z"])
            #expect(whole.status == .created, "\(whole.text)")
            #expect(whole.string("session.scheduledAt") == "2099-09-01T09:00:00.000Z", "\(whole.text)")
            let fraction = try await api.call(
                .post, "/api/v1/courses/\(courseID)/sessions", as: teacher,
                json: ["scheduledAt": "2099-09-01T09:00:00.250+02:00"])
            #expect(fraction.status == .created, "\(fraction.text)")
            #expect(fraction.string("session.scheduledAt") == "2099-09-01T07:00:00.250Z", "\(fraction.text)")
            let listed = try await api.call(.get, "/api/v1/courses/\(courseID)/sessions", as: teacher)
            for session in listed.list("sessions") {
                for key in ["scheduledAt", "openedAt", "closesAt", "closedAt"] {
                    guard let text = session[key] as? String else { continue }
                    #expect(text.wholeMatch(of: /.*:\d\d\.\d{3}Z/) != nil, "\(key): \(text)")
                }
            }
        }
    }

    /// Closed with nobody checked in: the live counts, the session's own counts, the CSV and each student's record
    /// all call the students absent, by the same rule.
    @Test func absent_means_the_same_everywhere_once_a_session_has_closed() async throws {
        try await withServer(setup: .live) { api in
            let room = try await Classroom.open(api)
            _ = try await room.enrol(api, "Bo Borrower")
            let closed = try await api.call(.post, "/api/v1/sessions/\(room.sessionID)/close", as: room.teacher)
            #expect(closed.int("session.counts.absent") == 2, "\(closed.text)")
            let shown = try await api.call(.get, "/api/v1/sessions/\(room.sessionID)", as: room.teacher)
            #expect(shown.int("session.counts.absent") == 2)
            try await api.watch(room.sessionID, as: room.teacher) { view in
                let snapshot = try await view.next("snapshot")
                #expect(snapshot.int("counts.absent") == 2, "\(snapshot.text)")
                #expect(snapshot.int("counts.notYet") == 0)
                #expect(snapshot.string("session.closedAt") != nil)
            }
            let csv = try await api.call(.get, "/api/v1/sessions/\(room.sessionID)/report.csv", as: room.teacher)
            #expect(csv.text.components(separatedBy: ",absent,").count == 3, "\(csv.text)")
            let record = try await api.call(
                .get, "/api/v1/courses/\(room.courseID)/students/\(room.student.id)/attendance", as: room.teacher)
            #expect(record.int("summary.absent") == 1, "\(record.text)")
        }
    }
}

@Suite("The API as documented", .timeLimit(.minutes(5)))
struct ContractTests {
    @Test func a_method_a_path_does_not_take_is_answered_405_with_allow() async throws {
        try await withServer { api in
            let account = try await api.register("Method Tester")
            let reply = try await api.call(.put, "/api/v1/me", as: account)
            #expect(reply.status == .methodNotAllowed, "\(reply.text)")
            #expect(reply.errorCode == "method_not_allowed")
            #expect(reply.headers[.allow] == "GET, PATCH, DELETE")
            let courses = try await api.call(.put, "/api/v1/courses", as: account)
            #expect(courses.headers[.allow] == "GET, POST")
            // A browser's page for the same refusal says it with the same header.
            let page = try await api.call(.post, "/C/ABC123", headers: [.accept: "text/html"])
            #expect(page.status == .methodNotAllowed)
            #expect(page.headers[.contentType]?.hasPrefix("text/html") == true)
            #expect(page.headers[.allow] == "GET")
        }
    }

    @Test func a_missing_body_is_a_bad_request_and_a_wrong_type_unsupported() async throws {
        try await withServer { api in
            try await api.expectRefused(.post, "/api/v1/auth/tokens", status: .badRequest, code: "missing_body")
            try await api.expectRefused(
                .post, "/api/v1/auth/tokens", raw: Array("email=a".utf8), contentType: "text/plain",
                status: .unsupportedMediaType, code: "unsupported_media_type")
        }
    }

    /// An optional field is left out, never null: null is refused, naming the field, and nothing changes.
    @Test func null_in_a_field_is_refused_naming_it() async throws {
        try await withServer { api in
            let room = try await Classroom.open(api)
            try await api.expectRefused(
                .patch, "/api/v1/courses/\(room.courseID)", as: room.teacher, json: ["absenteeThreshold": NSNull()],
                status: .badRequest, code: "null_not_allowed")
            let nested = try await api.call(
                .post, "/api/v1/courses/\(room.courseID)/sessions", as: room.teacher,
                json: ["settings": ["allowedNetworks": NSNull()]])
            #expect(nested.status == .badRequest)
            #expect(nested.string("error.details.field") == "settings.allowedNetworks", "\(nested.text)")
            // A name that merely contains the word is text, not null.
            let named = try await api.call(
                .patch, "/api/v1/courses/\(room.courseID)", as: room.teacher, json: ["name": "null and void"])
            #expect(named.status == .ok, "\(named.text)")
        }
    }
}
