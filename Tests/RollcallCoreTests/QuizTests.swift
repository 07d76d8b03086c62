import Foundation
import RollcallCore
import Testing

/// A quiz with one question of every kind.
let sampleQuiz = QuizDefinition(
    title: "Cells", instructions: "No notes.",
    questions: [
        QuizQuestion(
            id: "q1", kind: .singleChoice, prompt: "Powerhouse?", points: 2,
            options: ["Nucleus", "Mitochondrion", "Ribosome"], correct: [1]),
        QuizQuestion(
            id: "q2", kind: .multipleChoice, prompt: "Have DNA?", points: 3,
            options: ["Nucleus", "Mitochondrion", "Ribosome", "Golgi"], correct: [0, 1]),
        QuizQuestion(id: "q3", kind: .shortText, prompt: "Explain osmosis.", points: 4),
        QuizQuestion(
            id: "q4", kind: .number, prompt: "Chromosomes in a human cell?", points: 1, answer: 46, tolerance: 0),
        QuizQuestion(id: "q5", kind: .number, prompt: "pH of blood?", points: 1, answer: 7.4, tolerance: 0.1),
    ],
    timeLimitSeconds: 600, shuffleQuestions: true, shuffleOptions: true
)

@Suite("Quiz definition", .timeLimit(.minutes(5)))
struct QuizDefinitionTests {
    @Test func a_sound_quiz_passes_with_its_texts_trimmed() throws {
        var quiz = sampleQuiz
        quiz.title = "  Cells  "
        quiz.questions[0].options = [" Nucleus", "Mitochondrion ", "Ribosome"]
        let checked = try quiz.validated()
        #expect(checked.title == "Cells")
        #expect(checked.questions[0].options == ["Nucleus", "Mitochondrion", "Ribosome"])
        #expect(checked.maxPoints == 11)
        #expect(checked.questions[4].tolerance == 0.1)
    }

    static let broken: [(String, @Sendable (inout QuizDefinition) -> Void)] = [
        ("title", { $0.title = "  " }),
        ("title", { $0.title = String(repeating: "a", count: 201) }),
        ("title", { $0.title = "a\u{0}b" }),
        ("instructions", { $0.instructions = String(repeating: "a", count: 5001) }),
        ("questions", { $0.questions = [] }),
        ("questions", { $0.questions = Array(repeating: $0.questions[2], count: 101) }),
        ("timeLimitSeconds", { $0.timeLimitSeconds = 29 }),
        ("timeLimitSeconds", { $0.timeLimitSeconds = 4 * 3600 + 1 }),
        ("questions", { $0.questions[1].id = "q1" }),
        ("questions", { $0.questions[1].id = "" }),
        ("questions", { $0.questions[1].id = "q 1" }),
        ("questions", { $0.questions[1].id = "é" }),
        ("questions", { $0.questions[0].prompt = " " }),
        ("questions", { $0.questions[0].points = -1 }),
        ("questions", { $0.questions[0].points = 101 }),
        ("questions", { $0.questions[0].options = ["Only one"] }),
        ("questions", { $0.questions[0].options = nil }),
        ("questions", { $0.questions[0].options = ["A", "A", "B"] }),
        ("questions", { $0.questions[0].options = ["A", "", "B"] }),
        ("questions", { $0.questions[0].correct = [0, 1] }),
        ("questions", { $0.questions[0].correct = [] }),
        ("questions", { $0.questions[0].correct = [3] }),
        ("questions", { $0.questions[1].correct = [] }),
        ("questions", { $0.questions[1].correct = [0, 0] }),
        ("questions", { $0.questions[1].correct = [-1] }),
        ("questions", { $0.questions[3].answer = nil }),
        ("questions", { $0.questions[3].answer = .infinity }),
        ("questions", { $0.questions[3].tolerance = -0.5 }),
        ("questions", { $0.questions[3].tolerance = .nan }),
    ]

