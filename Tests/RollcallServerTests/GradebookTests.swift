import Foundation
import HTTPTypes
import RollcallCore
import ServerTestSupport
import Testing

@testable import RollcallServer
@testable import RollcallTeaching

@Suite("Gradebook", .timeLimit(.minutes(2)))
struct GradebookServerTests {
    @Test func quiz_points_feed_the_course_grade_with_the_courses_weights() async throws {
        try await withServer { api in
            let room = try await Classroom.open(api)
            let teacher = room.teacher
            let course = room.courseID
            let cass = room.student
            let cassID = cass.id
            // Dee is on the roster before the quiz starts, but never checks in nor takes it.
            let dee = try await room.enrol(api, "Dee Away")
            let deeID = dee.id
            let created = try await api.call(.post, "/api/v1/courses/\(course)/quizzes", as: teacher, json: quizBody)
            let started = try await api.call(
                .post, "/api/v1/sessions/\(room.sessionID)/quiz-runs", as: teacher,
                json: ["quizId": try #require(created.int("quiz.id"))])
            #expect(started.status == .created, "\(started.text)")
            #expect(try await room.checkIn(api, cass).status == .created)
            let quiz = QuizRoom(room: room, quizID: 0, runID: try #require(started.int("run.id")))

            let attempt = try #require(try await quiz.attempt(api).int("attempt.id"))
            try await quiz.save(api, attempt: attempt, "q1", ["choice": 1], sequence: 1)  // right: 2 of 2
            try await quiz.save(api, attempt: attempt, "q2", ["choices": [0]], sequence: 2)  // wrong: 0 of 3
            try await quiz.save(api, attempt: attempt, "q3", ["text": "Water moves"], sequence: 3)  // to mark: 4
            try await quiz.save(api, attempt: attempt, "q4", ["number": 46], sequence: 4)  // right: 1 of 1

            let attendance = { (id: Int64, account: Account) in
                try await api.call(.get, "/api/v1/courses/\(course)/students/\(id)/attendance", as: account)
            }
            var cassRecord = try await attendance(cassID, cass)
            #expect(cassRecord.status == .ok, "\(cassRecord.text)")
            #expect(cassRecord.int("quizzes.quizzes") == 0, "a quiz still running does not count")
            #expect(
                cassRecord.string("explanations.quizzes")
                    == "Quizzes: none has counted yet; a quiz counts once it has stopped.")

            let stopped = try await api.call(.post, "/api/v1/quiz-runs/\(quiz.runID)/stop", as: teacher)
            #expect(stopped.status == .ok, "\(stopped.text)")
            cassRecord = try await attendance(cassID, cass)
            #expect(cassRecord.value("quizzes.points") as? Double == 3)
            #expect(cassRecord.int("quizzes.maxPoints") == 10)
            #expect(cassRecord.int("quizzes.pending") == 1)
            #expect(cassRecord.value("quizzes.percentage") as? Double == 30)
            // Attendance alone makes the grade until the teacher gives quizzes a weight.
            #expect(cassRecord.int("courseGrade.weights.attendance") == 100)
            #expect(cassRecord.value("courseGrade.value") as? Double == 100)
            #expect(cassRecord.string("explanations.courseGrade") == "Course grade: the attendance grade (100%).")
            #expect(
                cassRecord.string("explanations.quizzes")
                    == "Quizzes: 3 of 10 points over 1 quiz; 1 answer waits for the teacher's mark.")
            #expect(cassRecord.string("explanations.attendance") == "Attendance: present or late at 1 of 1 session.")
            // A missed quiz earns nothing; the session is still open, so Dee's attendance does not count yet.
            let deeRecord = try await attendance(deeID, dee)
            #expect(deeRecord.value("quizzes.points") as? Double == 0)
            #expect(deeRecord.int("quizzes.maxPoints") == 10)

            let weighed = try await api.call(
                .patch, "/api/v1/courses/\(course)", as: teacher,
                json: ["gradeWeights": ["attendance": 60, "quizzes": 40]])
            #expect(weighed.status == .ok, "\(weighed.text)")
            #expect(weighed.int("course.gradeWeights.quizzes") == 40)
            cassRecord = try await attendance(cassID, cass)
            #expect(cassRecord.value("courseGrade.value") as? Double == 72)
            #expect(
                cassRecord.string("explanations.courseGrade")
                    == "Course grade: 60% attendance grade (100%) + 40% quizzes (30%).")

            // Marking the short answer moves the grade.
            let marked = try await api.call(
                .put, "/api/v1/quiz-attempts/\(attempt)/marks/q3", as: teacher, json: ["points": 4, "comment": "Yes"])
            #expect(marked.status == .noContent, "\(marked.text)")
            cassRecord = try await attendance(cassID, teacher)
            #expect(cassRecord.value("courseGrade.value") as? Double == 88)

            let csv = try await api.csv("/api/v1/courses/\(course)/report.csv", as: teacher)
            #expect(csv[0].suffix(4) == ["Quiz points", "Quiz out of", "Quiz %", "Course grade %"])
            let cassRow = try #require(csv.first { $0.first == "Cass Checkin" })
            #expect(cassRow.suffix(4) == ["7", "10", "70.0", "88.0"])
            let deeRow = try #require(csv.first { $0.first == "Dee Away" })
            #expect(deeRow.suffix(4) == ["0", "10", "0.0", "0.0"], "Dee's only figure yet is the missed quiz")

            // The teacher's grid has the same figures at the end of each row; a student cannot open it.
            let grid = try await api.call(.get, "/courses/\(course)/grid", as: teacher)
            #expect(grid.status == .ok)
            #expect(
                grid.text.contains("<td class=\"figure quizzes\">70%</td><td class=\"figure course\">88%</td>"),
                "\(grid.text)")
            // Each column names its session, not only its day: a day of several sessions tells them apart.
            #expect(grid.text.contains("<span class=\"session-title\">"), "\(grid.text)")
            #expect(try await api.call(.get, "/courses/\(course)/grid", as: cass).status == .forbidden)

            // The student's page says the same, with each figure explained.
            let page = try await api.call(.get, "/courses/\(course)", as: cass)
            #expect(page.text.contains("id=\"course-grade\">88%"), "\(page.text)")
            #expect(page.text.contains("Course grade: 60% attendance grade (100%) + 40% quizzes (70%)."))
        }
    }

    @Test func weights_that_do_not_make_a_hundred_are_refused_and_change_nothing() async throws {
        try await withServer { api in
            let (teacher, courseID, _) = try await api.teacherWithCourse()
            let path = "/api/v1/courses/\(courseID)"
            try await api.expectRefused(
                .patch, path, as: teacher, json: ["gradeWeights": ["attendance": 50, "quizzes": 40]],
                status: .badRequest, code: "invalid_grade_weights")
            try await api.expectRefused(
                .patch, path, as: teacher, json: ["gradeWeights": ["attendance": 150, "quizzes": -50]],
                status: .badRequest, code: "invalid_grade_weights")
            try await api.expectRefused(
                .patch, path, as: teacher, json: ["gradeWeights": ["attendance": 100]], status: .badRequest,
                code: "missing_field")
            try await api.expectRefused(
                .patch, path, as: teacher, json: ["gradeWeights": ["attendance": "all", "quizzes": 0]],
                status: .badRequest, code: "wrong_type")
            let student = try await api.register("Sam Student")
            try await api.expectRefused(
                .patch, path, as: student, json: ["gradeWeights": ["attendance": 0, "quizzes": 100]],
                status: .forbidden, code: "forbidden")
            let course = try await api.call(.get, path, as: teacher)
            #expect(course.int("course.gradeWeights.attendance") == 100)
        }
    }
}

@Suite("Grid columns", .timeLimit(.minutes(5)))
struct GridColumnTests {
    @Test func a_long_title_is_cut_to_fit_a_column_and_a_short_one_kept() {
        #expect(GridPage.short("Lecture 3") == "Lecture 3")
        let cut = GridPage.short("Introduction to marine ecosystems")
        #expect(cut.count == GridPage.shortLength && cut.hasSuffix("…") && cut.hasPrefix("Introduction to m"))
        #expect(GridPage.short(String(repeating: "x", count: GridPage.shortLength)).count == GridPage.shortLength)
    }
}
