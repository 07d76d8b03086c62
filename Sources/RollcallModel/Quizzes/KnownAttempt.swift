/// An attempt's parts that never change: whose it is, and of which run.
package struct KnownAttempt: Sendable, Equatable {
    package var studentID: Int64
    package var runID: Int64

    init(_ attempt: QuizAttempt) {
        studentID = attempt.studentId
        runID = attempt.runId
    }
}
