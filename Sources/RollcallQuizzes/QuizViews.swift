import Foundation
import RollcallCore
import RollcallModel

/// A quiz run as the API shows it, to the teacher and to the students taking it.
struct QuizRunView: Codable, Sendable {
    var id: Int64
    var quizId: Int64
    var sessionId: Int64
    var courseId: Int64
    var title: String
    var timeLimitSeconds: Int
    var questionCount: Int
    var startedAt: Date
    var stoppedAt: Date?
    var running: Bool

    init(_ run: QuizRun) {
        id = run.id
        quizId = run.quizId
        sessionId = run.sessionId
        courseId = run.courseId
        title = run.definition.title
        timeLimitSeconds = run.definition.timeLimitSeconds
        questionCount = run.definition.questions.count
        startedAt = run.startedAt
        stoppedAt = run.stoppedAt
        running = run.stoppedAt == nil
    }
}

/// An attempt as the teacher's list and dashboard show it.
struct QuizAttemptView: Codable, Sendable {
    var id: Int64
    var runId: Int64
    var studentId: Int64
    var name: String
    var startedAt: Date
    var deadline: Date
    var addedSeconds: Int
    var closedAt: Date?
    var ending: AttemptEnding?
    var answered: Int

    init(_ attempt: QuizAttempt) {
        id = attempt.id
        runId = attempt.runId
        studentId = attempt.studentId
        name = attempt.studentName
        startedAt = attempt.startedAt
        deadline = attempt.deadline
        addedSeconds = attempt.addedSeconds
        closedAt = attempt.closedAt
        ending = attempt.ending
        answered = attempt.answered
    }
}

/// The mark of one answer, as its student and the teacher see it.
struct QuizMarkView: Codable, Sendable {
    var points: Double
    /// `nil` while a short text waits for the teacher.
    var correct: Bool?
    var pending: Bool
    var comment: String?
}
