import Foundation
import Hummingbird
import RollcallCore
import RollcallModel
import RollcallWeb
import RollcallWords

/// The quiz screens: a course's quizzes and their editor for the teacher, the live dashboard, the student's quiz
/// page. Each draws its frame; its script (`quiz-editor.js`, `quiz-dashboard.js`, `quiz.js`) fills it from the API.
struct QuizPages: Sendable {
    let quizzes: QuizStore
    let access: AccessRule
    let pages: PageRenderer

    func addRoutes(to router: Router<AppRequestContext>) {
        router.get(QuizRoutes.coursePage, use: course)
        router.get(QuizRoutes.editorPage, use: editor)
        router.get(QuizRoutes.dashboardPage, use: dashboard)
        router.get(QuizRoutes.studentPage, use: student)
    }

    @Sendable func course(_ request: Request, context: AppRequestContext) async throws -> Response {
        let course = try await access.course(in: context, needing: .manage).0
        let reader = context.reader
        let list = try await quizzes.list(courseID: course.id).map { quiz in
            QuizListPage.Row(
                id: quiz.id, title: quiz.definition.title,
                questions: reader.say(quiz.definition.questions.count, one: "{0} question", other: "{0} questions"),
                minutes: QuizText.minutes(quiz.definition.timeLimitSeconds, in: reader))
        }
        let page = QuizListPage(courseId: course.id, courseName: course.name, quizzes: list, empty: list.isEmpty)
        return try pages.render(page, title: "Quizzes · \(course.name) · Rollcall", context: context)
    }

    @Sendable func editor(_ request: Request, context: AppRequestContext) async throws -> Response {
        let user = try context.requireUser()
        guard let quiz = try await quizzes.find(id: try context.id("quizID", .quizNotFound, "quiz")) else {
            throw AppError.notFound(.quizNotFound, "quiz")
        }
        let (course, _) = try await access.course(quiz.courseId, for: user, needing: .manage)
        let page = QuizEditorPage(
            id: quiz.id, courseId: course.id, courseName: course.name, title: quiz.definition.title,
            archived: quiz.archivedAt != nil)
        return try pages.render(page, title: "\(quiz.definition.title) · Rollcall", context: context)
    }

    @Sendable func dashboard(_ request: Request, context: AppRequestContext) async throws -> Response {
        let (run, _) = try await access.run(in: context, needing: .manage)
        let page = QuizDashboardPage(
            runId: run.id, sessionId: run.sessionId, title: run.definition.title,
            questions: run.definition.questions.count, running: run.stoppedAt == nil)
        // In the course's zone, as the room beside it: one lesson, one clock.
        return try pages.render(
            page, title: "\(run.definition.title) · live · Rollcall", context: context,
            zone: try await zone(of: run, in: context.reader))
    }

    @Sendable func student(_ request: Request, context: AppRequestContext) async throws -> Response {
        let (run, granted) = try await access.run(in: context, needing: .attend)
        if granted == .manage {
            return Response(status: .seeOther, headers: [.location: "/quiz-runs/\(run.id)/dashboard"])
        }
        let course = try await access.courses.find(id: run.courseId)
        let reader = context.reader
        let page = QuizStudentPage(
            runId: run.id, sessionId: run.sessionId, studentId: try context.requireUser().id,
            title: run.definition.title,
            instructions: run.definition.instructions.isEmpty ? nil : run.definition.instructions,
            introText: reader.say(
                run.definition.questions.count,
                one:
                    "{0} question · {1}. Every answer is saved as you go, and kept on this phone until the server has it.",
                other:
                    "{0} questions · {1}. Every answer is saved as you go, and kept on this phone until the server has it.",
                .text(QuizText.duration(run.definition.timeLimitSeconds, in: reader))),
            narrowWidth: IntegrityFlagReport.narrowWidth, contentLang: course?.contentLang(for: reader))
        return try pages.render(
            page, title: "\(run.definition.title) · Rollcall", context: context, zone: course?.timeText(in: reader))
    }

    /// The times of a run's pages: its course's, as on every page of a course.
    private func zone(of run: QuizRun, in reader: Reader) async throws -> TimeText? {
        try await access.courses.find(id: run.courseId)?.timeText(in: reader)
    }
}

/// Time limits in words for the pages.
enum QuizText {
    static func minutes(_ seconds: Int, in reader: Reader) -> String {
        seconds % 60 == 0 ? reader.say("\(seconds / 60) min") : reader.say("\(seconds / 60) min \(seconds % 60) s")
    }

    /// A time limit inside a sentence: whole words, since an abbreviation's own full stop ("5 Min.") would meet the
    /// sentence's.
    static func duration(_ seconds: Int, in reader: Reader) -> String {
        seconds % 60 == 0
            ? reader.say(seconds / 60, one: "{0} minute", other: "{0} minutes")
            : reader.say(seconds / 60, one: "{0} minute {1} s", other: "{0} minutes {1} s", .number(seconds % 60))
    }
}

/// A course's quizzes, for its teacher.
struct QuizListPage: PageModel {
    static let template = "quizzes"
    struct Row: Sendable {
        var id: Int64
        var title: String
        /// "5 questions", counted in the reader's language.
        var questions: String
        var minutes: String
    }
    var courseId: Int64
    var courseName: String
    var quizzes: [Row]
    var empty: Bool
}

/// The editor of one quiz.
struct QuizEditorPage: PageModel {
    static let template = "quiz-editor"
    var id: Int64
    var courseId: Int64
    var courseName: String
    var title: String
    var archived: Bool
}

/// The live dashboard of a quiz run.
struct QuizDashboardPage: PageModel {
    static let template = "quiz-dashboard"
    var runId: Int64
    var sessionId: Int64
    var title: String
    var questions: Int
    var running: Bool
}

/// The student's quiz page.
struct QuizStudentPage: PageModel {
    static let template = "quiz"
    var runId: Int64
    var sessionId: Int64
    /// What the phone keeps is keyed by the student too, so that whoever signs in next on a shared phone never sends
    /// it as theirs.
    var studentId: Int64
    var title: String
    /// The teacher's instructions, read before starting.
    var instructions: String?
    /// "5 questions · 10 minutes. Every answer…", counted.
    var introText: String
    var narrowWidth: Int
    /// `lang` of the teacher's words (title, instructions, questions), where the course is taught in another
    /// language than the page's.
    var contentLang: String?
}
