import Foundation
import HTTPTypes
import RollcallCore
import ServerTestSupport
import Testing

@testable import RollcallServer

@Suite("Courses", .timeLimit(.minutes(5)))
struct CoursesTests {
    @Test func a_teacher_creates_a_course_and_a_student_joins_it_by_code() async throws {
        try await withServer { api in
            let (teacher, courseID, code) = try await api.teacherWithCourse()
            #expect(code.count == 7)
            let student = try await api.register("Stu Dent")
            let joined = try await api.call(
                .post, "/api/v1/courses/join", as: student,
                json: ["code": " \(code.lowercased().prefix(3))-\(code.dropFirst(3)) "]
            )
            #expect(joined.status == .ok)
            #expect(joined.value("joined") as? Bool == true)
            #expect(joined.int("course.id") == courseID)
            #expect(joined.value("course.joinCode") == nil, "students do not see the join code")
            let again = try await api.call(.post, "/api/v1/courses/join", as: student, json: ["code": code])
            #expect(again.value("joined") as? Bool == false)

            let roster = try await api.call(.get, "/api/v1/courses/\(courseID)/students", as: teacher)
            #expect(roster.list("students").map { $0["name"] as? String } == ["Stu Dent"])
            let mine = try await api.call(.get, "/api/v1/courses", as: student)
            #expect(mine.list("courses").count == 1)
            let theirs = try await api.call(.get, "/api/v1/courses", as: teacher)
            #expect(theirs.list("courses").first?["studentCount"] as? Int == 1)
        }
    }

    @Test func joining_refuses_bad_codes() async throws {
        try await withServer { api in
            _ = try await api.teacherWithCourse()
            let student = try await api.register("Stu Dent")
            try await api.expectRefused(
                .post, "/api/v1/courses/join", as: student, json: ["code": "0O1IL"], status: .badRequest,
                code: "invalid_join_code"
            )
            try await api.expectRefused(
                .post, "/api/v1/courses/join", as: student, json: ["code": "AAAAAAA"], status: .notFound,
                code: "course_not_found"
            )
            try await api.expectRefused(
                .post, "/api/v1/courses/join", as: student, json: ["code": 1_234_567], status: .badRequest,
                code: "wrong_type"
            )
            try await api.expectRefused(
                .post, "/api/v1/courses/join", as: student, json: [:], status: .badRequest, code: "missing_field"
            )
        }
    }

    @Test func course_input_is_checked() async throws {
        try await withServer { api in
            let (teacher, courseID, _) = try await api.teacherWithCourse()
            try await api.expectRefused(
                .post, "/api/v1/courses", as: teacher, json: ["name": ""], status: .badRequest, code: "invalid_name"
            )
            try await api.expectRefused(
                .post, "/api/v1/courses", as: teacher, json: ["name": "X", "plannedSessions": 0], status: .badRequest,
                code: "invalid_planned_sessions"
            )
            try await api.expectRefused(
                .post, "/api/v1/courses", as: teacher, json: ["name": "X", "plannedSessions": "ten"],
                status: .badRequest, code: "wrong_type"
            )
            try await api.expectRefused(
                .patch, "/api/v1/courses/\(courseID)", as: teacher,
                json: ["description": String(repeating: "d", count: 2001)], status: .badRequest,
                code: "invalid_description"
            )
            try await api.expectRefused(
                .get, "/api/v1/courses/424242", as: teacher, status: .notFound, code: "course_not_found"
            )
            let updated = try await api.call(
                .patch, "/api/v1/courses/\(courseID)", as: teacher,
                json: ["name": "Biology 102", "plannedSessions": 12]
            )
            #expect(updated.string("course.name") == "Biology 102")
            #expect(updated.int("course.plannedSessions") == 12)
        }
    }