    @Test(arguments: 0..<broken.count)
    func a_broken_quiz_is_refused_naming_its_field(index: Int) {
        var quiz = sampleQuiz
        Self.broken[index].1(&quiz)
        do {
            _ = try quiz.validated()
            Issue.record("case \(index) was accepted")
        } catch {
            #expect(error.field == Self.broken[index].0, "case \(index)")
            #expect(error.message.description.count > 10)
        }
    }

    @Test func the_students_copy_hides_the_solution() {
        let hidden = sampleQuiz.questions.map(\.withoutSolution)
        #expect(hidden.allSatisfy { $0.correct == nil && $0.answer == nil && $0.tolerance == nil })
        #expect(hidden[0].options == sampleQuiz.questions[0].options)
    }

    @Test func a_short_text_keeps_no_solution_fields() throws {
        var quiz = sampleQuiz
        quiz.questions[2].options = ["x", "y"]
        quiz.questions[2].answer = 3
        let checked = try quiz.validated()
        #expect(checked.questions[2].options == nil && checked.questions[2].answer == nil)
    }
}

@Suite("Quiz answers", .timeLimit(.minutes(5)))
struct QuizAnswerTests {
    let q = sampleQuiz.questions

    @Test func answers_of_the_right_kind_are_taken() throws {
        #expect(try QuizAnswer.choice(2).validated(for: q[0]) == .choice(2))
        #expect(try QuizAnswer.choices([1, 0]).validated(for: q[1]) == .choices([0, 1]))
        #expect(try QuizAnswer.choices([]).validated(for: q[1]) == .choices([]))
        #expect(try QuizAnswer.text("Water moves\nacross").validated(for: q[2]) == .text("Water moves\nacross"))
        #expect(try QuizAnswer.number(-3.5).validated(for: q[3]) == .number(-3.5))
    }

    @Test(arguments: [
        (0, QuizAnswer.text("1"), "wrong_answer_type"),
        (0, QuizAnswer.choices([1]), "wrong_answer_type"),
        (0, QuizAnswer(), "wrong_answer_type"),
        (0, QuizAnswer(choice: 1, text: "x"), "wrong_answer_type"),
        (0, QuizAnswer.choice(3), "no_such_option"),
        (0, QuizAnswer.choice(-1), "no_such_option"),
        (1, QuizAnswer.choice(1), "wrong_answer_type"),
        (1, QuizAnswer.choices([0, 0]), "no_such_option"),
        (1, QuizAnswer.choices([4]), "no_such_option"),
        (2, QuizAnswer.number(1), "wrong_answer_type"),
        (2, QuizAnswer.text(String(repeating: "a", count: 5001)), "invalid_answer"),
        (2, QuizAnswer.text("a\u{1B}b"), "invalid_answer"),
        (3, QuizAnswer.text("46"), "wrong_answer_type"),
        (3, QuizAnswer.number(.nan), "invalid_answer"),
        (3, QuizAnswer.number(.infinity), "invalid_answer"),
    ])
    func answers_of_another_kind_are_refused(question: Int, answer: QuizAnswer, code: String) {
        do {
            _ = try answer.validated(for: q[question])
            Issue.record("\(answer) accepted for \(q[question].kind)")
        } catch {
            #expect(error.code.rawValue == code)
            #expect(error.message.description.count > 10)
        }
    }

    @Test func blank_answers_are_known_as_blank() {
        #expect(QuizAnswer.text("  ").isBlank)
        #expect(QuizAnswer.text("").isBlank)
        #expect(QuizAnswer.text(" \n\t\u{3000}\r\n").isBlank, "every kind of space and line end")
        #expect(!QuizAnswer.text("  a  ").isBlank)
        #expect(!QuizAnswer.text("\n\n.").isBlank)
        #expect(QuizAnswer.choices([]).isBlank)
        #expect(!QuizAnswer.choice(0).isBlank)
        #expect(!QuizAnswer.number(0).isBlank)
    }

