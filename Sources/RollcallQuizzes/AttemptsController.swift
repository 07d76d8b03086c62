import Foundation
import Hummingbird
import RollcallCore
import RollcallModel
import RollcallWeb
import RollcallWords

/// The student's side of a quiz: starting (or resuming) an attempt, saving answers one by one under the sequence
/// rule, submitting, and reporting what the browser noticed.
struct AttemptsController: Sendable {
    let quizzes: QuizStore
    let access: AccessRule
    let throttle: SaveThrottle

    struct StartInput: Decodable {
        /// A random id the browser keeps for this quiz page, so that a second device or tab can be told apart.
        var deviceId: String?
    }
    /// One question as the student sees it, in their order, without its solution.
    struct QuestionView: Codable, Sendable {
        var id: String
        var kind: QuestionKind
        var prompt: String
        var points: Int
        var options: [String]?
        /// The teacher's option indexes in the order shown to this student; answers use the teacher's indexes.
        var order: [Int]?
        /// After the quiz closed, when the teacher shows results: the mark.
        var mark: QuizMarkView?
    }
    struct AttemptView: Codable, ResponseEncodable {
        var attempt: QuizAttemptView
        var quiz: QuizInfo
        var questions: [QuestionView]
        /// The saved answers by question id, each with the sequence number it was saved with.
        var answers: [String: SavedAnswer]
        /// The highest sequence number stored: the next save must be above it to replace anything.
        var lastSequence: Int64
        var serverTime: Date
        /// Once closed and the teacher shows results: the student's total.
        var points: Double?
        var maxPoints: Int?
    }
    struct QuizInfo: Codable, Sendable {
        var title: String
        var instructions: String
        var timeLimitSeconds: Int
        var showResults: Bool
        var running: Bool
    }
    struct AnswerInput: Decodable {
        var sequence: Int64
        var answer: QuizAnswer
    }
    struct Saved: Codable, ResponseEncodable {
        var questionId: String
        var sequence: Int64
        var savedAt: Date
        /// `false` when this very save was stored before (a retry).
        var changed: Bool
        var answered: Int
        var deadline: Date

        /// Written by hand, the same JSON as `JSONCoding.encoder` writes: a class's autosaves are most of a quiz's
        /// requests, and Foundation's encoder was 3 % of a server's CPU in a quiz on SQLite.
        func response(from request: Request, context: some RequestContext) -> Response {
            written.response(status: .ok)
        }

        var written: JSONWriter {
            var json = JSONWriter()
            json.field("questionId", questionId)
            json.field("sequence", sequence)
            json.field("savedAt", savedAt)
            json.field("changed", changed)
            json.field("answered", Int64(answered))
            json.field("deadline", deadline)
            return json
        }
    }
    struct FlagInput: Decodable {
        var kind: String
        var occurredAt: Date
        var clientId: String?
        var secondsAway: Double?
        var characters: Int?
        var width: Int?
        var height: Int?
        var questionId: String?
    }
    struct FlagsInput: Decodable {
        var flags: [FlagInput]
    }
    struct FlagsRecorded: Codable, ResponseEncodable {
        /// Flags newly stored; those sent before (same `clientId`) are not stored twice.
        var recorded: Int
    }

    func addRoutes(to router: Router<AppRequestContext>) {
        router.get(QuizRoutes.run, use: showRun)
        router.post(QuizRoutes.attempts, use: start)
        router.get(QuizRoutes.attempt, use: show)
        router.put(QuizRoutes.answer, use: save)
        router.post(QuizRoutes.submit, use: submit)
        router.post(QuizRoutes.flags, use: flags)
    }

    struct RunAnswer: Codable, ResponseEncodable {
        var run: QuizRunView
        /// For a student: whether they may start (checked in, or let in), and their attempt if they have one.
        var mayStart: Bool?
        var attemptId: Int64?
    }

    @Sendable func showRun(_ request: Request, context: AppRequestContext) async throws -> RunAnswer {
        let user = try context.requireUser()
        let (run, granted) = try await access.run(in: context, needing: .attend)
        guard granted == .attend else { return RunAnswer(run: .init(run)) }
        let attempt = try await quizzes.attempts.list(runID: run.id, in: context.reader).first {
            $0.studentId == user.id
        }
        return RunAnswer(
            run: .init(run), mayStart: try await quizzes.runs.mayTake(run, studentID: user.id), attemptId: attempt?.id)
    }

    @Sendable func start(_ request: Request, context: AppRequestContext) async throws -> Response {
        let user = try context.requireUser()
        let (run, granted) = try await access.run(in: context, needing: .attend)
        guard granted == .attend, user.role == .student else {
            throw AppError.forbidden("Only the course's students take its quizzes.")
        }
        let input = try await request.decodeJSON(as: StartInput.self, context: context)
        if let device = input.deviceId {
            guard (1...64).contains(device.count), device.allSatisfy({ $0.isASCII && !$0.isWhitespace }) else {
                throw AppError(.badRequest, .invalidDeviceID, "“deviceId” is 1 to 64 visible ASCII characters.")
            }
        }
        let (attempt, created) = try await quizzes.attempts.start(run, studentID: user.id, deviceID: input.deviceId)
        return try await view(attempt, run: run).response(
            from: request, context: context, status: created ? .created : .ok)
    }

