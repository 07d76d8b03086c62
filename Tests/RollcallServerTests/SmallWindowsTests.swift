import Foundation
import HTTPTypes
import RollcallCore
import RollcallModel
import RollcallParts
import ServerTestSupport
import Testing

@testable import RollcallServer

/// Windows left open on purpose in an earlier round: a change that left no trace, and pages that offered what the
/// API refuses.
@Suite("Small windows closed", .timeLimit(.minutes(5)))
struct SmallWindowsTests {
    @Test func removing_a_member_of_staff_is_kept_in_the_course_audit() async throws {
        try await withServer { api in
            let room = try await Classroom.open(api)
            let assistant = try await api.register("Tam Assistant")
            let path = "/api/v1/courses/\(room.courseID)/staff"
            let added = try await api.call(
                .post, path, as: room.teacher, json: ["email": assistant.email, "role": "assistant"])
            #expect(added.status == .created, "\(added.text)")
            let removed = try await api.call(.delete, "\(path)/\(assistant.id)", as: room.teacher)
            #expect(removed.status == .noContent, "\(removed.text)")

            let audit = try await api.call(.get, "/api/v1/courses/\(room.courseID)/audit", as: room.teacher)
            let entry = try #require(audit.list("entries").first, "\(audit.text)")
            #expect(entry["action"] as? String == "staff_removed")
            #expect(entry["detail"] as? String == "Tam Assistant (assistant)")
            #expect(entry["actorId"] as? Int == Int(room.teacher.id))
            // Removing someone who is not on the staff is refused and writes nothing.
            try await api.expectRefused(
                .delete, "\(path)/\(assistant.id)", as: room.teacher, status: .notFound, code: "staff_not_found")
        }
    }

    @Test func the_admin_page_offers_health_officer_only_where_the_api_takes_it() async throws {
        try await withServer { api in
            let admin = try await api.admin()
            let grant = "POST /api/v1/admin/users/\(admin.id)/health-officer"
            // The only admin may make themselves one; the page offers it.
            #expect(try await api.call(.get, "/admin", as: admin).text.contains(grant))
            try await api.database().closing { database in
                _ = try await UserStore(database: database).create(
                    NewUser(
                        name: "Second Admin", email: "second@school.test",
                        passwordHash: try await PasswordHasher(cost: 4).hash(API.password), role: .admin,
                        studentNumber: nil, approved: true, emailVerified: true))
            }
            let second = try await api.signIn("second@school.test")
            // With a second admin, the API wants the other one to grant it: the page does not offer it on one's own
            // row, and offers it on the other's.
            let page = try await api.call(.get, "/admin", as: admin)
            #expect(!page.text.contains(grant), "not on the admin's own row")
            #expect(page.text.contains("POST /api/v1/admin/users/\(second.id)/health-officer"))
            try await api.expectRefused(
                .post, "/api/v1/admin/users/\(admin.id)/health-officer", as: admin, status: .forbidden,
                code: "second_admin_required")
        }
    }

    @Test func an_archived_course_page_offers_no_change_but_restoring() async throws {
        try await withServer { api in
            let room = try await Classroom.open(api)
            let archived = try await api.call(
                .patch, "/api/v1/courses/\(room.courseID)", as: room.teacher, json: ["archived": true])
            #expect(archived.status == .ok, "\(archived.text)")
            let page = try await api.call(.get, "/courses/\(room.courseID)", as: room.teacher)
            #expect(page.status == .ok)
            for form in [
                "open-session-form", "session-defaults-form", "timetable-form", "add-student-form", "staff-form",
                "import-form", "record-settings-form", "verification-form", "edit-course-form", "poster-form",
            ] {
                #expect(!page.text.contains("id=\"\(form)\""), "\(form) on an archived course")
            }
            #expect(!page.text.contains("DELETE /api/v1/courses/\(room.courseID)/students/"), "no removing students")
            #expect(page.text.contains("id=\"archive-form\""), "restoring is the one change offered")

            // Restored, the forms are back.
            _ = try await api.call(
                .patch, "/api/v1/courses/\(room.courseID)", as: room.teacher, json: ["archived": false])
            let restored = try await api.call(.get, "/courses/\(room.courseID)", as: room.teacher)
            #expect(restored.text.contains("id=\"open-session-form\""))
            #expect(restored.text.contains("DELETE /api/v1/courses/\(room.courseID)/students/\(room.student.id)"))
        }
    }
}
