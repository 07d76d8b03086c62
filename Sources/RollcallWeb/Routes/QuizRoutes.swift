import Hummingbird

/// Every path of quizzes: the teacher's quizzes and runs, the students' attempts, the dashboard.
package enum QuizRoutes {
    package static let courseQuizzes = APIPath.api("courses/:courseID/quizzes")
    package static let quiz = APIPath.api("quizzes/:quizID")
    package static let duplicate = APIPath.api("quizzes/:quizID/duplicate")
    package static let sessionRuns = APIPath.api("sessions/:sessionID/quiz-runs")
    package static let run = APIPath.api("quiz-runs/:runID")
    package static let stop = APIPath.api("quiz-runs/:runID/stop")
    package static let admissions = APIPath.api("quiz-runs/:runID/admissions")
    package static let results = APIPath.api("quiz-runs/:runID/results")
    package static let statistics = APIPath.api("quiz-runs/:runID/statistics")
    package static let resultsCSV = APIPath.api("quiz-runs/:runID/results.csv")
    package static let live = APIPath.api("quiz-runs/:runID/live")
    package static let attempts = APIPath.api("quiz-runs/:runID/attempts")
    package static let attempt = APIPath.api("quiz-attempts/:attemptID")
    package static let answer = APIPath.api("quiz-attempts/:attemptID/answers/:questionID")
    package static let submit = APIPath.api("quiz-attempts/:attemptID/submit")
    package static let flags = APIPath.api("quiz-attempts/:attemptID/flags")
    package static let addedTime = APIPath.api("quiz-attempts/:attemptID/added-time")
    package static let end = APIPath.api("quiz-attempts/:attemptID/end")
    package static let mark = APIPath.api("quiz-attempts/:attemptID/marks/:questionID")
}

extension QuizRoutes {
    package static let coursePage: RouterPath = "/courses/:courseID/quizzes"
    package static let editorPage: RouterPath = "/quizzes/:quizID/edit"
    package static let dashboardPage: RouterPath = "/quiz-runs/:runID/dashboard"
    package static let studentPage: RouterPath = "/quiz-runs/:runID"
}