    func view(_ attempt: QuizAttempt, run: QuizRun) async throws -> AttemptView {
        let answers = try await quizzes.attempts.answers(attemptIDs: [attempt.id])[attempt.id] ?? [:]
        let quiz = run.definition
        let resultsShown = quiz.showResults && attempt.closedAt != nil && run.stoppedAt != nil
        let hand = resultsShown ? try await quizzes.marks.handMarks(attemptIDs: [attempt.id])[attempt.id] ?? [:] : [:]
        var total = 0.0
        let questions = QuizOrder(quiz, seed: attempt.seed).items.compactMap { item -> QuestionView? in
            guard let question = quiz.question(item.questionId) else { return nil }
            var mark: QuizMarkView?
            if resultsShown {
                let byHand = hand[question.id].map { (points: $0.points, comment: $0.comment) }
                let given = QuizMarking.mark(answers[question.id]?.answer, to: question, byHand: byHand)
                total += given.points
                mark = .init(
                    points: given.points, correct: given.isCorrect(of: question), pending: given == .pending,
                    comment: byHand?.comment)
            }
            return QuestionView(
                id: question.id, kind: question.kind, prompt: question.prompt, points: question.points,
                options: question.options, order: item.options, mark: mark)
        }
        return AttemptView(
            attempt: .init(attempt),
            quiz: QuizInfo(
                title: quiz.title, instructions: quiz.instructions, timeLimitSeconds: quiz.timeLimitSeconds,
                showResults: quiz.showResults, running: run.stoppedAt == nil),
            questions: questions, answers: answers, lastSequence: answers.values.map(\.sequence).max() ?? 0,
            serverTime: Date(), points: resultsShown ? total : nil, maxPoints: resultsShown ? quiz.maxPoints : nil)
    }

    @Sendable func show(_ request: Request, context: AppRequestContext) async throws -> AttemptView {
        let (attempt, run) = try await access.attempt(in: context)
        return try await view(attempt, run: run)
    }

    @Sendable func save(_ request: Request, context: AppRequestContext) async throws -> Saved {
        // The busiest route: the run from memory, and the access a save needs (its own student, enrolled) read
        // first only for an attempt this process has not seen; a known attempt's save verifies it as it is written.
        let user = try context.requireUser()
        let attemptID = try context.id("attemptID", .attemptNotFound, "attempt")
        let known = try await access.knownAttemptToSave(attemptID, for: user)
        let run: QuizRun
        if let known { run = known } else { run = try await access.attemptToSave(attemptID, for: user).1 }
        if let wait = throttle.admit(attemptID: attemptID) {
            throw AppError(
                .tooManyRequests, .tooManyAttempts,
                "Answers are coming faster than anyone types; this one was not saved. Your page sends it again.",
                retryAfter: Int(wait))
        }
        let questionID = context.parameters.get("questionID") ?? ""
        guard let question = run.definition.question(questionID) else {
            throw QuizRefusal.answer(.unknownQuestion(questionID))
        }
        let input = try await request.decodeJSON(as: AnswerInput.self, context: context)
        guard AttemptRules.sequences.contains(input.sequence) else {
            throw AppError(
                .badRequest, .invalidSequence, "“sequence” must be a whole number from 1, higher for each save.")
        }
        let answer: QuizAnswer
        do {
            answer = try input.answer.validated(for: question)
        } catch {
            throw QuizRefusal.answer(error)
        }
        let outcome: QuizAttempts.SaveOutcome
        do {
            outcome = try await quizzes.attempts.save(
                attemptID: attemptID, questionID: question.id, answer: answer, sequence: input.sequence,
                verifying: known == nil ? nil : user.id)
        } catch is AnswerSaves.Unverified {
            // Read as for an attempt not seen, which says why (another's, or no longer enrolled); one enrolled again
            // meanwhile is saved.
            _ = try await access.attemptToSave(attemptID, for: user)
            outcome = try await quizzes.attempts.save(
                attemptID: attemptID, questionID: question.id, answer: answer, sequence: input.sequence)
        }
        return Saved(
            questionId: question.id, sequence: outcome.sequence, savedAt: outcome.savedAt, changed: outcome.changed,
            answered: outcome.answered, deadline: outcome.deadline)
    }

    @Sendable func submit(_ request: Request, context: AppRequestContext) async throws -> AttemptView {
        let (attempt, run) = try await access.attempt(in: context, ownOnly: true)
        let closed = try await quizzes.attempts.close(attemptID: attempt.id, ending: .submitted)
        return try await view(closed, run: run)
    }

    static let flagsPerRequest = 1...200

    @Sendable func flags(_ request: Request, context: AppRequestContext) async throws -> Response {
        let (attempt, _) = try await access.attempt(in: context, ownOnly: true)
        let input = try await request.decodeJSON(as: FlagsInput.self, context: context)
        guard Self.flagsPerRequest.contains(input.flags.count) else {
            throw AppError(.badRequest, .invalidFlags, "Send 1 to 200 flags at a time.")
        }
        let now = Date()
        let reports = try input.flags.map { flag in
            guard let kind = IntegrityFlagKind(rawValue: flag.kind) else {
                throw AppError(
                    .badRequest, .unknownFlagKind,
                    "“\(flag.kind)” is not a flag Rollcall records; it records \(IntegrityFlagKind.allCases.map(\.rawValue).joined(separator: ", "))."
                )
            }
            let report = IntegrityFlagReport(
                kind: kind, occurredAt: flag.occurredAt, clientId: flag.clientId, secondsAway: flag.secondsAway,
                characters: flag.characters, width: flag.width, height: flag.height, questionId: flag.questionId)
            return try check { () throws(RuleViolation) in
                try report.validated(attemptStartedAt: attempt.startedAt, now: now)
            }
        }
        let stored = try await quizzes.marks.record(reports, attemptID: attempt.id, now: now)
        return try FlagsRecorded(recorded: stored.count).response(from: request, context: context, status: .created)
    }
}
