import Foundation
import HTTPTypes
import RollcallCore
import RollcallModel
import RollcallStorage
import ServerTestSupport
import Testing

@testable import RollcallServer
@testable import RollcallTeaching

@Suite("Timetables", .timeLimit(.minutes(2)))
struct TimetableServerTests {
    @Test func a_weekly_slot_schedules_the_term_and_its_sessions_open_on_time() async throws {
        try await withServer { api in
            let (teacher, courseID, _) = try await api.teacherWithCourse()
            _ = try await api.call(.patch, "/api/v1/courses/\(courseID)", as: teacher, json: ["timeZone": "UTC"])
            // Today's class began a minute ago; the term is today and the next fortnight.
            var calendar = Calendar(identifier: .gregorian)
            calendar.timeZone = TimeZone(identifier: "UTC")!
            let start = Date().addingTimeInterval(-60)
            let parts = calendar.dateComponents([.year, .month, .day, .hour, .minute, .weekday], from: start)
            let day = { (date: Date) in
                let p = calendar.dateComponents([.year, .month, .day], from: date)
                return String(format: "%04d-%02d-%02d", p.year!, p.month!, p.day!)
            }
            let body: [String: Any] = [
                "weekday": (parts.weekday! + 5) % 7 + 1,
                "time": String(format: "%02d:%02d", parts.hour!, parts.minute!),
                "minutes": 50, "title": "Lecture", "from": day(start),
                "until": day(start.addingTimeInterval(14 * 86_400)), "settings": ["room": "B204"],
            ]
            let added = try await api.call(.post, "/api/v1/courses/\(courseID)/timetable", as: teacher, json: body)
            #expect(added.status == .created, "\(added.text)")
            #expect(added.int("sessions") == 3)
            let listed = try await api.call(.get, "/api/v1/courses/\(courseID)/sessions", as: teacher)
            let sessions = listed.list("sessions")
            #expect(sessions.count == 3 && sessions.allSatisfy { $0["phase"] as? String == "scheduled" })
            #expect(Set(sessions.compactMap { $0["title"] as? String }) == ["Lecture 1", "Lecture 2", "Lecture 3"])

            // The opener's turn: the class that began a minute ago opens, at its own start; the next two wait.
            let database = try Database.sqlite(path: api.databasePath, logger: .init(label: "test"))
            let opened = try await database.closing { try await TimetableStore(database: $0).openDue() }
            #expect(opened.count == 1)
            let first = try await api.call(.get, "/api/v1/sessions/\(try #require(opened.first))", as: teacher)
            #expect(first.string("session.phase") == "open", "\(first.text)")
            #expect(first.string("session.title") == "Lecture 1")
            #expect(first.int("session.settings.openMinutes") == 50)
            let openedAt = try #require(Date(isoText: first.string("session.openedAt") ?? ""))
            #expect(abs(openedAt.timeIntervalSince(start)) < 61, "opened at the class's start, not when noticed")
            // Run again, or from a second process: nothing more opens.
            let again = try Database.sqlite(path: api.databasePath, logger: .init(label: "test"))
            #expect(try await again.closing { try await TimetableStore(database: $0).openDue() }.isEmpty)

            // Removing the slot removes the sessions not held yet; the one held stays.
            let slot = try #require(added.int("slot.id"))
            let removed = try await api.call(.delete, "/api/v1/courses/\(courseID)/timetable/\(slot)", as: teacher)
            #expect(removed.status == .noContent)
            let left = try await api.call(.get, "/api/v1/courses/\(courseID)/sessions", as: teacher)
            #expect(left.list("sessions").count == 1)
        }
    }

