import Hummingbird

/// Every path of quizzes: the teacher's quizzes and runs, the students' attempts, the dashboard.
enum QuizRoutes {
    static let courseQuizzes = APIPath.api("courses/:courseID/quizzes")
    static let quiz = APIPath.api("quizzes/:quizID")
    static let duplicate = APIPath.api("quizzes/:quizID/duplicate")
    static let sessionRuns = APIPath.api("sessions/:sessionID/quiz-runs")
    static let run = APIPath.api("quiz-runs/:runID")
    static let stop = APIPath.api("quiz-runs/:runID/stop")
    static let admissions = APIPath.api("quiz-runs/:runID/admissions")
    static let results = APIPath.api("quiz-runs/:runID/results")
    static let statistics = APIPath.api("quiz-runs/:runID/statistics")
    static let resultsCSV = APIPath.api("quiz-runs/:runID/results.csv")
    static let live = APIPath.api("quiz-runs/:runID/live")
    static let attempts = APIPath.api("quiz-runs/:runID/attempts")
    static let attempt = APIPath.api("quiz-attempts/:attemptID")
    static let answer = APIPath.api("quiz-attempts/:attemptID/answers/:questionID")
    static let submit = APIPath.api("quiz-attempts/:attemptID/submit")
    static let flags = APIPath.api("quiz-attempts/:attemptID/flags")
    static let addedTime = APIPath.api("quiz-attempts/:attemptID/added-time")
    static let end = APIPath.api("quiz-attempts/:attemptID/end")
    static let mark = APIPath.api("quiz-attempts/:attemptID/marks/:questionID")
}

extension QuizRoutes {
    static let coursePage: RouterPath = "/courses/:courseID/quizzes"
    static let editorPage: RouterPath = "/quizzes/:quizID/edit"
    static let dashboardPage: RouterPath = "/quiz-runs/:runID/dashboard"
    static let studentPage: RouterPath = "/quiz-runs/:runID"
}
