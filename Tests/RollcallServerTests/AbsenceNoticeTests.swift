import Foundation
import HTTPTypes
import RollcallCore
import RollcallDelivery
import RollcallModel
import RollcallParts
import RollcallStorage
import ServerTestSupport
import Testing

@testable import RollcallServer
@testable import RollcallTeaching

/// The weekly absence notices: off by default; once on, each Monday a note to every student below the threshold who
/// did not turn it off, and the list to the teachers, queued once.
@Suite("Absence notices", .serialized, .timeLimit(.minutes(5)))
struct AbsenceNoticeTests {
    /// A course in UTC with two closed sessions: Ann came to both, Cat to one, Ben and Dan to none.
    struct Term {
        var room: Classroom
        var ann: Account
        var ben: Account
        var cat: Account
        var dan: Account
    }

    static func term(_ api: API) async throws -> Term {
        let room = try await Classroom.open(api, student: "Ann Attends")
        _ = try await api.call(.patch, "/api/v1/courses/\(room.courseID)", as: room.teacher, json: ["timeZone": "UTC"])
        let ben = try await room.enrol(api, "Ben Absent")
        let cat = try await room.enrol(api, "Cat Halfway")
        let dan = try await room.enrol(api, "Dan Declines")
        try await api.mark(room, session: room.sessionID, student: room.student.id, "present")
        try await api.mark(room, session: room.sessionID, student: cat.id, "present")
        _ = try await api.call(.post, "/api/v1/sessions/\(room.sessionID)/close", as: room.teacher)
        let second = try await api.pastSession(room, title: "Second")
        try await api.mark(room, session: second, student: room.student.id, "present")
        return Term(room: room, ann: room.student, ben: ben, cat: cat, dan: dan)
    }

    /// The notices as a process sees them, on the test server's database.
    static func sendDue(_ api: API, at now: Date) async throws -> [AbsenceNotices.Week] {
        let database = try Database.sqlite(path: api.databasePath, logger: .init(label: "test"))
        return try await database.closing { database in
            try await AbsenceNotices(
                stores: Stores(database: database),
                school: "École Saint-Exupéry", publicURL: "https://rollcall.school.test"
            ).sendDue(now: now)
        }
    }

    static let week: TimeInterval = 7 * 86_400

    /// An hour after next week's Monday 08:00 UTC: after notices turned on now, the first moment they are due.
    static func nextMonday() -> Date {
        AbsenceNoticeSchedule.latestDue(
            atOrBefore: Date().addingTimeInterval(week), timeZone: TimeZone(identifier: "UTC")!
        )
        .addingTimeInterval(3600)
    }

    @Test func notices_are_off_until_a_teacher_turns_them_on() async throws {
        try await withServer { api in
            let term = try await Self.term(api)
            let course = try await api.call(.get, "/api/v1/courses/\(term.room.courseID)", as: term.room.teacher)
            #expect(course.value("course.absenceNotices") as? Bool == false)
            let before = try await api.outbox().count
            #expect(try await Self.sendDue(api, at: Self.nextMonday()).isEmpty)
            #expect(try await api.outbox().count == before)
        }
    }

