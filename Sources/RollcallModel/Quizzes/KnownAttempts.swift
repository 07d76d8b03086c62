import NIOConcurrencyHelpers
import RollcallCore

/// Whose each attempt this process has read is, and of which run (`QuizAttempts.known`): a save of an attempt known
/// to be the student's goes to its statement without reading its access first, and verifies it there.
package final class KnownAttempts: Sendable {
    /// An attempt's parts that never change.
    package struct Attempt: Sendable, Equatable {
        package var studentID: Int64
        package var runID: Int64
    }

    private let attempts = NIOLockedValueBox<[Int64: Attempt]>([:])
    /// Past this many attempts the memory starts afresh rather than grow without bound.
    package let capacity = 100_000

    package func attempt(id: Int64) -> Attempt? {
        attempts.withLockedValue { $0[id] }
    }

    package func keep(_ attempt: QuizAttempt) {
        attempts.withLockedValue { attempts in
            if attempts.count >= capacity { attempts = [:] }
            attempts[attempt.id] = Attempt(studentID: attempt.studentId, runID: attempt.runId)
        }
    }
}