    @Test func the_teacher_adds_searches_and_removes_students() async throws {
        try await withServer { api in
            let (teacher, courseID, _) = try await api.teacherWithCourse()
            _ = try await api.register("Alma Ant", studentNumber: "A-1")
            _ = try await api.register("Bert Bee", email: "bert@school.test")
            let other = try await api.register("Ted Other", role: "teacher")
            let byNumber = try await api.call(
                .post, "/api/v1/courses/\(courseID)/students", as: teacher, json: ["studentNumber": "a-1"]
            )
            #expect(byNumber.status == .created)
            let byEmail = try await api.call(
                .post, "/api/v1/courses/\(courseID)/students", as: teacher, json: ["email": "BERT@school.test"]
            )
            #expect(byEmail.status == .created)
            let twice = try await api.call(
                .post, "/api/v1/courses/\(courseID)/students", as: teacher, json: ["email": "bert@school.test"]
            )
            #expect(twice.status == .ok)
            #expect(twice.value("added") as? Bool == false)

            let search = try await api.call(.get, "/api/v1/courses/\(courseID)/students?q=BEE", as: teacher)
            #expect(search.list("students").map { $0["name"] as? String } == ["Bert Bee"])

            try await api.expectRefused(
                .post, "/api/v1/courses/\(courseID)/students", as: teacher, json: ["email": "ghost@school.test"],
                status: .notFound, code: "student_not_found"
            )
            // A teacher's (or admin's) address is answered as nobody's: no name, no role.
            let notStudent = try await api.call(
                .post, "/api/v1/courses/\(courseID)/students", as: teacher, json: ["email": other.email])
            #expect(notStudent.status == .notFound && notStudent.errorCode == "student_not_found")
            let nobody = try await api.call(
                .post, "/api/v1/courses/\(courseID)/students", as: teacher, json: ["email": "ghost@school.test"])
            #expect(notStudent.errorMessage == nobody.errorMessage, "the same answer as for no account at all")
            try await api.expectRefused(
                .post, "/api/v1/courses/\(courseID)/students", as: teacher, json: ["email": other.email],
                status: .notFound, code: "student_not_found"
            )
            try await api.expectRefused(
                .post, "/api/v1/courses/\(courseID)/students", as: teacher, json: [:], status: .badRequest,
                code: "missing_field"
            )
            let bert = try #require(search.list("students").first?["id"] as? Int)
            #expect(
                try await api.call(.delete, "/api/v1/courses/\(courseID)/students/\(bert)", as: teacher).status
                    == .noContent)
            try await api.expectRefused(
                .delete, "/api/v1/courses/\(courseID)/students/\(bert)", as: teacher, status: .notFound,
                code: "student_not_found"
            )
            let roster = try await api.call(.get, "/api/v1/courses/\(courseID)/students", as: teacher)
            #expect(roster.list("students").map { $0["name"] as? String } == ["Alma Ant"])
        }
    }

    @Test func the_open_session_comes_first_on_a_students_course_page_and_asks_nothing_once_they_are_in()
        async throws
    {
        try await withServer { api in
            let room = try await Classroom.open(api, settings: ["allowTyping": true])
            func coursePage() async throws -> String {
                try await api.call(.get, "/courses/\(room.courseID)", as: room.student).text
            }
            let page = try await coursePage()
            let now = try #require(page.firstRange(of: "id=\"now\"")).lowerBound
            let figures = try #require(page.firstRange(of: "id=\"my-attendance\"")).lowerBound
            #expect(now < figures, "the open session before the student's figures")
            let card = page[now...].components(separatedBy: "</section>")[0]
            #expect(card.contains("/sessions/\(room.sessionID)\"") && card.contains("typed-form"), "\(card)")
            #expect(card.contains("data-quiz-announce=\"\(room.sessionID)\""), "a running quiz is announced there")
            #expect(page.contains("No other sessions yet."))

            #expect(try await room.checkIn(api, room.student).status == .created)
            let after = try await coursePage()
            #expect(!after.contains("typed-form") && !after.contains("Scan the code on the screen"), "already in")
        }
    }

    @Test func posters_are_images() async throws {
        try await withServer { api in
            let (teacher, courseID, _) = try await api.teacherWithCourse()
            let jpeg = Pictures.jpeg
            #expect(
                try await api.call(.put, "/api/v1/courses/\(courseID)/poster", as: teacher, raw: jpeg).status
                    == .noContent
            )
            let poster = try await api.call(.get, "/api/v1/courses/\(courseID)/poster", as: teacher)
            #expect(poster.headers[.contentType] == "image/jpeg")
            #expect(poster.headers[.contentLength] == String(jpeg.count - 26), "the EXIF segment was dropped")
            #expect(!poster.text.contains("GPS"), "a phone's location is not kept")
            try await api.expectRefused(
                .put, "/api/v1/courses/\(courseID)/poster", as: teacher, raw: Array("GIF00".utf8),
                status: .unsupportedMediaType, code: "unsupported_image"
            )
        }
    }
}
