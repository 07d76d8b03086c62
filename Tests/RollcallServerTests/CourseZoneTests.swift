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

/// A new course takes its teacher's zone, and its weekly classes are wall-clock times in it: on a server in UTC, a
/// teacher in Lyon's Tuesday 08:15 is 07:15 UTC in winter and 06:15 UTC in summer.
@Suite("A course's zone", .timeLimit(.minutes(2)))
struct CourseZoneTests {
    /// The starts of the sessions a weekly class at 08:15 schedules in a winter week and a summer week of 2027.
    static func classStarts(_ api: API, _ teacher: Account, course: Int64) async throws -> [String] {
        for (from, until) in [("2027-01-04", "2027-01-10"), ("2027-06-07", "2027-06-13")] {
            let slot: [String: Any] = ["weekday": 2, "time": "08:15", "minutes": 90, "from": from, "until": until]
            let added = try await api.call(.post, "/api/v1/courses/\(course)/timetable", as: teacher, json: slot)
            #expect(added.status == .created, "\(added.text)")
        }
        let listed = try await api.call(.get, "/api/v1/courses/\(course)/sessions", as: teacher)
        // Read as instants, written back to the second: "2027-01-05T07:15:00Z".
        return listed.list("sessions").compactMap { ($0["scheduledAt"] as? String).flatMap { Date(isoText: $0) } }
            .sorted().map { ISO8601DateFormatter().string(from: $0) }
    }