    @Test func an_answer_reads_from_the_json_the_page_sends() throws {
        let decoded = try JSONDecoder().decode(QuizAnswer.self, from: Data(#"{"choices":[2,0]}"#.utf8))
        #expect(decoded == .choices([2, 0]))
    }
}

@Suite("Quiz marking", .timeLimit(.minutes(5)))
struct QuizMarkingTests {
    let q = sampleQuiz.questions

    @Test func single_choice_is_right_only_on_the_correct_option() {
        #expect(QuizMarking.mark(.choice(1), to: q[0]) == .automatic(points: 2, correct: true))
        #expect(QuizMarking.mark(.choice(0), to: q[0]) == .automatic(points: 0, correct: false))
        #expect(QuizMarking.mark(nil, to: q[0]) == .automatic(points: 0, correct: false))
    }

    @Test func multiple_choice_needs_exactly_the_correct_set() {
        #expect(QuizMarking.mark(.choices([1, 0]), to: q[1]).points == 3)
        #expect(QuizMarking.mark(.choices([0]), to: q[1]).points == 0)
        #expect(QuizMarking.mark(.choices([0, 1, 2, 3]), to: q[1]).points == 0, "ticking every box never pays")
        #expect(QuizMarking.mark(.choices([]), to: q[1]).points == 0)
    }

    @Test func numbers_count_within_their_tolerance_and_not_beyond() {
        #expect(QuizMarking.mark(.number(46), to: q[3]).points == 1)
        #expect(QuizMarking.mark(.number(46.0001), to: q[3]).points == 0)
        #expect(QuizMarking.mark(.number(7.3), to: q[4]).points == 1, "0.1 off, decimal rounding aside")
        #expect(QuizMarking.mark(.number(7.5), to: q[4]).points == 1)
        #expect(QuizMarking.mark(.number(7.51), to: q[4]).points == 0)
        #expect(QuizMarking.mark(.number(-7.4), to: q[4]).points == 0)
    }

    @Test func short_texts_wait_for_the_teacher_unless_blank() {
        #expect(QuizMarking.mark(.text("Water moves"), to: q[2]) == .pending)
        #expect(QuizMarking.mark(.text("Water moves"), to: q[2]).isCorrect(of: q[2]) == nil)
        #expect(QuizMarking.mark(.text(" "), to: q[2]) == .automatic(points: 0, correct: false))
        let marked = QuizMarking.mark(.text("Water moves"), to: q[2], byHand: (3, "Half the story"))
        #expect(marked == .byHand(points: 3, comment: "Half the story"))
        #expect(marked.isCorrect(of: q[2]) == false)
    }

    @Test func a_hand_mark_overrides_the_rule() {
        #expect(QuizMarking.mark(.choice(0), to: q[0], byHand: (2, "Accepted: the question was unclear")).points == 2)
    }

    @Test func hand_points_stay_within_the_question() throws {
        #expect(try QuizMarking.handPoints(2.5, for: q[2]) == 2.5)
        #expect(try QuizMarking.handPoints(1.234, for: q[2]) == 1.23)
        for bad in [-0.5, 4.01, .nan, .infinity] {
            #expect(throws: RuleViolation.self) { try QuizMarking.handPoints(bad, for: q[2]) }
        }
    }

    @Test func the_total_adds_every_mark_and_counts_what_waits() {
        let answers: [String: QuizAnswer] = [
            "q1": .choice(1), "q2": .choices([0]), "q3": .text("Water"), "q4": .number(46),
        ]
        let before = QuizMarking.total(of: sampleQuiz, answers: answers)
        #expect(before.points == 3 && before.pending == 1)
        let after = QuizMarking.total(of: sampleQuiz, answers: answers, handMarks: ["q3": (4, "Good")])
        #expect(after.points == 7 && after.pending == 0)
    }
}

@Suite("Quiz order", .timeLimit(.minutes(5)))
struct QuizOrderTests {
    @Test func the_same_seed_gives_the_same_order() {
        #expect(QuizOrder(sampleQuiz, seed: 42) == QuizOrder(sampleQuiz, seed: 42))
    }

    @Test func every_order_holds_each_question_and_option_once() {
        for seed in UInt64(0)..<200 {
            let order = QuizOrder(sampleQuiz, seed: seed)
            #expect(Set(order.items.map(\.questionId)) == Set(sampleQuiz.questions.map(\.id)))
            #expect(order.items.count == sampleQuiz.questions.count)
            for item in order.items {
                let question = sampleQuiz.question(item.questionId)!
                #expect(item.options?.sorted() == question.options.map { Array($0.indices) })
            }
        }
    }

    @Test func seeds_spread_over_many_orders() {
        let orders = Set((UInt64(0)..<200).map { QuizOrder(sampleQuiz, seed: $0).items.map(\.questionId) })
        #expect(orders.count > 60, "5 questions have 120 orders; 200 seeds should find most")
        let firsts = Set((UInt64(0)..<200).map { QuizOrder(sampleQuiz, seed: $0).items[0].options ?? [] })
        #expect(firsts.count > 3)
    }

    @Test func an_unshuffled_quiz_keeps_the_teachers_order() {
        var quiz = sampleQuiz
        quiz.shuffleQuestions = false
        quiz.shuffleOptions = false
        for seed in UInt64(0)..<20 {
            let order = QuizOrder(quiz, seed: seed)
            #expect(order.items.map(\.questionId) == ["q1", "q2", "q3", "q4", "q5"])
            #expect(order.items[0].options == [0, 1, 2])
            #expect(order.items[2].options == nil)
        }
    }

    @Test func shuffling_options_alone_keeps_the_questions_in_place() {
        var quiz = sampleQuiz
        quiz.shuffleQuestions = false
        let orders = (UInt64(0)..<50).map { QuizOrder(quiz, seed: $0) }
        #expect(orders.allSatisfy { $0.items.map(\.questionId) == ["q1", "q2", "q3", "q4", "q5"] })
        #expect(Set(orders.map { $0.items[1].options ?? [] }).count > 5)
    }

    @Test func an_order_is_fixed_for_ever_by_its_seed() {
        // Stored attempts rely on this: a change of algorithm would reorder every attempt in progress.
        #expect(QuizOrder(sampleQuiz, seed: 7).items.map(\.questionId) == ["q5", "q2", "q4", "q1", "q3"])
    }
}

@Suite("Attempt rules", .timeLimit(.minutes(5)))
struct AttemptRulesTests {
    let start = Date(timeIntervalSince1970: 1_800_000_000)

    @Test func the_deadline_is_the_limit_plus_added_time() {
        #expect(AttemptRules.deadline(startedAt: start, timeLimitSeconds: 600, addedSeconds: 0) == start + 600)
        #expect(AttemptRules.deadline(startedAt: start, timeLimitSeconds: 600, addedSeconds: 120) == start + 720)
    }

    @Test func stopping_the_quiz_ends_every_attempt_then() {
        #expect(
            AttemptRules.deadline(startedAt: start, timeLimitSeconds: 600, addedSeconds: 0, quizStoppedAt: start + 60)
                == start + 60)
        #expect(
            AttemptRules.deadline(
                startedAt: start, timeLimitSeconds: 600, addedSeconds: 0, quizStoppedAt: start + 900) == start + 600)
    }

