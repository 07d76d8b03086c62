import Foundation
import HTTPTypes
import RollcallCore
import ServerTestSupport
import Testing

@testable import RollcallServer

@Suite("Course housekeeping", .timeLimit(.minutes(2)))
struct CourseHousekeepingTests {
    @Test func a_new_join_code_retires_the_old_one() async throws {
        try await withServer { api in
            let (teacher, courseID, oldCode) = try await api.teacherWithCourse()
            let renewed = try await api.call(.post, "/api/v1/courses/\(courseID)/join-code", as: teacher)
            #expect(renewed.status == .ok, "\(renewed.text)")
            let newCode = try #require(renewed.string("course.joinCode"))
            #expect(newCode != oldCode)
            let student = try await api.register("Jo Joiner")
            try await api.expectRefused(
                .post, "/api/v1/courses/join", as: student, json: ["code": oldCode], status: .notFound,
                code: "course_not_found")
            #expect(
                try await api.call(.post, "/api/v1/courses/join", as: student, json: ["code": newCode]).status == .ok)
            try await api.expectRefused(
                .post, "/api/v1/courses/\(courseID)/join-code", as: student, status: .forbidden, code: "forbidden")
        }
    }

    @Test func an_archived_course_keeps_its_records_and_takes_no_new_sessions_nor_students() async throws {
        try await withServer { api in
            let room = try await Classroom.open(api)
            #expect(try await room.checkIn(api, room.student).status == .created)
            let course = try await api.call(.get, "/api/v1/courses/\(room.courseID)", as: room.teacher)
            let code = try #require(course.string("course.joinCode"))
            let archived = try await api.call(
                .patch, "/api/v1/courses/\(room.courseID)", as: room.teacher, json: ["archived": true])
            #expect(archived.value("course.archived") as? Bool == true, "\(archived.text)")
            try await api.expectRefused(
                .post, "/api/v1/courses/\(room.courseID)/sessions", as: room.teacher, json: [:], status: .conflict,
                code: "course_archived")
            let newcomer = try await api.register("Late Larry")
            try await api.expectRefused(
                .post, "/api/v1/courses/join", as: newcomer, json: ["code": code], status: .conflict,
                code: "course_archived")
            // Read-only: nothing of it changes but its being archived.
            let newcomerTicket = try await room.scan(api, as: newcomer)
            let teacherAccount = room.teacher
            let coursePath = "/api/v1/courses/\(room.courseID)"
            let session = "/api/v1/sessions/\(room.sessionID)"
            let changes: [(HTTPRequest.Method, String, [String: Any]?, Account)] = [
                (.post, "\(coursePath)/students", ["email": newcomer.email], teacherAccount),
                (.post, "\(coursePath)/staff", ["email": newcomer.email, "role": "assistant"], teacherAccount),
                (.patch, coursePath, ["name": "Renamed while archived"], teacherAccount),
                (.post, "\(coursePath)/join-code", nil, teacherAccount),
                (.post, "\(coursePath)/quizzes", ["title": "Late quiz", "questions": []], teacherAccount),
                (.put, "\(coursePath)/verification", ["required": true], teacherAccount),
                (.post, "\(coursePath)/timetable", ["weekday": 1, "time": "09:00"], teacherAccount),
                (.post, "\(session)/extend", ["minutes": 10], teacherAccount),
                (.patch, session, ["title": "Renamed"], teacherAccount),
                (.delete, session, nil, teacherAccount),
                (.put, "\(session)/attendance/\(room.student.id)", ["status": "late"], teacherAccount),
                (.post, "\(session)/attendance", ["filter": "not_checked_in", "status": "absent"], teacherAccount),
                (.post, "/api/v1/check-ins", ["ticket": newcomerTicket, "join": true], newcomer),
            ]
            for (method, path, body, asker) in changes {
                try await api.expectRefused(
                    method, path, as: asker, json: body, status: .conflict, code: "course_archived")
            }
            try await api.expectRefused(
                .post, "\(coursePath)/roster-import", as: teacherAccount,
                raw: Array("email,name\nnew@school.test,New One\n".utf8),
                contentType: "text/csv", status: .conflict, code: "course_archived")
            // Its records stay, for the teacher and the student.
            let record = try await api.call(
                .get, "/api/v1/courses/\(room.courseID)/students/\(room.student.id)/attendance", as: room.student)
            #expect(record.int("summary.present") == 1)
            try await api.expectRefused(
                .patch, "/api/v1/courses/\(room.courseID)", as: room.teacher, json: ["archived": "yes"],
                status: .badRequest, code: "wrong_type")
            let restored = try await api.call(
                .patch, "/api/v1/courses/\(room.courseID)", as: room.teacher, json: ["archived": false])
            #expect(restored.value("course.archived") as? Bool == false)
            #expect(
                try await api.call(.post, "/api/v1/courses/\(room.courseID)/sessions", as: room.teacher, json: [:])
                    .status == .created)
        }
    }

    @Test func a_student_leaves_a_course_and_their_records_stay_with_it() async throws {
        try await withServer { api in
            let room = try await Classroom.open(api)
            #expect(try await room.checkIn(api, room.student).status == .created)
            try await api.expectRefused(
                .post, "/api/v1/courses/\(room.courseID)/leave", as: room.teacher, status: .forbidden,
                code: "forbidden")
            let left = try await api.call(.post, "/api/v1/courses/\(room.courseID)/leave", as: room.student)
            #expect(left.status == .noContent, "\(left.text)")
            let roster = try await api.call(.get, "/api/v1/courses/\(room.courseID)/students", as: room.teacher)
            #expect(roster.list("students").isEmpty)
            let rows = try await api.attendanceRows(session: room.sessionID)
            #expect(rows[room.student.id]?.0 == "present", "the record stays with the course")
            // Gone from the course, they cannot leave it again.
            try await api.expectRefused(
                .post, "/api/v1/courses/\(room.courseID)/leave", as: room.student, status: .forbidden,
                code: "forbidden")
        }
    }
}