    static func create(_ api: API, _ teacher: Account, zone: String? = nil) async throws -> (Int64, String?) {
        var body: [String: Any] = ["name": "Histoire"]
        if let zone { body["timeZone"] = zone }
        let created = try await api.call(.post, "/api/v1/courses", as: teacher, json: body)
        #expect(created.status == .created, "\(created.text)")
        return (try #require(created.int("course.id")), created.string("course.timeZone"))
    }

    @Test func a_new_course_takes_the_zone_the_form_shows_else_the_profiles_else_the_schools() async throws {
        try await withServer { api in
            // The form shows a labelled zone, to change; with no zone on the profile the browser's is picked.
            let teacher = try await api.register("Lea Lyon", role: "teacher")
            let form = try await api.call(.get, "/courses", as: teacher)
            #expect(form.text.contains(#"<select name="timeZone" id="new-course-time-zone""#), "\(form.text)")
            #expect(form.text.contains("data-browser-zone"))
            #expect(form.text.contains(">Time zone <select"))

            // What the form sends: the browser's zone, Europe/Paris.
            let (paris, zone) = try await Self.create(api, teacher, zone: "Europe/Paris")
            #expect(zone == "Europe/Paris")
            #expect(
                try await Self.classStarts(api, teacher, course: paris) == [
                    "2027-01-05T07:15:00Z", "2027-06-08T06:15:00Z",
                ])
            let page = try await api.call(.get, "/courses/\(paris)", as: teacher)
            #expect(page.text.contains("Tuesdays at 08:15 (Europe/Paris), 90 minutes"), "the zone is named")

            // Nothing sent, no profile zone, no school zone: the server's, as before.
            let (plain, serverZone) = try await Self.create(api, teacher)
            #expect(serverZone == CourseTimeZone.serverDefault)
            let local = TimeText(zoneIdentifier: CourseTimeZone.serverDefault)
            let starts = try await Self.classStarts(api, teacher, course: plain).compactMap { Date(isoText: $0) }
            #expect(starts.map { local.isoDay($0) } == ["2027-01-05", "2027-06-08"])

            // The teacher's profile names a zone (the browser's first visit sets it): a course sent without one takes it.
            _ = try await api.call(.patch, "/api/v1/me", as: teacher, json: ["timeZone": "Europe/Paris"])
            let (own, ownZone) = try await Self.create(api, teacher)
            #expect(ownZone == "Europe/Paris")
            #expect(
                try await Self.classStarts(api, teacher, course: own) == [
                    "2027-01-05T07:15:00Z", "2027-06-08T06:15:00Z",
                ])
            let shown = try await api.call(.get, "/courses", as: teacher)
            #expect(shown.text.contains(#"<option value="Europe/Paris" selected>"#))
            #expect(!shown.text.contains("data-browser-zone"), "the profile's zone, not the browser's")
        }
    }

    @Test func the_schools_zone_is_the_fallback_and_is_checked_at_start() async throws {
        try await withServer(configure: { $0.defaultTimeZone = "Europe/Paris" }) { api in
            let teacher = try await api.register("Lea Lyon", role: "teacher")
            let (course, zone) = try await Self.create(api, teacher)
            #expect(zone == "Europe/Paris")
            #expect(
                try await Self.classStarts(api, teacher, course: course) == [
                    "2027-01-05T07:15:00Z", "2027-06-08T06:15:00Z",
                ])
            let form = try await api.call(.get, "/courses", as: teacher)
            #expect(
                form.text.contains(#"<option value="Europe/Paris" selected>"#), "shown until the browser's is picked")
        }
        let read = try Configuration.fromEnvironment(["ROLLCALL_DEFAULT_TIME_ZONE": "America/Chicago"])
        #expect(read.defaultTimeZone == "America/Chicago" && read.schoolTimeZone == "America/Chicago")
        #expect(try Configuration.fromEnvironment([:]).schoolTimeZone == CourseTimeZone.serverDefault)
        for bad in ["Mars/Olympus", "CET+1", "Paris", "GMT+2"] {
            let error = #expect(throws: ConfigurationError.self, "\(bad)") {
                try Configuration.fromEnvironment(["ROLLCALL_DEFAULT_TIME_ZONE": bad])
            }
            #expect(error?.variable == "ROLLCALL_DEFAULT_TIME_ZONE")
            #expect(error?.description.contains("IANA time zone") == true, "\(String(describing: error))")
        }
    }

    @Test func an_unknown_zone_is_refused_and_nothing_is_stored() async throws {
        try await withServer { api in
            let (teacher, courseID, _) = try await api.teacherWithCourse()
            for bad in ["Mars/Olympus", "CET+1", "Europe/Lyon", ""] {
                try await api.expectRefused(
                    .post, "/api/v1/courses", as: teacher, json: ["name": "Histoire", "timeZone": bad],
                    status: .badRequest, code: "invalid_time_zone")
                try await api.expectRefused(
                    .patch, "/api/v1/courses/\(courseID)", as: teacher, json: ["timeZone": bad],
                    status: .badRequest, code: "invalid_time_zone")
            }
        }
    }

    @Test func a_new_zone_moves_the_timetables_sessions_to_come_and_leaves_the_rest() async throws {
        try await withServer { api in
            // A weekly class in UTC that began a minute ago, from a week ago to a fortnight ahead: one missed, one
            // open, two to come.
            let (teacher, courseID, _) = try await api.teacherWithCourse()
            _ = try await api.call(.patch, "/api/v1/courses/\(courseID)", as: teacher, json: ["timeZone": "UTC"])
            let utc = TimeText(zoneIdentifier: "UTC")
            let start = Date().addingTimeInterval(-60)
            var calendar = Calendar(identifier: .gregorian)
            calendar.timeZone = utc.zone
            let parts = calendar.dateComponents([.hour, .minute, .weekday], from: start)
            let slot: [String: Any] = [
                "weekday": (parts.weekday! + 5) % 7 + 1,
                "time": String(format: "%02d:%02d", parts.hour!, parts.minute!),
                "minutes": 50, "from": utc.isoDay(start.addingTimeInterval(-7 * 86_400)),
                "until": utc.isoDay(start.addingTimeInterval(14 * 86_400)), "pastWeeks": true,
            ]
            let added = try await api.call(.post, "/api/v1/courses/\(courseID)/timetable", as: teacher, json: slot)
            #expect(added.int("sessions") == 4, "\(added.text)")
            let database = try Database.sqlite(path: api.databasePath, logger: .init(label: "test"))
            #expect(try await database.closing { try await TimetableStore(database: $0).openDue() }.count == 1)
            let before = try await Self.starts(api, teacher, courseID)

            let moved = try await api.call(
                .patch, "/api/v1/courses/\(courseID)", as: teacher, json: ["timeZone": "Asia/Tokyo"])
            #expect(moved.int("rescheduledSessions") == 2, "\(moved.text)")
            let after = try await Self.starts(api, teacher, courseID)
            // The two to come are at the same wall-clock time in Tokyo (nine hours ahead, no summer time).
            for (title, at) in before {
                let now = try #require(after[title])
                if at > Date() {
                    #expect(now == at.addingTimeInterval(-9 * 3600), "\(title) follows the zone")
                    #expect(TimeText(zoneIdentifier: "Asia/Tokyo").time(now) == utc.time(at))
                } else {
                    #expect(now == at, "\(title), held or past, stays")
                }
            }
            // The page names the zone beside the class, and its term keeps its days.
            let page = try await api.call(.get, "/courses/\(courseID)", as: teacher)
            #expect(page.text.contains("(Asia/Tokyo), 50 minutes"), "\(page.text)")
            #expect(page.text.contains("\(slot["from"]!) to \(slot["until"]!)"))
            let zoneForm = try #require(page.text.range(of: #"id="time-zone-form""#))
            let timetable = try #require(page.text.range(of: #"id="timetable""#))
            #expect(timetable.lowerBound < zoneForm.lowerBound, "the zone is set beside the timetable it governs")
            #expect(page.text.contains("Changing it moves the timetable's sessions still to come"))

            // Saving the same zone again moves nothing.
            let again = try await api.call(
                .patch, "/api/v1/courses/\(courseID)", as: teacher, json: ["timeZone": "Asia/Tokyo"])
            #expect(again.int("rescheduledSessions") == 0)
            #expect(try await Self.starts(api, teacher, courseID) == after)
        }
    }

    /// A reader an hour behind the course is told whose times the page shows, with both clocks; a reader whose
    /// clock shows the same time, or whose zone is not known, is told nothing.
    @Test func the_zone_note_names_both_clocks_only_where_they_differ() throws {
        let bogota = TimeText(zoneIdentifier: "America/Bogota")
        let noon = try #require(Date(isoText: "2027-01-26T17:00:00Z"))
        let note = try #require(
            ZoneNote.text(page: bogota, reader: TimeZone(identifier: "America/Mexico_City"), at: noon, in: .english))
        #expect(
            note.contains("America/Bogota: 12:00 PM there now is 11:00 AM your time (America/Mexico_City)"), "\(note)")
        #expect(
            ZoneNote.text(page: bogota, reader: TimeZone(identifier: "America/Lima"), at: noon, in: .english) == nil)
        #expect(ZoneNote.text(page: bogota, reader: nil, at: noon, in: .english) == nil)
    }

    /// Each session's start (its opening, once opened), by title.
    static func starts(_ api: API, _ teacher: Account, _ courseID: Int64) async throws -> [String: Date] {
        let listed = try await api.call(.get, "/api/v1/courses/\(courseID)/sessions", as: teacher)
        var starts: [String: Date] = [:]
        for session in listed.list("sessions") {
            let text = (session["openedAt"] as? String) ?? (session["scheduledAt"] as? String) ?? ""
            starts[session["title"] as? String ?? ""] = Date(isoText: text)
        }
        return starts
    }
}