    @Test func a_save_in_flight_at_the_deadline_is_forgiven_briefly() {
        let deadline = start + 600
        #expect(AttemptRules.acceptsSave(at: start + 599, deadline: deadline))
        #expect(AttemptRules.acceptsSave(at: deadline + AttemptRules.transitGrace, deadline: deadline))
        #expect(!AttemptRules.acceptsSave(at: deadline + AttemptRules.transitGrace + 0.001, deadline: deadline))
    }

    @Test func a_stale_sequence_never_overwrites_a_newer_save() {
        #expect(AttemptRules.sequenceDecision(1, stored: nil) == .apply)
        #expect(AttemptRules.sequenceDecision(5, stored: 4) == .apply)
        #expect(AttemptRules.sequenceDecision(5, stored: 5) == .repeated)
        #expect(AttemptRules.sequenceDecision(3, stored: 5) == .stale(current: 5))
    }

    @Test func any_order_of_arrival_ends_on_the_latest_save() {
        var random = SeededRandom(seed: 9)
        for _ in 0..<200 {
            var saves = Array(Int64(1)...8)
            saves.shuffle(using: &random)
            saves += saves.prefix(3)  // retries
            var stored: Int64?
            for save in saves where AttemptRules.sequenceDecision(save, stored: stored) == .apply { stored = save }
            #expect(stored == 8)
        }
    }
}

