import Foundation

/// The kinds of question a quiz can ask.
public enum QuestionKind: String, Codable, CaseIterable, Sendable {
    /// One option out of several.
    case singleChoice = "single_choice"
    /// Any set of options; marked right only when exactly the correct set is chosen.
    case multipleChoice = "multiple_choice"
    /// Free text, marked by the teacher.
    case shortText = "short_text"
    /// A number, right within a tolerance.
    case number
}

/// One question of a quiz, as stored and as the teacher's editor sends it.
public struct QuizQuestion: Codable, Sendable, Equatable {
    /// Stable within the quiz (`q1`, `q2`…): answers, marks and statistics refer to it.
    public var id: String
    public var kind: QuestionKind
    public var prompt: String
    public var points: Int
    /// The options of a choice question, in the teacher's order.
    public var options: [String]?
    /// The indexes of the correct options of a choice question.
    public var correct: [Int]?
    /// The expected value of a number question.
    public var answer: Double?
    /// How far from `answer` a number may be and still count as right.
    public var tolerance: Double?

    public init(
        id: String, kind: QuestionKind, prompt: String, points: Int = 1, options: [String]? = nil,
        correct: [Int]? = nil, answer: Double? = nil, tolerance: Double? = nil
    ) {
        self.id = id
        self.kind = kind
        self.prompt = prompt
        self.points = points
        self.options = options
        self.correct = correct
        self.answer = answer
        self.tolerance = tolerance
    }

    /// The question as a student sees it: without what would give the answer away.
    public var withoutSolution: QuizQuestion {
        var copy = self
        copy.correct = nil
        copy.answer = nil
        copy.tolerance = nil
        return copy
    }
}

/// A quiz as the teacher defines it: what the students see and how it runs.
public struct QuizDefinition: Codable, Sendable, Equatable {
    public var title: String
    public var instructions: String
    public var questions: [QuizQuestion]
    /// Seconds a student has from starting their attempt.
    public var timeLimitSeconds: Int
    public var shuffleQuestions: Bool
    public var shuffleOptions: Bool
    /// Whether students see their marks once the quiz has closed.
    public var showResults: Bool

    public init(
        title: String, instructions: String = "", questions: [QuizQuestion], timeLimitSeconds: Int = 600,
        shuffleQuestions: Bool = false, shuffleOptions: Bool = false, showResults: Bool = false
    ) {
        self.title = title
        self.instructions = instructions
        self.questions = questions
        self.timeLimitSeconds = timeLimitSeconds
        self.shuffleQuestions = shuffleQuestions
        self.shuffleOptions = shuffleOptions
        self.showResults = showResults
    }

    /// The question with this id.
    public func question(_ id: String) -> QuizQuestion? { questions.first { $0.id == id } }

    /// Points of the whole quiz.
    public var maxPoints: Int { questions.reduce(0) { $0 + $1.points } }

    /// The limits a quiz keeps to, so that it fits a phone screen and a class hour.
    public enum Limits {
        public static let title = 1...200
        public static let instructions = 0...5000
        public static let questions = 1...100
        public static let prompt = 1...2000
        public static let options = 2...12
        public static let option = 1...500
        public static let points = 0...100
        public static let timeLimitSeconds = 30...(4 * 3600)
        public static let questionID = 1...40
    }

    /// The definition with its texts trimmed, or the first rule it breaks.
    public func validated() throws(RuleViolation) -> QuizDefinition {
        var quiz = self
        quiz.title = try TextRules.plain(title.trimmingWhitespace(), field: "title")
        guard Limits.title.contains(quiz.title.count) else {
            throw RuleViolation(field: "title", message: "Give the quiz a title of 1 to 200 characters.")
        }
        quiz.instructions = try TextRules.plain(
            instructions.trimmingWhitespace(), field: "instructions", multiline: true)
        guard Limits.instructions.contains(quiz.instructions.count) else {
            throw RuleViolation(field: "instructions", message: "Keep the instructions under 5,000 characters.")
        }
        guard Limits.questions.contains(questions.count) else {
            throw RuleViolation(field: "questions", message: "A quiz has 1 to 100 questions.")
        }
        guard Limits.timeLimitSeconds.contains(timeLimitSeconds) else {
            throw RuleViolation(
                field: "timeLimitSeconds", message: "The time limit must be from 30 seconds to 4 hours.")
        }
        var ids: Set<String> = []
        quiz.questions = []
        for (index, question) in questions.enumerated() {
            let checked = try Self.validated(question, number: index + 1)
            guard ids.insert(checked.id).inserted else {
                throw RuleViolation(
                    field: "questions", message: "Question \(index + 1) has the same id as another: “\(checked.id)”.")
            }
            quiz.questions.append(checked)
        }
        return quiz
    }

    private static func validated(_ question: QuizQuestion, number: Int) throws(RuleViolation) -> QuizQuestion {
        func refuse(_ message: Phrase) -> RuleViolation {
            RuleViolation(field: "questions", message: "Question \(number): \(message)")
        }
        var checked = question
        guard Limits.questionID.contains(question.id.count),
            question.id.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") })
        else { throw refuse("its id must be 1 to 40 letters, digits, - or _.") }
        checked.prompt = try TextRules.plain(question.prompt.trimmingWhitespace(), field: "questions", multiline: true)
        guard Limits.prompt.contains(checked.prompt.count) else {
            throw refuse("write a question of 1 to 2,000 characters.")
        }
        guard Limits.points.contains(question.points) else { throw refuse("points must be from 0 to 100.") }
        switch question.kind {
        case .singleChoice, .multipleChoice:
            guard let options = question.options, Limits.options.contains(options.count) else {
                throw refuse("give 2 to 12 options.")
            }
            checked.options = []
            for option in options {
                let text = try TextRules.plain(option.trimmingWhitespace(), field: "questions")
                guard Limits.option.contains(text.count) else {
                    throw refuse("every option needs 1 to 500 characters.")
                }
                checked.options?.append(text)
            }
            guard Set(checked.options ?? []).count == options.count else { throw refuse("two options are the same.") }
            let correct = question.correct ?? []
            guard correct.allSatisfy(options.indices.contains), Set(correct).count == correct.count else {
                throw refuse("a correct option is not one of its options.")
            }
            if question.kind == .singleChoice {
                guard correct.count == 1 else { throw refuse("mark exactly one option as correct.") }
            } else {
                guard !correct.isEmpty else { throw refuse("mark at least one option as correct.") }
            }
            checked.correct = correct.sorted()
            checked.answer = nil
            checked.tolerance = nil
        case .shortText:
            checked.options = nil
            checked.correct = nil
            checked.answer = nil
            checked.tolerance = nil
        case .number:
            guard let answer = question.answer, answer.isFinite else { throw refuse("give the expected number.") }
            let tolerance = question.tolerance ?? 0
            guard tolerance.isFinite, tolerance >= 0 else { throw refuse("the tolerance must be 0 or more.") }
            checked.tolerance = tolerance
            checked.options = nil
            checked.correct = nil
        }
        return checked
    }
}
