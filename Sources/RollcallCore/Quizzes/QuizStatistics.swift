import Foundation

/// How a class answered one question: how many answered, how many got it right, and what they answered.
public struct QuestionStatistics: Codable, Sendable, Equatable {
    public var questionId: String
    public var attempts: Int
    public var answered: Int
    /// Answers with full points; pending short texts count as not correct yet.
    public var correct: Int
    /// Correct out of attempts, in percent; `nil` before any attempt.
    public var percentCorrect: Double?
    /// Short texts still waiting for the teacher's mark.
    public var pending: Int
    /// For choice questions, how often each option (by the teacher's index) was chosen.
    public var optionCounts: [Int]?
    /// For text and number questions, the most frequent answers, most frequent first (at most ten).
    public var topAnswers: [Count]?
    public var averagePoints: Double?

    /// One distinct answer and how many gave it.
    public struct Count: Codable, Sendable, Equatable {
        public var answer: String
        public var count: Int

        public init(answer: String, count: Int) {
            self.answer = answer
            self.count = count
        }
    }

    /// The statistics of `question` over every attempt's answer (`nil` where unanswered) and mark.
    public init(question: QuizQuestion, answers: [QuizAnswer?], marks: [Mark]) {
        questionId = question.id
        attempts = answers.count
        let given = answers.compactMap { $0 }.filter { !$0.isBlank }
        answered = given.count
        correct = marks.filter { $0.isCorrect(of: question) == true }.count
        pending = marks.filter { $0 == .pending }.count
        percentCorrect = attempts == 0 ? nil : (Double(correct) * 1000 / Double(attempts)).rounded() / 10
        averagePoints =
            marks.isEmpty ? nil : (marks.reduce(0) { $0 + $1.points } * 100 / Double(marks.count)).rounded() / 100
        switch question.kind {
        case .singleChoice, .multipleChoice:
            var counts = Array(repeating: 0, count: question.options?.count ?? 0)
            for answer in given {
                for index in (answer.choice.map { [$0] } ?? answer.choices ?? []) where counts.indices.contains(index) {
                    counts[index] += 1
                }
            }
            optionCounts = counts
        case .shortText, .number:
            var tally: [String: Int] = [:]
            for answer in given {
                let key =
                    answer.text.map { $0.trimmingWhitespace().lowercased() }
                    ?? answer.number.map { $0.formatted(.number.grouping(.never)) } ?? ""
                tally[key, default: 0] += 1
            }
            topAnswers = tally.sorted { $0.value == $1.value ? $0.key < $1.key : $0.value > $1.value }.prefix(10)
                .map { Count(answer: $0.key, count: $0.value) }
        }
    }
}
