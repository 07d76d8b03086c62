import Foundation
import HTTPTypes
import RollcallCore
import ServerTestSupport
import Testing

@testable import RollcallServer

/// Every page writes moments in the course's zone (the person's where no course is involved), named where a reader
/// could be elsewhere; the server here runs in UTC, so a page in its zone would differ by hours.
@Suite("Time zones on pages", .timeLimit(.minutes(5)))
struct TimeZonePagesTests {
    static func moment(_ reply: Reply, _ path: String) throws -> Date {
        let text = try #require(reply.string(path), "\(path) in \(reply.text)")
        return try #require(RFC3339.moment(text))
    }

    @Test func a_course_in_paris_shows_paris_times_on_every_page() async throws {
        try await withServer { api in
            let paris = TimeText(zoneIdentifier: "Europe/Paris")
            let teacher = try await api.register("Tess Teacher", role: "teacher")
            let created = try await api.call(
                .post, "/api/v1/courses", as: teacher, json: ["name": "Histoire", "timeZone": "Europe/Paris"])
            let courseID = try #require(created.int("course.id"))
            let student = try await api.register("Sam Student")
            _ = try await api.call(
                .post, "/api/v1/courses/join", as: student, json: ["code": created.string("course.joinCode") ?? ""])
            let opened = try await api.call(.post, "/api/v1/courses/\(courseID)/sessions", as: teacher, json: [:])
            let sessionID = try #require(opened.int("session.id"))
            let openedAt = try Self.moment(opened, "session.openedAt")
            let closesAt = try Self.moment(opened, "session.closesAt")
            #expect(
                opened.string("session.title") == "Session of \(paris.moment(openedAt))",
                "the title reads right in Paris")

            let room = Classroom(teacher: teacher, student: student, courseID: courseID, sessionID: sessionID)
            let checkedIn = try await room.checkIn(api, student)
            let at = try Self.moment(checkedIn, "checkedInAt")

            let session = try await api.call(.get, "/sessions/\(sessionID)", as: teacher)
            let zone = paris.zoneName(at: openedAt)
            #expect(
                session.text.contains("opened \(paris.moment(openedAt)) · closes \(paris.moment(closesAt)) \(zone)"))
            #expect(session.text.contains(">\(paris.time(at))</time>"), "the room's row, in Paris")
            #expect(session.text.contains(#"<meta name="time-zone" content="Europe/Paris">"#), "for live.js")
            let course = try await api.call(.get, "/courses/\(courseID)", as: teacher)
            #expect(course.text.contains(paris.moment(openedAt)))
            let mine = try await api.call(.get, "/sessions/\(sessionID)", as: student)
            #expect(mine.text.contains(paris.momentWithZone(at)), "the student's own line names the zone")
            let record = try await api.call(.get, "/courses/\(courseID)/students/\(student.id)", as: teacher)
            #expect(record.text.contains(paris.moment(openedAt)))

            // The same moment in the server's zone appears nowhere: it would be an hour off.
            let utc = TimeText(zoneIdentifier: "UTC")
            for page in [session, course, mine, record] { #expect(!page.text.contains(utc.moment(openedAt))) }

            // The course moves to Tokyo: the session, read above and so kept by the process, says its default title
            // in Tokyo's time from now on.
            let moved = try await api.call(
                .patch, "/api/v1/courses/\(courseID)", as: teacher, json: ["timeZone": "Asia/Tokyo"])
            #expect(moved.status == .ok, "\(moved.text)")
            let tokyo = TimeText(zoneIdentifier: "Asia/Tokyo")
            let retitled = try await api.call(.get, "/api/v1/sessions/\(sessionID)", as: teacher)
            #expect(retitled.string("session.title") == "Session of \(tokyo.moment(openedAt))", "\(retitled.text)")
        }
    }

    @Test func pages_without_a_course_use_the_persons_zone_which_the_browser_sets_first() async throws {
        try await withServer { api in
            let admin = try await api.admin()
            let before = try await api.call(.get, "/profile", as: admin)
            #expect(before.text.contains(#"<meta name="time-zone-unset" content="1">"#), "the browser is asked")
            try await api.expectRefused(
                .patch, "/api/v1/me", as: admin, json: ["timeZone": "Mars/Olympus"], status: .badRequest,
                code: "invalid_time_zone")
            try await api.expectRefused(
                .patch, "/api/v1/me", as: admin, json: ["timeZone": "CET+1"], status: .badRequest,
                code: "invalid_time_zone")
            let set = try await api.call(.patch, "/api/v1/me", as: admin, json: ["timeZone": "Asia/Kolkata"])
            #expect(set.string("user.timeZone") == "Asia/Kolkata", "\(set.text)")

            let after = try await api.call(.get, "/profile", as: admin)
            #expect(!after.text.contains("time-zone-unset"))
            #expect(after.text.contains(#"<option value="Asia/Kolkata" selected>"#))
            #expect(after.text.contains(#"<meta name="time-zone" content="Asia/Kolkata">"#))

            // The outbox on the admin page, in the admin's zone.
            _ = try await api.register("Mia Mail")
            let outbox = try await api.call(.get, "/api/v1/admin/outbox", as: admin)
            let sent = try #require(RFC3339.moment(outbox.list("messages").first?["createdAt"] as? String ?? ""))
            let page = try await api.call(.get, "/admin", as: admin)
            #expect(page.text.contains(TimeText(zoneIdentifier: "Asia/Kolkata").moment(sent)))
        }
    }
}
