import Foundation
import RollcallProtocol

/// A student's answer to one question, as sent and stored: exactly one of its fields, matching the question's kind.
public struct QuizAnswer: Codable, Sendable, Equatable, Hashable {
    /// The chosen option of a single-choice question (an index into its options as the teacher ordered them).
    public var choice: Int?
    /// The chosen options of a multiple-choice question; empty when the student cleared every box.
    public var choices: [Int]?
    public var text: String?
    public var number: Double?

    public init(choice: Int? = nil, choices: [Int]? = nil, text: String? = nil, number: Double? = nil) {
        self.choice = choice
        self.choices = choices
        self.text = text
        self.number = number
    }

    public static func choice(_ index: Int) -> QuizAnswer { QuizAnswer(choice: index) }
    public static func choices(_ indexes: [Int]) -> QuizAnswer { QuizAnswer(choices: indexes) }
    public static func text(_ text: String) -> QuizAnswer { QuizAnswer(text: text) }
    public static func number(_ value: Double) -> QuizAnswer { QuizAnswer(number: value) }

    /// Longest short-text answer kept.
    public static let textLength = 0...5000

    /// Whether the student has actually answered: an empty text or no box ticked counts as not answered.
    public var isBlank: Bool {
        // Read to the first letter, not trimmed: a save asks it three times, of answers up to 5,000 characters.
        if let text { return text.allSatisfy(\.isWhitespace) }
        if let choices { return choices.isEmpty }
        return choice == nil && number == nil
    }
}

/// Why a saved answer is refused; each case has a stable code.
public enum AnswerRefusal: Error, Equatable, Sendable {
    /// The quiz has no question with this id.
    case unknownQuestion(String)
    /// The answer is of another kind than the question (a text for a number question…).
    case wrongType(expected: QuestionKind)
    /// An option index the question does not have, or the same option twice.
    case noSuchOption
    /// A short text too long, or holding control characters; a number that is not finite.
    case invalidValue(Phrase)

    public var code: ErrorCode {
        switch self {
        case .unknownQuestion: .unknownQuestion
        case .wrongType: .wrongAnswerType
        case .noSuchOption: .noSuchOption
        case .invalidValue: .invalidAnswer
        }
    }

    public var message: Phrase {
        switch self {
        case .unknownQuestion(let id): "This quiz has no question “\(id)”. Reload the quiz."
        case .wrongType(let kind):
            switch kind {
            case .singleChoice: "This question takes one option: send {\"choice\": index}."
            case .multipleChoice: "This question takes several options: send {\"choices\": [indexes]}."
            case .shortText: "This question takes text: send {\"text\": \"…\"}."
            case .number: "This question takes a number: send {\"number\": 3.14}."
            }
        case .noSuchOption: "That option is not one of the question's options."
        case .invalidValue(let why): why
        }
    }
}

extension QuizAnswer {
    /// The answer checked against its question: of the question's kind, within its options, text trimmed of nothing
    /// (what the student typed is kept as typed) but free of control characters.
    public func validated(for question: QuizQuestion) throws(AnswerRefusal) -> QuizAnswer {
        let given = [choice != nil, choices != nil, text != nil, number != nil].filter { $0 }.count
        guard given == 1 else { throw .wrongType(expected: question.kind) }
        let optionCount = question.options?.count ?? 0
        switch question.kind {
        case .singleChoice:
            guard let choice else { throw .wrongType(expected: question.kind) }
            guard (0..<optionCount).contains(choice) else { throw .noSuchOption }
            return self
        case .multipleChoice:
            guard let choices else { throw .wrongType(expected: question.kind) }
            guard choices.allSatisfy((0..<optionCount).contains), Set(choices).count == choices.count else {
                throw .noSuchOption
            }
            return .choices(choices.sorted())
        case .shortText:
            guard let text else { throw .wrongType(expected: question.kind) }
            guard Self.textLength.contains(text.count) else {
                throw .invalidValue("Keep the answer under \(Self.textLength.upperBound) characters.")
            }
            do {
                _ = try TextRules.plain(text, field: "text", multiline: true)
            } catch {
                throw .invalidValue(error.message)
            }
            return self
        case .number:
            guard let number else { throw .wrongType(expected: question.kind) }
            guard number.isFinite else { throw .invalidValue("Send a finite number.") }
            return self
        }
    }
}
