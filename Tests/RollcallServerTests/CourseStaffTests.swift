import Foundation
import HTTPTypes
import RollcallCore
import ServerTestSupport
import Testing

@testable import RollcallServer

@Suite("Co-teachers and assistants", .timeLimit(.minutes(2)))
struct CourseStaffTests {
    @Test func an_assistant_marks_attendance_and_changes_nothing_else() async throws {
        try await withServer { api in
            let room = try await Classroom.open(api)
            let path = "/api/v1/courses/\(room.courseID)/staff"
            let assistant = try await api.register("Tam Assistant")
            let added = try await api.call(
                .post, path, as: room.teacher, json: ["email": assistant.email, "role": "assistant"])
            #expect(added.status == .created, "\(added.text)")
            #expect(added.string("member.role") == "assistant")

            // What an assistant does: the roster, the room, marking one or many, undoing.
            #expect(try await api.call(.get, "/api/v1/courses/\(room.courseID)/students", as: assistant).status == .ok)
            let page = try await api.call(.get, "/sessions/\(room.sessionID)", as: assistant)
            #expect(page.status == .ok && page.text.contains("id=\"room\""), "the room, for marking")
            #expect(!page.text.contains("id=\"corrections\""), "not the session's own corrections")
            let marked = try await api.call(
                .put, "/api/v1/sessions/\(room.sessionID)/attendance/\(room.student.id)", as: assistant,
                json: ["status": "excused", "reason": "Doctor's note"])
            #expect(marked.status == .ok, "\(marked.text)")
            let bulk = try await api.call(
                .post, "/api/v1/sessions/\(room.sessionID)/attendance", as: assistant,
                json: ["studentIds": [room.student.id], "status": "late"])
            #expect(bulk.status == .created, "\(bulk.text)")
            let undo = try await api.call(
                .post, "/api/v1/attendance-batches/\(try #require(bulk.int("batch.id")))/undo", as: assistant)
            #expect(undo.status == .ok, "\(undo.text)")
            let courses = try await api.call(.get, "/api/v1/courses", as: assistant)
            #expect(courses.list("courses").count == 1, "the course is on the assistant's list")

            // What an assistant may not do.
            try await api.expectRefused(
                .patch, "/api/v1/courses/\(room.courseID)", as: assistant, json: ["name": "Mine"], status: .forbidden,
                code: "forbidden")
            try await api.expectRefused(
                .post, "/api/v1/sessions/\(room.sessionID)/close", as: assistant, status: .forbidden, code: "forbidden")
            try await api.expectRefused(
                .delete, "/api/v1/sessions/\(room.sessionID)?records=1", as: assistant, status: .forbidden,
                code: "forbidden")
            try await api.expectRefused(
                .post, "/api/v1/courses/\(room.courseID)/sessions", as: assistant, json: [:], status: .forbidden,
                code: "forbidden")
            try await api.expectRefused(
                .post, path, as: assistant, json: ["email": assistant.email, "role": "teacher"], status: .forbidden,
                code: "forbidden")

            // Removed, the assistant sees nothing of the course.
            #expect(try await api.call(.delete, "\(path)/\(assistant.id)", as: room.teacher).status == .noContent)
            try await api.expectRefused(
                .get, "/api/v1/courses/\(room.courseID)/students", as: assistant, status: .forbidden, code: "forbidden")
        }
    }

    @Test func an_assistant_who_is_also_a_student_never_marks_their_own_attendance() async throws {
        try await withServer { api in
            // Setup: a student of the course who is also its teaching assistant, not yet checked in.
            let room = try await Classroom.open(api)
            let helper = try await room.enrol(api, "Tam Helper")
            let added = try await api.call(
                .post, "/api/v1/courses/\(room.courseID)/staff", as: room.teacher,
                json: ["email": helper.email, "role": "assistant"])
            #expect(added.status == .created, "\(added.text)")
            let attendance = "/api/v1/sessions/\(room.sessionID)/attendance"

            // The calls under test: marking themself, alone or among others; then everyone not yet checked in.
            try await api.expectRefused(
                .put, "\(attendance)/\(helper.id)", as: helper, json: ["status": "present"], status: .forbidden,
                code: "cannot_mark_self")
            try await api.expectRefused(
                .post, attendance, as: helper,
                json: ["studentIds": [room.student.id, helper.id], "status": "present"],
                status: .forbidden, code: "cannot_mark_self")
            let everyone = try await api.call(
                .post, attendance, as: helper, json: ["filter": "not_checked_in", "status": "absent"])

            // Validation: the others are marked, the assistant's own record is left to the teacher.
            #expect(everyone.status == .created, "\(everyone.text)")
            let marked = try await api.call(.get, "/api/v1/sessions/\(room.sessionID)/audit", as: room.teacher)
            let students = marked.list("entries").compactMap { ($0["studentId"] as? NSNumber)?.int64Value }
            #expect(students.contains(room.student.id) && !students.contains(helper.id), "\(marked.text)")
            #expect(
                try await api.call(.put, "\(attendance)/\(helper.id)", as: room.teacher, json: ["status": "late"])
                    .status == .ok, "the teacher marks the assistant")
        }
    }

    @Test func a_co_teacher_manages_the_course_as_its_teacher_does() async throws {
        try await withServer { api in
            let room = try await Classroom.open(api)
            let (colleague, _, _) = try await api.teacherWithCourse("Cole Colleague")
            let added = try await api.call(
                .post, "/api/v1/courses/\(room.courseID)/staff", as: room.teacher,
                json: ["email": colleague.email, "role": "teacher"])
            #expect(added.status == .created, "\(added.text)")
            let course = try await api.call(.get, "/api/v1/courses/\(room.courseID)", as: colleague)
            #expect(course.string("course.joinCode") != nil, "a co-teacher sees the join code")
            #expect(
                try await api.call(.post, "/api/v1/sessions/\(room.sessionID)/close", as: colleague).status == .ok)
            let renamed = try await api.call(
                .patch, "/api/v1/courses/\(room.courseID)", as: colleague, json: ["name": "Biology, together"])
            #expect(renamed.status == .ok)
            let list = try await api.call(.get, "/api/v1/courses", as: colleague)
            #expect(list.list("courses").count == 2, "their own course and the one they co-teach")
            // The same role again changes nothing.
            let again = try await api.call(
                .post, "/api/v1/courses/\(room.courseID)/staff", as: room.teacher,
                json: ["email": colleague.email, "role": "teacher"])
            #expect(again.status == .ok && again.value("changed") as? Bool == false)
        }
    }

    @Test func bad_staff_changes_are_refused_and_change_nothing() async throws {
        try await withServer { api in
            let room = try await Classroom.open(api)
            let path = "/api/v1/courses/\(room.courseID)/staff"
            let cases: [([String: Any], HTTPResponse.Status, String)] = [
                (["email": room.student.email, "role": "boss"], .badRequest, "invalid_role"),
                (["email": "not-an-address", "role": "assistant"], .badRequest, "invalid_email"),
                (["email": "nobody@school.test", "role": "assistant"], .notFound, "user_not_found"),
                (["email": room.student.email, "role": "teacher"], .badRequest, "not_a_teacher"),
                (["email": room.teacher.email, "role": "assistant"], .conflict, "already_teacher"),
                (["role": "assistant"], .badRequest, "missing_field"),
            ]
            for (body, status, code) in cases {
                try await api.expectRefused(.post, path, as: room.teacher, json: body, status: status, code: code)
            }
            try await api.expectRefused(
                .delete, "\(path)/\(room.student.id)", as: room.teacher, status: .notFound, code: "staff_not_found")
        }
    }
}
