import Hummingbird
import RollcallParts
import RollcallWeb

extension QuizRoutes {
    /// Adds quizzes and their runs, attempts, pages and the live dashboard.
    package static func addRoutes(to router: AppRouter, _ parts: AppParts) {
        let stores = parts.stores
        QuizzesController(
            quizzes: stores.quizzes, courses: stores.courses, sessions: stores.sessions, access: parts.access
        ).addRoutes(to: router)
        AttemptsController(quizzes: stores.quizzes, access: parts.access, throttle: SaveThrottle()).addRoutes(
            to: router)
        QuizPages(quizzes: stores.quizzes, access: parts.access, pages: parts.pages).addRoutes(to: router)
        QuizLiveController(
            quizzes: stores.quizzes, database: stores.database, access: parts.access, pageOrigin: parts.pageOrigin
        ).addRoutes(to: router)
    }
}
