import Foundation
import RollcallCore
import Testing

@Suite("Grade weights", .timeLimit(.minutes(5)))
struct GradeWeightsTests {
    @Test(arguments: [
        GradeWeights(attendance: 100, quizzes: 0), GradeWeights(attendance: 0, quizzes: 100),
        GradeWeights(attendance: 70, quizzes: 30),
    ])
    func weights_that_make_a_hundred_are_kept(weights: GradeWeights) throws {
        #expect(try weights.validated() == weights)
    }

    @Test(arguments: [
        GradeWeights(attendance: 70, quizzes: 20), GradeWeights(attendance: 101, quizzes: -1),
        GradeWeights(attendance: 60, quizzes: 60), GradeWeights(attendance: 0, quizzes: 0),
    ])
    func weights_that_do_not_make_a_hundred_are_refused(weights: GradeWeights) {
        do {
            _ = try weights.validated()
            Issue.record("\(weights) was accepted")
        } catch {
            #expect(error.code == "invalid_grade_weights")
            #expect(error.message.description.contains("%"))
        }
    }
}

@Suite("Gradebook", .timeLimit(.minutes(5)))
struct GradebookTests {
    static let start = Date(timeIntervalSince1970: 1_800_000_000)
    static func at(_ hours: Double) -> Date { start.addingTimeInterval(hours * 3600) }

    /// Two closed sessions; Ada and Ben on the roster from the start, Cy joining after the first quiz.
    static func book(weights: GradeWeights, runs: [Gradebook.QuizRun]? = nil) -> Gradebook {
        let sheet = AttendanceSheet(
            sessions: [
                .init(id: 1, openedAt: at(0), closesAt: at(1), closedAt: at(1)),
                .init(id: 2, openedAt: at(24), closesAt: at(25), closedAt: at(25)),
            ],
            students: [
                .init(id: 10, name: "Ada", joinedAt: at(-1)), .init(id: 11, name: "Ben", joinedAt: at(-1)),
                .init(id: 12, name: "Cy", joinedAt: at(2)),
            ],
            statuses: [1: [10: .present, 11: .excused], 2: [10: .late, 11: .present, 12: .present]],
            points: .standard, now: at(48))
        return Gradebook(
            sheet: sheet,
            runs: runs ?? [
                .init(id: 100, sessionID: 1, maxPoints: 10, startedAt: at(0.5), stopped: true),
                .init(id: 101, sessionID: 2, maxPoints: 5, startedAt: at(24.5), stopped: true),
                .init(id: 102, sessionID: 2, maxPoints: 50, startedAt: at(24.7), stopped: false),
            ],
            results: [
                100: [10: .init(points: 8, pending: 0)],
                101: [10: .init(points: 2.5, pending: 1), 11: .init(points: 5, pending: 0)],
                102: [10: .init(points: 50, pending: 0)],
            ],
            weights: weights)
    }

    @Test func a_quiz_counts_once_stopped_and_a_missed_one_earns_nothing() {
        let book = Self.book(weights: .attendanceOnly)
        let ada = book.quizScore(studentID: 10)
        #expect(ada == QuizScore(quizzes: 2, points: 10.5, maxPoints: 15, pending: 1), "the running quiz is left out")
        #expect(ada.percentage == 70)
        #expect(ada.explanation == "Quizzes: 10.50 of 15 points over 2 quizzes; 1 answer waits for the teacher's mark.")
    }

    @Test func an_excused_student_or_one_not_yet_on_the_roster_is_not_counted_for_a_missed_quiz() {
        let book = Self.book(weights: .attendanceOnly)
        #expect(book.quizScore(studentID: 11) == QuizScore(quizzes: 1, points: 5, maxPoints: 5, pending: 0))
        // Cy joined after quiz 100 and did not take quiz 101 in a session they attended: 0 of 5.
        #expect(book.quizScore(studentID: 12) == QuizScore(quizzes: 1, points: 0, maxPoints: 5, pending: 0))
        #expect(book.quizScore(studentID: 99) == QuizScore(quizzes: 0, points: 0, maxPoints: 0, pending: 0))
    }

    @Test func the_course_grade_weighs_attendance_and_quizzes() {
        let figures = Self.book(weights: GradeWeights(attendance: 60, quizzes: 40)).figures(studentID: 10)
        // Attendance grade: present 2 + late 1 of 4 points = 75; quizzes 70.
        #expect(figures.attendance.grade == 75)
        #expect(figures.courseGrade == 0.6 * 75 + 0.4 * 70)
        #expect(figures.courseGradeExplanation == "Course grade: 60% attendance grade (75%) + 40% quizzes (70%).")
    }

    @Test func attendance_alone_makes_the_grade_by_default() {
        let figures = Self.book(weights: .attendanceOnly).figures(studentID: 10)
        #expect(figures.courseGrade == 75)
        #expect(figures.courseGradeExplanation == "Course grade: the attendance grade (75%).")
    }

    @Test func a_part_with_nothing_counted_gives_its_weight_to_the_other() {
        let figures = Self.book(weights: GradeWeights(attendance: 50, quizzes: 50), runs: []).figures(studentID: 10)
        #expect(figures.courseGrade == 75)
        #expect(
            figures.courseGradeExplanation
                == "Course grade: the attendance grade (75%), as nothing else with a weight has counted yet.")
        let none = Self.book(weights: GradeWeights(attendance: 0, quizzes: 100), runs: []).figures(studentID: 10)
        #expect(none.courseGrade == nil)
        #expect(none.courseGradeExplanation == "Course grade: nothing counts yet.")
    }

    @Test func every_figure_explains_itself_in_one_sentence() {
        let book = Self.book(weights: .attendanceOnly)
        let ben = book.figures(studentID: 11)
        #expect(ben.attendanceExplanation == "Attendance: present or late at 1 of 1 session, not counting 1 excused.")
        #expect(
            ben.gradeExplanation(points: .standard)
                == "Attendance grade: 3 of 4 points over 2 sessions (present 2, late 1, excused 1, absent 0).")
        let excusedOnly = Gradebook.Figures(
            attendance: AttendanceSummary(statuses: [.excused], points: .standard),
            quizzes: QuizScore(quizzes: 0, points: 0, maxPoints: 0, pending: 0), weights: .attendanceOnly)
        #expect(
            excusedOnly.attendanceExplanation
                == "Attendance: no figure, as every session that counts so far was excused.")
        #expect(excusedOnly.courseGradeExplanation == "Course grade: the attendance grade (50%).")
        #expect(excusedOnly.quizzes.explanation == "Quizzes: none has counted yet; a quiz counts once it has stopped.")
    }

    @Test func the_course_grade_stays_between_the_parts_for_any_weights() {
        var random = SeededRandom(seed: 11)
        for _ in 0..<300 {
            let quiz = Int.random(in: 0...100, using: &random)
            let figures = Self.book(weights: GradeWeights(attendance: 100 - quiz, quizzes: quiz)).figures(studentID: 10)
            let grade = figures.courseGrade ?? -1
            #expect((70 - 1e-9)...(75 + 1e-9) ~= grade)
        }
    }
}