@Suite("Integrity flags", .timeLimit(.minutes(5)))
struct IntegrityFlagTests {
    let start = Date(timeIntervalSince1970: 1_800_000_000)

    @Test func every_kind_has_its_stable_name_and_a_label() {
        #expect(
            IntegrityFlagKind.allCases.map(\.rawValue) == [
                "left_page", "returned", "offline", "online", "reloaded", "second_device", "pasted", "resized",
            ])
        #expect(IntegrityFlagKind.allCases.allSatisfy { !$0.label.isEmpty })
    }

    @Test func a_flags_time_is_kept_within_the_attempt() throws {
        let now = start + 300
        let queued = IntegrityFlagReport(kind: .offline, occurredAt: start + 100)
        #expect(try queued.validated(attemptStartedAt: start, now: now).occurredAt == start + 100)
        let future = IntegrityFlagReport(kind: .offline, occurredAt: now + 3600)
        #expect(try future.validated(attemptStartedAt: start, now: now).occurredAt == now)
        let ancient = IntegrityFlagReport(kind: .offline, occurredAt: start - 86_400)
        #expect(try ancient.validated(attemptStartedAt: start, now: now).occurredAt == start - 60)
    }

    @Test(arguments: [
        IntegrityFlagReport(kind: .returned, occurredAt: Date(), secondsAway: -1),
        IntegrityFlagReport(kind: .returned, occurredAt: Date(), secondsAway: .nan),
        IntegrityFlagReport(kind: .returned, occurredAt: Date(), secondsAway: 86_401),
        IntegrityFlagReport(kind: .pasted, occurredAt: Date(), characters: -3),
        IntegrityFlagReport(kind: .resized, occurredAt: Date(), width: 2_000_000),
        IntegrityFlagReport(kind: .offline, occurredAt: Date(), clientId: ""),
        IntegrityFlagReport(kind: .offline, occurredAt: Date(), clientId: "has space"),
        IntegrityFlagReport(kind: .offline, occurredAt: Date(), clientId: String(repeating: "x", count: 65)),
        IntegrityFlagReport(kind: .pasted, occurredAt: Date(), questionId: ""),
    ])
    func nonsense_details_are_refused(report: IntegrityFlagReport) {
        #expect(throws: RuleViolation.self) { try report.validated(attemptStartedAt: Date(), now: Date()) }
    }

    @Test func details_read_as_a_short_phrase() {
        #expect(IntegrityFlagReport(kind: .returned, occurredAt: start, secondsAway: 45).detail == "after 45 s")
        #expect(
            IntegrityFlagReport(kind: .online, occurredAt: start, secondsAway: 185).detail == "after 3 min 5 s offline")
        #expect(IntegrityFlagReport(kind: .returned, occurredAt: start, secondsAway: 185).detail == "after 3 min 5 s")
        #expect(IntegrityFlagReport(kind: .returned, occurredAt: start, secondsAway: 120).detail == "after 2 min")
        #expect(
            IntegrityFlagReport(kind: .pasted, occurredAt: start, characters: 80, questionId: "q3").detail
                == "80 characters into q3")
        #expect(IntegrityFlagReport(kind: .resized, occurredAt: start, width: 280, height: 600).detail == "280×600")
        #expect(IntegrityFlagReport(kind: .offline, occurredAt: start).detail == "")
    }

    @Test func an_unknown_kind_does_not_decode() {
        #expect(throws: DecodingError.self) {
            try JSONDecoder().decode(IntegrityFlagKind.self, from: Data(#""took_photo""#.utf8))
        }
    }
}