    @Test func a_timetable_is_capped_in_slots_and_in_the_sessions_it_schedules() async throws {
        try await withServer { api in
            // Setup: a course filled with one-year daily slots.
            let (teacher, courseID, _) = try await api.teacherWithCourse()
            let path = "/api/v1/courses/\(courseID)/timetable"
            func slot(_ weekday: Int, _ hour: Int) -> [String: Any] {
                [
                    "weekday": weekday, "time": String(format: "%02d:00", hour), "minutes": 50, "from": "2026-09-01",
                    "until": "2027-08-31", "pastWeeks": true,
                ]
            }
            var added = 0
            var refusal: Reply?
            outer: for hour in 8..<20 {
                for weekday in 1...7 {
                    let answer = try await api.call(.post, path, as: teacher, json: slot(weekday, hour))
                    guard answer.status == .created else {
                        refusal = answer
                        break outer
                    }
                    added += 1
                }
            }

            // Validation: the term's sessions stop at the cap, with a sentence saying so, and nothing half-made.
            let refused = try #require(refusal, "\(added) slots added and none refused")
            #expect(refused.status == .conflict && refused.errorCode == "too_many_sessions", "\(refused.text)")
            let sessions = try await api.call(.get, "/api/v1/courses/\(courseID)/sessions", as: teacher)
            #expect(sessions.list("sessions").count <= Timetable.sessionsPerCourse)
            try await api.expectRefused(
                .post, path, as: teacher, json: slot(1, 21), status: .conflict, code: "too_many_sessions")

            // A short course fills its slots instead.
            let (other, otherCourse, _) = try await api.teacherWithCourse("Sid Short")
            for index in 0..<TimetableSlot.perCourse {
                var short = slot(index % 7 + 1, 8 + index / 7)
                short["until"] = "2026-09-14"
                #expect(
                    try await api.call(.post, "/api/v1/courses/\(otherCourse)/timetable", as: other, json: short)
                        .status == .created)
            }
            var oneMore = slot(1, 22)
            oneMore["until"] = "2026-09-14"
            try await api.expectRefused(
                .post, "/api/v1/courses/\(otherCourse)/timetable", as: other, json: oneMore, status: .conflict,
                code: "timetable_full")
        }
    }

    @Test func a_long_term_is_paged_in_the_api_and_folded_on_the_course_page() async throws {
        try await withServer { api in
            // Setup: a held session, then ten months of a weekly class (about 43 sessions to come).
            let room = try await Classroom.open(api)
            _ = try await api.call(.post, "/api/v1/sessions/\(room.sessionID)/close", as: room.teacher)
            func day(_ days: Double) -> String {
                String(ISO8601DateFormatter().string(from: Date().addingTimeInterval(days * 86_400)).prefix(10))
            }
            let slot: [String: Any] = ["weekday": 2, "time": "10:00", "minutes": 50, "from": day(1), "until": day(300)]
            let added = try await api.call(
                .post, "/api/v1/courses/\(room.courseID)/timetable", as: room.teacher, json: slot)
            let scheduled = Int(try #require(added.int("sessions")))
            let path = "/api/v1/courses/\(room.courseID)/sessions"

            // The calls under test.
            let first = try await api.call(.get, "\(path)?limit=10", as: room.teacher)
            let second = try await api.call(.get, "\(path)?limit=10&offset=10", as: room.teacher)
            let whole = try await api.call(.get, path, as: room.teacher)
            let page = try await api.call(.get, "/courses/\(room.courseID)", as: room.student)

            // Validation: pages that add up, and a page with the next classes first and the rest folded.
            #expect(first.list("sessions").count == 10 && first.int("total") == Int64(scheduled + 1), "\(first.text)")
            let ids = { (reply: Reply) in reply.list("sessions").compactMap { ($0["id"] as? NSNumber)?.int64Value } }
            #expect(Set(ids(first)).isDisjoint(with: ids(second)))
            #expect(ids(whole).prefix(20) == (ids(first) + ids(second))[...])
            let list = try #require(page.text.firstRange(of: "id=\"session-list\"")).upperBound
            let shown = page.text[list...].prefix { _ in true }.components(separatedBy: "</ul>")[0]
            #expect(shown.components(separatedBy: "<li>").count - 1 == CoursePage.nextShown + 1, "\(shown)")
            #expect(page.text.contains("id=\"next-session\""), "with nothing open, the next session is named on top")
            #expect(
                page.text.contains("<summary>\(scheduled - CoursePage.nextShown) more to come</summary>"),
                "\(scheduled) scheduled")
            for (query, code) in [
                ("limit=0", "invalid_limit"), ("limit=501", "invalid_limit"), ("offset=-1", "invalid_offset"),
                ("limit=ten", "invalid_limit"),
            ] {
                try await api.expectRefused(.get, "\(path)?\(query)", as: room.teacher, status: .badRequest, code: code)
            }
        }
    }

    @Test func the_courses_defaults_give_new_and_timetabled_sessions_their_check_in_settings() async throws {
        try await withServer { api in
            let (teacher, courseID, _) = try await api.teacherWithCourse()
            let coursePath = "/api/v1/courses/\(courseID)"
            let defaults: [String: Any] = [
                "mode": "qr", "latitude": 48.85, "longitude": 2.35, "classroomSize": "hall", "lateAfterMinutes": 15,
                "allowTyping": true, "room": "Amphi A",
            ]
            for (bad, code) in [
                (["latitude": 48.85], "invalid_latitude"), (["period": 99], "invalid_period"),
                (["mode": "spot"], "invalid_latitude"),
            ] as [([String: Any], String)] {
                try await api.expectRefused(
                    .patch, coursePath, as: teacher, json: ["sessionDefaults": bad], status: .badRequest, code: code)
            }
            let saved = try await api.call(.patch, coursePath, as: teacher, json: ["sessionDefaults": defaults])
            #expect(saved.string("course.sessionDefaults.room") == "Amphi A", "\(saved.text)")

            // A session opened with nothing said takes them; one that says otherwise keeps its own.
            let plain = try await api.call(.post, "\(coursePath)/sessions", as: teacher, json: [:])
            #expect(plain.value("session.settings.geofence.radius") as? Double == ClassroomSize.hall.radius)
            #expect(
                plain.int("session.settings.lateAfterMinutes") == 15
                    && plain.value("session.settings.allowTyping") as? Bool == true)
            _ = try await api.call(
                .post, "/api/v1/sessions/\(try #require(plain.int("session.id")))/close", as: teacher)
            let own = try await api.call(
                .post, "\(coursePath)/sessions", as: teacher, json: ["settings": ["lateAfterMinutes": 5, "room": "B1"]])
            #expect(own.int("session.settings.lateAfterMinutes") == 5 && own.string("session.settings.room") == "B1")
            _ = try await api.call(.post, "/api/v1/sessions/\(try #require(own.int("session.id")))/close", as: teacher)

            // A weekly class made with nothing but its times gets the location, typed code and late rule too.
            let day = { (days: Double) in
                String(ISO8601DateFormatter().string(from: Date().addingTimeInterval(days * 86_400)).prefix(10))
            }
            let slot = try await api.call(
                .post, "\(coursePath)/timetable", as: teacher,
                json: ["weekday": 3, "time": "09:00", "minutes": 90, "from": day(1), "until": day(30)])
            #expect(slot.status == .created, "\(slot.text)")
            let listed = try await api.call(.get, "\(coursePath)/sessions", as: teacher)
            let scheduled = try #require(listed.list("sessions").first { $0["phase"] as? String == "scheduled" })
            let settings = try #require(scheduled["settings"] as? [String: Any])
            #expect(
                settings["lateAfterMinutes"] as? Int == 15 && settings["allowTyping"] as? Bool == true, "\(settings)")
            #expect(settings["openMinutes"] as? Int == 90 && settings["geofence"] != nil)

            // The forms start from the defaults, and a scheduled session offers its settings to correct.
            let page = try await api.call(.get, "/courses/\(courseID)", as: teacher)
            #expect(page.text.contains(#"name="settings.latitude" data-geo="latitude" value="48.85""#))
            #expect(
                page.text.contains(#"name="sessionDefaults.room" maxlength="80" placeholder="B204" value="Amphi A""#))
            let id = try #require((scheduled["id"] as? NSNumber)?.int64Value)
            let sessionPage = try await api.call(.get, "/sessions/\(id)", as: teacher)
            #expect(sessionPage.text.contains("id=\"settings-form\"") && sessionPage.text.contains("value=\"Amphi A\""))
            let changed = try await api.call(
                .patch, "/api/v1/sessions/\(id)", as: teacher, json: ["settings": ["mode": "typed", "openMinutes": 90]])
            #expect(changed.string("session.settings.mode") == "typed", "\(changed.text)")
        }
    }

    @Test func bad_slots_are_refused_and_schedule_nothing() async throws {
        try await withServer { api in
            let (teacher, courseID, _) = try await api.teacherWithCourse()
            let path = "/api/v1/courses/\(courseID)/timetable"
            let good: [String: Any] = [
                "weekday": 1, "time": "09:00", "minutes": 60, "from": "2026-09-01", "until": "2026-12-20",
            ]
            let cases: [(String, Any, String)] = [
                ("weekday", 9, "invalid_weekday"), ("time", "9am", "invalid_time"), ("time", "25:00", "invalid_time"),
                ("minutes", 2, "invalid_minutes"), ("from", "2026-02-30", "invalid_from"),
                ("from", "01/09/2026", "invalid_from"), ("until", "2026-08-01", "invalid_until"),
                ("until", "2028-09-01", "invalid_until"), ("settings", ["period": 99], "invalid_period"),
                // A term over by now schedules nothing unless the past weeks are asked for.
                ("until", "2026-10-01", "invalid_until"), ("pastWeeks", "yes", "wrong_type"),
            ]
            for (field, value, code) in cases {
                var body = good
                body[field] = value
                try await api.expectRefused(.post, path, as: teacher, json: body, status: .badRequest, code: code)
                // The field at fault is named, for the page to mark it.
                let reply = try await api.call(.post, path, as: teacher, json: body)
                let named = try #require(reply.string("error.details.field"), "\(reply.text)")
                #expect(named.hasPrefix(field) || code == "invalid_\(named)", "\(reply.text)")
            }
            var missing = good
            missing["time"] = nil
            try await api.expectRefused(
                .post, path, as: teacher, json: missing, status: .badRequest, code: "missing_field")
            let student = try await api.register("Sam Student")
            try await api.expectRefused(.post, path, as: student, json: good, status: .forbidden, code: "forbidden")
            try await api.expectRefused(
                .delete, "\(path)/999", as: teacher, status: .notFound, code: "timetable_slot_not_found")
        }
    }

    /// Two weekly classes share one sequence, in the order they meet; a timetable set up mid-term starts from today
    /// unless the teacher asks for the weeks already past.
    @Test func two_weekly_classes_number_one_sequence_and_a_late_timetable_starts_today() async throws {
        try await withServer { api in
            let (teacher, courseID, _) = try await api.teacherWithCourse()
            _ = try await api.call(.patch, "/api/v1/courses/\(courseID)", as: teacher, json: ["timeZone": "UTC"])
            let utc = TimeText(zoneIdentifier: "UTC")
            let from = utc.isoDay(Date().addingTimeInterval(-28 * 86_400))
            let until = utc.isoDay(Date().addingTimeInterval(27 * 86_400))
            let path = "/api/v1/courses/\(courseID)/timetable"
            for weekday in [2, 4] {
                let slot: [String: Any] = [
                    "weekday": weekday, "time": "23:50", "minutes": 5, "title": "Cours", "from": from, "until": until,
                ]
                let added = try await api.call(.post, path, as: teacher, json: slot)
                #expect(added.status == .created, "\(added.text)")
                #expect(added.int("sessions").map { (3...4).contains($0) } == true, "from today: \(added.text)")
            }
            let listed = try await api.call(.get, "/api/v1/courses/\(courseID)/sessions", as: teacher).list("sessions")
            let sorted = listed.sorted { ($0["scheduledAt"] as? String ?? "") < ($1["scheduledAt"] as? String ?? "") }
            #expect(sorted.map { $0["title"] as? String } == sorted.indices.map { "Cours \($0 + 1)" })
            #expect(sorted.allSatisfy { ($0["scheduledAt"] as? String ?? "") > utc.isoDay(Date()) })
            // Each read once on its own, as its page reads it: the process keeps its title from now on.
            for session in sorted {
                let id = try #require((session["id"] as? NSNumber)?.int64Value)
                #expect(try await api.call(.get, "/api/v1/sessions/\(id)", as: teacher).status == .ok)
            }

            // Asked for, the four weeks past are scheduled too, and the sequence takes them in order.
            let slot: [String: Any] = [
                "weekday": 6, "time": "12:00", "minutes": 50, "title": "Cours", "from": from, "until": until,
                "pastWeeks": true,
            ]
            let added = try await api.call(.post, path, as: teacher, json: slot)
            #expect(added.int("sessions") == 8, "\(added.text)")
            let all = try await api.call(.get, "/api/v1/courses/\(courseID)/sessions", as: teacher).list("sessions")
            let titles = all.sorted { ($0["scheduledAt"] as? String ?? "") < ($1["scheduledAt"] as? String ?? "") }
                .map { $0["title"] as? String }
            #expect(titles == titles.indices.map { "Cours \($0 + 1)" }, "\(titles)")
            // Renumbered, each of the sessions read before says its new number on its own page too.
            for session in sorted {
                let id = try #require((session["id"] as? NSNumber)?.int64Value)
                let page = try await api.call(.get, "/api/v1/sessions/\(id)", as: teacher)
                let listedTitle = all.first { ($0["id"] as? NSNumber)?.int64Value == id }?["title"] as? String
                #expect(page.string("session.title") == listedTitle, "\(page.text)")
            }
            #expect(all.count == sorted.count + 8)
        }
    }
}
