/// The order one student sees a quiz in: questions, and the options of each, shuffled when the quiz says so.
public struct QuizOrder: Sendable, Equatable, Codable {
    /// One question's place: its id, and the teacher's option indexes in the order shown.
    public struct Item: Sendable, Equatable, Codable {
        public var questionId: String
        public var options: [Int]?
    }

    public var items: [Item]

    /// The order for the attempt whose seed is `seed`: the same seed always gives the same order, so a reloaded page
    /// or a second device shows the quiz exactly as before, and neighbours with other seeds see other orders.
    public init(_ quiz: QuizDefinition, seed: UInt64) {
        var random = SeededRandom(seed: seed)
        var questions = quiz.questions
        if quiz.shuffleQuestions { Self.shuffle(&questions, using: &random) }
        items = questions.map { question in
            guard let options = question.options else { return Item(questionId: question.id, options: nil) }
            var order = Array(options.indices)
            if quiz.shuffleOptions { Self.shuffle(&order, using: &random) }
            return Item(questionId: question.id, options: order)
        }
    }

    /// Fisher–Yates with the generator's raw output, written out so that no library change can reorder old attempts.
    static func shuffle<T>(_ array: inout [T], using random: inout SeededRandom) {
        guard array.count > 1 else { return }
        for index in stride(from: array.count - 1, to: 0, by: -1) {
            let other = Int(random.next() % UInt64(index + 1))
            array.swapAt(index, other)
        }
    }
}
