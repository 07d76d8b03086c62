import Foundation

/// Why an attempt ended.
public enum AttemptEnding: String, Codable, Sendable, CaseIterable {
    /// The student submitted.
    case submitted
    /// The time limit (with any added time) ran out; the saved answers stand.
    case timeLimit = "time_limit"
    /// The teacher ended this student's attempt.
    case endedByTeacher = "ended_by_teacher"
    /// The teacher stopped the quiz for everyone.
    case quizStopped = "quiz_stopped"
}

/// The rules of one student's attempt: its deadline and which saves it takes.
public enum AttemptRules {
    /// A save sent just before the deadline may arrive a little after it; this much lateness is forgiven.
    public static let transitGrace: TimeInterval = 3

    /// Most time a teacher may add to one attempt at once.
    public static let addedSeconds = 1...(2 * 3600)

    /// When the attempt ends by time: its start, plus the quiz's limit, plus what the teacher added; earlier when
    /// the teacher stopped the quiz.
    public static func deadline(
        startedAt: Date, timeLimitSeconds: Int, addedSeconds: Int, quizStoppedAt: Date? = nil
    ) -> Date {
        let byTime = startedAt.addingTimeInterval(TimeInterval(timeLimitSeconds + addedSeconds))
        guard let quizStoppedAt else { return byTime }
        return min(byTime, quizStoppedAt)
    }

    /// Whether a save arriving at `now` is in time, given the deadline.
    public static func acceptsSave(at now: Date, deadline: Date) -> Bool {
        now <= deadline.addingTimeInterval(transitGrace)
    }

    /// What a save with `sequence` does to a question last saved with `stored` (`nil`: never saved).
    public static func sequenceDecision(_ sequence: Int64, stored: Int64?) -> SequenceDecision {
        guard let stored else { return .apply }
        if sequence > stored { return .apply }
        if sequence == stored { return .repeated }
        return .stale(current: stored)
    }

    /// Sequence numbers start at 1 and fit in a JavaScript number exactly.
    public static let sequences: ClosedRange<Int64> = 1...9_007_199_254_740_991
}

/// The fate of one save under the sequence rule.
public enum SequenceDecision: Sendable, Equatable {
    /// Newer than what is stored: it replaces it.
    case apply
    /// The very save stored already, sent again (a retry after a lost answer): acknowledged, nothing changes.
    case repeated
    /// Older than what is stored: refused, so it never overwrites the newer save.
    case stale(current: Int64)
}
