import Logging
import RollcallModel
import RollcallStorage

extension Periodically {
    /// Closes attempts whose time is up every few seconds, so that the dashboard sees them close even when no one
    /// reads them.
    package static func quizSweep(
        _ quizzes: QuizStore, ready: SchemaReady, logger: Logger, interval: Duration = .seconds(2)
    )
        -> Periodically
    {
        Periodically(name: "quiz-sweep", interval: interval, ready: ready, logger: logger) {
            _ = try await quizzes.attempts.closeOverdue()
        }
    }
}
