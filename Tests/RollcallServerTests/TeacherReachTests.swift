import Foundation
import RollcallModel
import RollcallParts
import ServerTestSupport
import Testing

@testable import RollcallServer

/// Who may reach people through a course: only a teacher whose address is confirmed, or whom the school or an admin
/// vouches for, adds, imports or invites; and invitation letters are capped per teacher per day.
@Suite("Teachers' reach", .timeLimit(.minutes(5)))
struct TeacherReachTests {
    static func csv(_ people: [(String, String)]) -> [UInt8] {
        Array((["name,email"] + people.map { "\($0.0),\($0.1)" }).joined(separator: "\n").utf8)
    }

    @Test func a_teacher_with_an_unconfirmed_address_adds_imports_and_invites_nobody() async throws {
        try await withServer { api in
            let teacher = try await api.register("Una Unconfirmed", role: "teacher", confirmed: false)
            let course = try await api.call(.post, "/api/v1/courses", as: teacher, json: ["name": "Biology 101"])
            let id = try #require(course.int("course.id"))
            let student = try await api.register("Stu Dent", studentNumber: "S-1")
            let colleague = try await api.register("Cora Colleague", role: "teacher")

            for (path, json) in [
                ("students", ["email": student.email]), ("students", ["studentNumber": "S-1"]),
                ("staff", ["email": colleague.email, "role": "assistant"]),
            ] as [(String, [String: String])] {
                try await api.expectRefused(
                    .post, "/api/v1/courses/\(id)/\(path)", as: teacher, json: json, status: .forbidden,
                    code: "email_unconfirmed")
            }
            try await api.expectRefused(
                .post, "/api/v1/courses/\(id)/roster-import", as: teacher,
                raw: Self.csv([("Stu Dent", student.email), ("New Person", "new@school.test")]),
                contentType: "text/csv", status: .forbidden, code: "email_unconfirmed")
            #expect(try await api.outbox().allSatisfy { $0.recipient != "new@school.test" }, "nobody was invited")

            // The page says why the forms are missing and offers the link again.
            let page = try await api.call(.get, "/courses/\(id)", as: teacher)
            #expect(page.text.contains("id=\"confirm-to-reach\"") && !page.text.contains("id=\"add-student-form\""))
            #expect(!page.text.contains("id=\"import-form\"") && !page.text.contains("id=\"staff-form\""))

            // The mailed link confirms the address; then the same requests work.
            let letter = try #require(
                try await api.outbox().first { $0.recipient == teacher.email && $0.body.contains("token=") })
            let token = try #require(letter.body.firstMatch(of: /token=([\w-]+)/)?.1)
            let confirmed = try await api.call(.post, "/api/v1/auth/verify-email", json: ["token": String(token)])
            #expect(confirmed.status == .ok, "\(confirmed.text)")
            let added = try await api.call(
                .post, "/api/v1/courses/\(id)/students", as: teacher, json: ["email": student.email])
            #expect(added.status == .created, "\(added.text)")
            let imported = try await api.call(
                .post, "/api/v1/courses/\(id)/roster-import", as: teacher,
                raw: Self.csv([("New Person", "new@school.test")]), contentType: "text/csv")
            #expect(imported.list("invited").count == 1, "\(imported.text)")
            let now = try await api.call(.get, "/courses/\(id)", as: teacher)
            #expect(now.text.contains("id=\"add-student-form\"") && !now.text.contains("id=\"confirm-to-reach\""))
        }
    }

    @Test func a_teacher_an_admin_made_needs_no_confirmed_address() async throws {
        try await withServer { api in
            let admin = try await api.admin()
            let teacher = try await api.register("Abe Appointed", confirmed: false)
            let student = try await api.register("Stu Dent")
            let made = try await api.call(
                .put, "/api/v1/admin/users/\(teacher.id)/role", as: admin, json: ["role": "teacher"])
            #expect(made.status == .ok, "\(made.text)")
            let course = try await api.call(.post, "/api/v1/courses", as: teacher, json: ["name": "Biology 101"])
            let id = try #require(course.int("course.id"))
            let added = try await api.call(
                .post, "/api/v1/courses/\(id)/students", as: teacher, json: ["email": student.email])
            #expect(added.status == .created, "vouched for by an admin: \(added.text)")
        }
    }

    @Test func invitations_beyond_the_daily_allowance_wait_and_go_out_as_it_frees_up() async throws {
        try await withServer(configure: { $0.invitationsPerDay = 3 }) { api in
            let room = try await Classroom.open(api)
            let path = "/api/v1/courses/\(room.courseID)/roster-import"
            let five = (1...5).map { ("Person \($0)", "person\($0)@school.test") }
            let imported = try await api.call(
                .post, path, as: room.teacher, raw: Self.csv(five), contentType: "text/csv")
            #expect(imported.status == .ok, "\(imported.text)")
            #expect(imported.list("invited").count == 5 && imported.int("waiting") == 2, "\(imported.text)")
            #expect(imported.int("invitationsPerDay") == 3)
            #expect(imported.list("invited").filter { $0["mailedAt"] == nil }.count == 2)
            func invitationLetters() async throws -> [String] {
                try await api.outbox().filter { $0.body.contains("/register?email=") }.map(\.recipient).sorted()
            }
            #expect(
                try await invitationLetters() == ["person1@school.test", "person2@school.test", "person3@school.test"])

            // The page shows what waits.
            let page = try await api.call(.get, "/courses/\(room.courseID)", as: room.teacher)
            #expect(page.text.contains("2 invitations wait to be mailed: at most 3 go out for you in a day"))
            #expect(page.text.components(separatedBy: "waiting to be mailed").count - 1 == 2)

            // The same file again mails nobody; a new name waits too, the allowance being spent.
            let again = try await api.call(
                .post, path, as: room.teacher, raw: Self.csv(five + [("Person 6", "person6@school.test")]),
                contentType: "text/csv")
            #expect(again.int("alreadyInvited") == 5 && again.int("waiting") == 3, "\(again.text)")
            #expect(try await invitationLetters().count == 3)

            try await api.database().closing { database async throws in
                let mail = InvitationMail(
                    database: database, outbox: Outbox(database: database, logger: .init(label: "test")), perDay: 3,
                    school: "Rollcall", publicURL: "http://localhost:8080")
                #expect(try await mail.sendAllWaiting() == 0, "nothing more within the same day")
                // A day later, the next three go out, oldest first; then the allowance is spent again.
                let tomorrow = Date().addingTimeInterval(InvitationMail.day + 60)
                #expect(try await mail.sendAllWaiting(now: tomorrow) == 3)
                #expect(try await mail.sendAllWaiting(now: tomorrow) == 0)
            }
            #expect(try await invitationLetters() == (1...6).map { "person\($0)@school.test" })
            let invitations = try await api.call(.get, "/api/v1/courses/\(room.courseID)/invitations", as: room.teacher)
            #expect(invitations.list("invitations").allSatisfy { $0["mailedAt"] != nil }, "\(invitations.text)")
        }
    }
}
