import Logging
import ServiceLifecycle

/// Closes attempts whose time is up every few seconds, so that the dashboard sees them close even when no one
/// reads them.
struct QuizSweep: Service {
    let quizzes: QuizStore
    var interval: Duration = .seconds(2)
    let ready: SchemaReady
    let logger: Logger

    func run() async throws {
        try await Periodically(name: "quiz-sweep", interval: interval, ready: ready, logger: logger) {
            _ = try await quizzes.closeOverdue()
        }.run()
    }
}