    @Test func each_monday_students_below_the_threshold_get_a_note_and_the_teacher_the_list_once() async throws {
        try await withServer { api in
            let term = try await Self.term(api)
            let courseID = term.room.courseID
            let on = try await api.call(
                .patch, "/api/v1/courses/\(courseID)", as: term.room.teacher, json: ["absenceNotices": true])
            #expect(on.status == .ok, "\(on.text)")
            #expect(on.value("course.absenceNotices") as? Bool == true)
            let declined = try await api.call(
                .put, "/api/v1/courses/\(courseID)/absence-notices", as: term.dan, json: ["receive": false])
            #expect(declined.status == .ok, "\(declined.text)")
            #expect(declined.value("receive") as? Bool == false)

            // Turned on after this week's Monday morning: the first notices wait for next Monday.
            #expect(try await Self.sendDue(api, at: Date()).isEmpty)

            let before = try await api.outbox().count
            let nextWeek = Self.nextMonday()
            let weeks = try await Self.sendDue(api, at: nextWeek)
            #expect(weeks.count == 1)
            #expect(weeks.first?.students == 2 && weeks.first?.teachers == 1)
            let sent = Array(try await api.outbox().prefix(try await api.outbox().count - before))
            #expect(Set(sent.map(\.recipient)) == [term.ben.email, term.cat.email, "tess.teacher@school.test"])

            let cat = try #require(sent.first { $0.recipient == term.cat.email })
            #expect(cat.subject == "Your attendance in Biology 101: 50%")
            #expect(
                cat.body.contains(
                    "You have attended 50% of the sessions of Biology 101 at École Saint-Exupéry so far (2 sessions: "
                        + "1 present, 0 late, 0 excused, 1 absent). The course asks for at least 80%."))
            #expect(cat.body.contains("tell Tess Teacher"))
            #expect(cat.body.contains("https://rollcall.school.test/courses/\(courseID)#my-attendance"))
            #expect(cat.body.contains("turn off “Weekly absence notes”"))
            #expect(cat.html?.contains("See my attendance") == true)

            let list = try #require(sent.first { $0.recipient == "tess.teacher@school.test" })
            #expect(list.subject == "Biology 101: 3 students below 80% attendance")
            #expect(list.body.contains("- Ben Absent: 0%, 2 absences in 2 sessions"))
            #expect(list.body.contains("- Dan Declines: 0%, 2 absences in 2 sessions"), "the teacher sees everyone")
            #expect(list.body.contains("- Cat Halfway: 50%, 1 absence in 2 sessions"))
            #expect(!list.body.contains("Ann Attends"))
            #expect(list.html?.contains("<li>Cat Halfway: 50%, 1 absence in 2 sessions</li>") == true)

            // The same week again, from this process or another: nothing more.
            #expect(try await Self.sendDue(api, at: nextWeek.addingTimeInterval(3600)).isEmpty)
            #expect(try await api.outbox().count == before + 3)
            // Even a process that looked before the week was claimed, and wrote its notes, queues none of them.
            let due = try #require(weeks.first?.dueAt)
            try await Database.sqlite(path: api.databasePath, logger: .init(label: "test")).closing { database in
                let course = try #require(try await CourseStore(database: database).find(id: courseID))
                let late = try await AbsenceNotices(
                    stores: Stores(database: database),
                    school: "Rollcall", publicURL: "https://rollcall.school.test"
                ).send(course, due: due, now: nextWeek)
                #expect(late == nil)
            }
            #expect(try await api.outbox().count == before + 3)
            // A time zone changed after the notes went moves the Monday morning by hours: the week is not sent again.
            _ = try await api.call(
                .patch, "/api/v1/courses/\(courseID)", as: term.room.teacher, json: ["timeZone": "Pacific/Auckland"])
            #expect(try await Self.sendDue(api, at: nextWeek.addingTimeInterval(7200)).isEmpty)
            #expect(try await api.outbox().count == before + 3)
            // The week after, again.
            #expect(try await Self.sendDue(api, at: nextWeek.addingTimeInterval(Self.week)).count == 1)
            #expect(try await api.outbox().count == before + 6)

            let page = try await api.call(.get, "/courses/\(courseID)", as: term.room.teacher)
            #expect(page.text.contains("Last sent"), "the teacher sees when the notices went")
            #expect(page.text.contains("to 2 students."))

            // Off again: nothing more goes.
            _ = try await api.call(
                .patch, "/api/v1/courses/\(courseID)", as: term.room.teacher, json: ["absenceNotices": false])
            #expect(try await Self.sendDue(api, at: nextWeek.addingTimeInterval(3 * Self.week)).isEmpty)
        }
    }

    @Test func a_student_sees_the_choice_only_while_the_course_sends_notes() async throws {
        try await withServer { api in
            let term = try await Self.term(api)
            let courseID = term.room.courseID
            let off = try await api.call(.get, "/courses/\(courseID)", as: term.cat)
            #expect(!off.text.contains("absence-notices-form"))
            _ = try await api.call(
                .patch, "/api/v1/courses/\(courseID)", as: term.room.teacher, json: ["absenceNotices": true])
            let on = try await api.call(.get, "/courses/\(courseID)", as: term.cat)
            #expect(on.text.contains("absence-notices-form"))
            #expect(on.text.contains("name=\"receive\" checked"), "on unless the student turns it off")
            _ = try await api.call(
                .put, "/api/v1/courses/\(courseID)/absence-notices", as: term.cat, json: ["receive": false])
            let declined = try await api.call(.get, "/courses/\(courseID)", as: term.cat)
            #expect(declined.text.contains("absence-notices-form"))
            #expect(!declined.text.contains("name=\"receive\" checked"))
        }
    }

    @Test func bad_input_is_refused_and_changes_nothing() async throws {
        try await withServer { api in
            let term = try await Self.term(api)
            let path = "/api/v1/courses/\(term.room.courseID)/absence-notices"
            try await api.expectRefused(
                .put, path, as: term.cat, json: ["receive": "no"], status: .badRequest, code: "wrong_type")
            try await api.expectRefused(.put, path, as: term.cat, json: [:], status: .badRequest, code: "missing_field")
            try await api.expectRefused(
                .put, path, as: term.cat, raw: Array("receive=false".utf8), contentType: "text/plain",
                status: .unsupportedMediaType, code: "unsupported_media_type")
            try await api.expectRefused(
                .put, path, as: term.room.teacher, json: ["receive": false], status: .forbidden, code: "forbidden")
            let outsider = try await api.register("Otto Outsider")
            try await api.expectRefused(
                .put, path, as: outsider, json: ["receive": false], status: .forbidden, code: "forbidden")
            try await api.expectRefused(
                .put, path, json: ["receive": false], status: .unauthorized, code: "not_signed_in")
            try await api.expectRefused(
                .put, "/api/v1/courses/999999/absence-notices", as: term.cat, json: ["receive": false],
                status: .notFound, code: "course_not_found")
            try await api.expectRefused(
                .patch, "/api/v1/courses/\(term.room.courseID)", as: term.room.teacher,
                json: ["absenceNotices": "weekly"], status: .badRequest, code: "wrong_type")
            try await api.expectRefused(
                .patch, "/api/v1/courses/\(term.room.courseID)", as: term.cat, json: ["absenceNotices": true],
                status: .forbidden, code: "forbidden")
        }
    }

    @Test func a_percentage_just_under_the_threshold_is_not_rounded_up_to_it() {
        let summary = AttendanceSummary(
            statuses: Array(repeating: .present, count: 43) + Array(repeating: .absent, count: 11),
            points: StatusPoints(present: 2, late: 1, excused: 2, absent: 0))
        #expect((summary.percentage ?? 0) > 79.5 && (summary.percentage ?? 0) < 80)
        let letter = Letters(school: "Hill School").absenceNotice(
            name: "Cat", course: "Biology 101", teacher: "Tess", summary: summary, threshold: 80, link: "https://x.test"
        )
        #expect(letter.subject == "Your attendance in Biology 101: 79%")
        #expect(letter.text.contains("You have attended 79% of the sessions"))
    }
}