@Suite("Question statistics", .timeLimit(.minutes(5)))
struct QuestionStatisticsTests {
    let q = sampleQuiz.questions

    @Test func choices_are_counted_per_option_with_the_share_correct() {
        let answers: [QuizAnswer?] = [.choice(1), .choice(1), .choice(0), nil]
        let stats = QuestionStatistics(
            question: q[0], answers: answers, marks: answers.map { QuizMarking.mark($0, to: q[0]) })
        #expect(stats.attempts == 4 && stats.answered == 3 && stats.correct == 2)
        #expect(stats.percentCorrect == 50)
        #expect(stats.optionCounts == [1, 2, 0])
        #expect(stats.averagePoints == 1)
    }

    @Test func several_choices_count_each_ticked_option() {
        let answers: [QuizAnswer?] = [.choices([0, 1]), .choices([0]), .choices([])]
        let stats = QuestionStatistics(
            question: q[1], answers: answers, marks: answers.map { QuizMarking.mark($0, to: q[1]) })
        #expect(stats.optionCounts == [2, 1, 0, 0])
        #expect(stats.answered == 2 && stats.correct == 1)
        #expect(stats.percentCorrect == 33.3)
    }

    @Test func texts_and_numbers_list_their_most_frequent_answers() {
        let texts: [QuizAnswer?] = [.text("Water"), .text(" water "), .text("Salt"), .text("")]
        let stats = QuestionStatistics(
            question: q[2], answers: texts, marks: texts.map { QuizMarking.mark($0, to: q[2]) })
        #expect(stats.topAnswers == [.init(answer: "water", count: 2), .init(answer: "salt", count: 1)])
        #expect(stats.pending == 3 && stats.correct == 0)
        let numbers: [QuizAnswer?] = [.number(46), .number(46), .number(23)]
        let numberStats = QuestionStatistics(
            question: q[3], answers: numbers, marks: numbers.map { QuizMarking.mark($0, to: q[3]) })
        #expect(numberStats.topAnswers?.first == .init(answer: "46", count: 2))
        #expect(numberStats.percentCorrect == 66.7)
    }

    @Test func no_attempt_gives_no_percentage() {
        let stats = QuestionStatistics(question: q[0], answers: [], marks: [])
        #expect(stats.percentCorrect == nil && stats.averagePoints == nil)
    }
}

@Suite("Flag floods", .timeLimit(.minutes(5)))
struct FlagFloodTests {
    @Test func flags_are_kept_one_by_one_until_an_attempt_or_a_minute_is_full() {
        #expect(FlagFlood.decide(kept: 0, lastMinute: 0, kindKept: false) == .keep)
        #expect(FlagFlood.decide(kept: 5, lastMinute: 5, kindKept: true) == .keep)
        #expect(FlagFlood.decide(kept: 50, lastMinute: FlagFlood.perMinute - 1, kindKept: true) == .keep)
        #expect(FlagFlood.decide(kept: 50, lastMinute: FlagFlood.perMinute, kindKept: true) == .fold)
        #expect(FlagFlood.decide(kept: FlagFlood.perAttempt, lastMinute: 0, kindKept: true) == .fold)
        // A kind not seen yet is kept even in a flood: at most one per kind beyond the caps.
        #expect(FlagFlood.decide(kept: FlagFlood.perAttempt, lastMinute: 99, kindKept: false) == .keep)
    }

    @Test func a_folded_flag_says_how_often_it_came() {
        var report = IntegrityFlagReport(kind: .pasted, occurredAt: Date(), characters: 10)
        #expect(report.detail == "10 characters")
        report.repeats = 4
        #expect(report.detail == "10 characters, 5 times")
        report = IntegrityFlagReport(kind: .leftPage, occurredAt: Date())
        report.repeats = 1
        #expect(report.detail == "2 times")
    }
}
