import Foundation

/// How one answer scored.
public enum Mark: Sendable, Equatable {
    /// Marked by the rules: right or wrong, and the points that earned.
    case automatic(points: Double, correct: Bool)
    /// A short text still waiting for the teacher.
    case pending
    /// Marked by the teacher, with a comment for the student.
    case byHand(points: Double, comment: String)

    /// The points this mark gives; a pending mark gives none yet.
    public var points: Double {
        switch self {
        case .automatic(let points, _), .byHand(let points, _): points
        case .pending: 0
        }
    }

    /// Whether the answer earned the question's full points; `nil` while pending.
    public func isCorrect(of question: QuizQuestion) -> Bool? {
        switch self {
        case .pending: nil
        case .automatic(_, let correct): correct
        case .byHand(let points, _): points >= Double(question.points)
        }
    }
}

/// Marks answers: closed questions and numbers by rule, short texts by the teacher.
public enum QuizMarking {
    /// The mark of `answer` (`nil` when unanswered) to `question`, given the teacher's mark if any.
    ///
    /// A choice is right when it is the correct option; several choices only when they are exactly the correct
    /// set (no partial points, so that ticking every box never pays); a number when within the tolerance; a text
    /// only by hand. A teacher's mark overrides the rule for any question.
    public static func mark(
        _ answer: QuizAnswer?, to question: QuizQuestion, byHand: (points: Double, comment: String)? = nil
    ) -> Mark {
        if let byHand { return .byHand(points: byHand.points, comment: byHand.comment) }
        let full = Double(question.points)
        // Nothing to judge in a blank answer, a short text's included.
        guard let answer, !answer.isBlank else { return .automatic(points: 0, correct: false) }
        let right: Bool
        switch question.kind {
        case .singleChoice:
            right = answer.choice.map { [$0] } == question.correct
        case .multipleChoice:
            right = answer.choices.map { $0.sorted() } == question.correct?.sorted()
        case .number:
            guard let value = answer.number, let expected = question.answer else {
                return .automatic(points: 0, correct: false)
            }
            // A tolerance written in decimals (0.1) must admit a value that far off despite binary rounding.
            let slack = (question.tolerance ?? 0) + 1e-9 * max(1, abs(expected))
            right = abs(value - expected) <= slack
        case .shortText:
            return .pending
        }
        return .automatic(points: right ? full : 0, correct: right)
    }

    /// Points a teacher may give by hand: from 0 to the question's points, kept to two decimals.
    public static func handPoints(_ points: Double, for question: QuizQuestion) throws(RuleViolation) -> Double {
        guard points.isFinite, points >= 0, points <= Double(question.points) else {
            throw RuleViolation(field: "points", message: "Give from 0 to \(question.points) points.")
        }
        return (points * 100).rounded() / 100
    }

    /// A student's total over the quiz, and whether any short text still waits for the teacher.
    public static func total(
        of quiz: QuizDefinition, answers: [String: QuizAnswer],
        handMarks: [String: (points: Double, comment: String)] = [:]
    ) -> (points: Double, pending: Int) {
        var points = 0.0
        var pending = 0
        for question in quiz.questions {
            let mark = mark(answers[question.id], to: question, byHand: handMarks[question.id])
            if mark == .pending { pending += 1 }
            points += mark.points
        }
        return (points, pending)
    }
}
