import Foundation
import Hummingbird
import RollcallCore
import RollcallModel
import RollcallWeb
import RollcallWords

/// The teacher's side of quizzes: defining them in a course, running them in a session, letting students in,
/// adding time, ending attempts, marking and reading the results.
struct QuizzesController: Sendable {
    let quizzes: QuizStore
    let courses: CourseStore
    let sessions: SessionStore
    let access: AccessRule

    struct QuizView: Codable, Sendable {
        var id: Int64
        var courseId: Int64
        var title: String
        var instructions: String
        var questions: [QuizQuestion]
        var timeLimitSeconds: Int
        var shuffleQuestions: Bool
        var shuffleOptions: Bool
        var showResults: Bool
        var maxPoints: Int
        var archived: Bool
        var createdAt: Date
        var updatedAt: Date

        init(_ quiz: Quiz) {
            let definition = quiz.definition
            id = quiz.id
            courseId = quiz.courseId
            title = definition.title
            instructions = definition.instructions
            questions = definition.questions
            timeLimitSeconds = definition.timeLimitSeconds
            shuffleQuestions = definition.shuffleQuestions
            shuffleOptions = definition.shuffleOptions
            showResults = definition.showResults
            maxPoints = definition.maxPoints
            archived = quiz.archivedAt != nil
            createdAt = quiz.createdAt
            updatedAt = quiz.updatedAt
        }
    }
    struct QuizEnvelope: Codable, ResponseEncodable {
        var quiz: QuizView
    }
    struct QuizList: Codable, ResponseEncodable {
        var quizzes: [QuizView]
    }
    struct Deleted: Codable, ResponseEncodable {
        /// `true` when the quiz is gone; `false` when it had answers and was archived instead.
        var deleted: Bool
        var archived: Bool
    }
    struct QuizInput: Decodable {
        var title: String
        var instructions: String?
        var questions: [QuizQuestion]
        var timeLimitSeconds: Int?
        var shuffleQuestions: Bool?
        var shuffleOptions: Bool?
        var showResults: Bool?

        func definition() throws -> QuizDefinition {
            try check { () throws(RuleViolation) in
                try QuizDefinition(
                    title: title, instructions: instructions ?? "", questions: questions,
                    timeLimitSeconds: timeLimitSeconds ?? 600, shuffleQuestions: shuffleQuestions ?? false,
                    shuffleOptions: shuffleOptions ?? false, showResults: showResults ?? false
                ).validated()
            }
        }
    }
    struct RunEnvelope: Codable, ResponseEncodable {
        var run: QuizRunView
    }
    struct RunList: Codable, ResponseEncodable {
        var runs: [QuizRunView]
    }
    struct StartInput: Decodable {
        var quizId: Int64
    }
    struct AdmissionInput: Decodable {
        var studentId: Int64
    }
    struct AddedTimeInput: Decodable {
        var seconds: Int
    }
    struct MarkInput: Decodable {
        var points: Double
        var comment: String?
    }
    struct AttemptSummary: Codable, ResponseEncodable {
        var attempt: QuizAttemptView
    }
    struct ResultAnswer: Codable, Sendable {
        var answer: QuizAnswer?
        var mark: QuizMarkView
    }
    struct StudentResult: Codable, Sendable {
        var attempt: QuizAttemptView
        var points: Double
        var pending: Int
        var answers: [String: ResultAnswer]
        var flags: Int
    }
    struct Results: Codable, ResponseEncodable {
        var run: QuizRunView
        var questions: [QuizQuestion]
        var maxPoints: Int
        var results: [StudentResult]
        var flags: [StoredFlag]
    }
    struct Statistics: Codable, ResponseEncodable {
        var run: QuizRunView
        var questions: [QuestionStatistics]
    }

    func addRoutes(to router: Router<AppRequestContext>) {
        router.get(QuizRoutes.courseQuizzes, use: list)
        router.post(QuizRoutes.courseQuizzes, use: create)
        router.get(QuizRoutes.quiz, use: show)
        router.put(QuizRoutes.quiz, use: update)
        router.delete(QuizRoutes.quiz, use: delete)
        router.post(QuizRoutes.duplicate, use: duplicate)
        router.get(QuizRoutes.sessionRuns, use: runs)
        router.post(QuizRoutes.sessionRuns, use: start)
        router.post(QuizRoutes.stop, use: stop)
        router.post(QuizRoutes.admissions, use: admit)
        router.get(QuizRoutes.results, use: results)
        router.get(QuizRoutes.statistics, use: statistics)
        router.get(QuizRoutes.resultsCSV, use: resultsCSV)
        router.post(QuizRoutes.addedTime, use: addTime)
        router.post(QuizRoutes.end, use: end)
        router.put(QuizRoutes.mark, use: mark)
    }

    /// The quiz named by the path, for its course's teacher.
    func managedQuiz(_ context: AppRequestContext, changing: Bool = false) async throws -> Quiz {
        let user = try context.requireUser()
        guard let quiz = try await quizzes.find(id: try context.id("quizID", .quizNotFound, "quiz")) else {
            throw AppError.notFound(.quizNotFound, "quiz")
        }
        _ = try await access.course(quiz.courseId, for: user, needing: .manage, changing: changing)
        return quiz
    }

    @Sendable func list(_ request: Request, context: AppRequestContext) async throws -> QuizList {
        let course = try await access.course(in: context, needing: .manage).0
        let archived = request.uri.queryParameters.get("archived") == "true"
        return QuizList(quizzes: try await quizzes.list(courseID: course.id, archived: archived).map(QuizView.init))
    }

    @Sendable func create(_ request: Request, context: AppRequestContext) async throws -> Response {
        let course = try await access.course(in: context, needing: .manage, changing: true).0
        let definition = try await request.decodeJSON(as: QuizInput.self, context: context).definition()
        let quiz = try await quizzes.create(courseID: course.id, definition: definition)
        return try QuizEnvelope(quiz: QuizView(quiz)).response(from: request, context: context, status: .created)
    }

    @Sendable func show(_ request: Request, context: AppRequestContext) async throws -> QuizEnvelope {
        QuizEnvelope(quiz: QuizView(try await managedQuiz(context)))
    }

    @Sendable func update(_ request: Request, context: AppRequestContext) async throws -> QuizEnvelope {
        let quiz = try await managedQuiz(context, changing: true)
        let definition = try await request.decodeJSON(as: QuizInput.self, context: context).definition()
        return QuizEnvelope(quiz: QuizView(try await quizzes.update(quiz, definition: definition)))
    }

    @Sendable func delete(_ request: Request, context: AppRequestContext) async throws -> Deleted {
        let quiz = try await managedQuiz(context, changing: true)
        let deleted = try await quizzes.delete(quiz)
        return Deleted(deleted: deleted, archived: !deleted)
    }

    @Sendable func duplicate(_ request: Request, context: AppRequestContext) async throws -> Response {
        let quiz = try await managedQuiz(context, changing: true)
        var definition = quiz.definition
        definition.title = String("Copy of \(definition.title)".prefix(QuizDefinition.Limits.title.upperBound))
        let copy = try await quizzes.create(courseID: quiz.courseId, definition: definition)
        return try QuizEnvelope(quiz: QuizView(copy)).response(from: request, context: context, status: .created)
    }

    @Sendable func runs(_ request: Request, context: AppRequestContext) async throws -> RunList {
        let session = try await access.session(in: context).session
        return RunList(runs: try await quizzes.runs.list(sessionID: session.id).map(QuizRunView.init))
    }

    @Sendable func start(_ request: Request, context: AppRequestContext) async throws -> Response {
        let user = try context.requireUser()
        let (session, course, _) = try await access.session(in: context, needing: .manage, changing: true)
        let input = try await request.decodeJSON(as: StartInput.self, context: context)
        guard let quiz = try await quizzes.find(id: input.quizId), quiz.courseId == course.id else {
            throw AppError(.notFound, .quizNotFound, "This course has no quiz \(input.quizId).")
        }
        guard session.phase(at: Date()) == .open else { throw QuizRefusal.sessionNotOpen }
        let run = try await quizzes.runs.start(quiz, sessionID: session.id, by: user.id)
        return try RunEnvelope(run: QuizRunView(run)).response(from: request, context: context, status: .created)
    }

    @Sendable func stop(_ request: Request, context: AppRequestContext) async throws -> RunEnvelope {
        let (run, _) = try await access.run(in: context, needing: .manage, changing: true)
        return RunEnvelope(run: QuizRunView(try await quizzes.runs.stop(run)))
    }

    @Sendable func admit(_ request: Request, context: AppRequestContext) async throws -> Response {
        let user = try context.requireUser()
        let (run, _) = try await access.run(in: context, needing: .manage, changing: true)
        let input = try await request.decodeJSON(as: AdmissionInput.self, context: context)
        guard try await courses.roster.isEnrolled(courseID: run.courseId, studentID: input.studentId) else {
            throw AppError(.notFound, .studentNotFound, "That student is not on this course's roster.")
        }
        guard run.stoppedAt == nil else { throw QuizRefusal.runStopped }
        try await quizzes.runs.admit(run, studentID: input.studentId, by: user.id)
        return Response(status: .created)
    }

    @Sendable func addTime(_ request: Request, context: AppRequestContext) async throws -> AttemptSummary {
        let (attempt, _) = try await access.managedAttempt(in: context, changing: true)
        let input = try await request.decodeJSON(as: AddedTimeInput.self, context: context)
        guard AttemptRules.addedSeconds.contains(input.seconds) else {
            throw AppError(
                .badRequest, .invalidSeconds, "Add from 1 second to 2 hours (7200 seconds) at a time.")
        }
        return AttemptSummary(
            attempt: QuizAttemptView(try await quizzes.attempts.addTime(attemptID: attempt.id, seconds: input.seconds)))
    }

    @Sendable func end(_ request: Request, context: AppRequestContext) async throws -> AttemptSummary {
        let (attempt, _) = try await access.managedAttempt(in: context, changing: true)
        return AttemptSummary(
            attempt: QuizAttemptView(try await quizzes.attempts.close(attemptID: attempt.id, ending: .endedByTeacher)))
    }

    @Sendable func mark(_ request: Request, context: AppRequestContext) async throws -> Response {
        let user = try context.requireUser()
        let (attempt, run) = try await access.managedAttempt(in: context, changing: true)
        let questionID = context.parameters.get("questionID") ?? ""
        guard let question = run.definition.question(questionID) else {
            throw QuizRefusal.answer(.unknownQuestion(questionID))
        }
        let input = try await request.decodeJSON(as: MarkInput.self, context: context)
        let points = try check { () throws(RuleViolation) in try QuizMarking.handPoints(input.points, for: question) }
        let comment = try check { () throws(RuleViolation) in
            try TextRules.plain(
                (input.comment ?? "").trimmingCharacters(in: .whitespacesAndNewlines), field: "comment",
                multiline: true)
        }
        guard comment.count <= 2000 else {
            throw AppError(.badRequest, .invalidComment, "Keep the comment under 2,000 characters.")
        }
        try await quizzes.marks.mark(
            attemptID: attempt.id, questionID: question.id, points: points, comment: comment, by: user.id)
        return Response(status: .noContent)
    }

    /// Every attempt with its marks, and every flag.
    func results(of run: QuizRun, in reader: Reader) async throws -> Results {
        let attempts = try await quizzes.attempts.list(runID: run.id, in: reader)
        let answers = try await quizzes.attempts.answers(attemptIDs: attempts.map(\.id))
        let marks = try await quizzes.marks.handMarks(attemptIDs: attempts.map(\.id))
        let flags = try await quizzes.marks.flags(runID: run.id)
        let quiz = run.definition
        let results = attempts.map { attempt in
            let given = answers[attempt.id] ?? [:]
            let hand = marks[attempt.id] ?? [:]
            var points = 0.0
            var pending = 0
            var byQuestion: [String: ResultAnswer] = [:]
            for question in quiz.questions {
                let byHand = hand[question.id].map { (points: $0.points, comment: $0.comment) }
                let mark = QuizMarking.mark(given[question.id]?.answer, to: question, byHand: byHand)
                points += mark.points
                if mark == .pending { pending += 1 }
                byQuestion[question.id] = ResultAnswer(
                    answer: given[question.id]?.answer,
                    mark: QuizMarkView(
                        points: mark.points, correct: mark.isCorrect(of: question), pending: mark == .pending,
                        comment: byHand?.comment))
            }
            return StudentResult(
                attempt: QuizAttemptView(attempt), points: points, pending: pending, answers: byQuestion,
                flags: flags.filter { $0.attemptId == attempt.id }.count)
        }
        return Results(
            run: QuizRunView(run), questions: quiz.questions, maxPoints: quiz.maxPoints, results: results, flags: flags)
    }

    @Sendable func results(_ request: Request, context: AppRequestContext) async throws -> Results {
        let (run, _) = try await access.run(in: context, needing: .manage)
        return try await results(of: run, in: context.reader)
    }

    @Sendable func statistics(_ request: Request, context: AppRequestContext) async throws -> Statistics {
        let (run, _) = try await access.run(in: context, needing: .manage)
        let results = try await results(of: run, in: context.reader)
        return Statistics(
            run: results.run,
            questions: run.definition.questions.map { question in
                let answers = results.results.map { $0.answers[question.id]?.answer }
                let marks = results.results.map { result -> Mark in
                    let mark = result.answers[question.id]?.mark
                    if mark?.pending == true { return .pending }
                    if let comment = mark?.comment { return .byHand(points: mark?.points ?? 0, comment: comment) }
                    return .automatic(points: mark?.points ?? 0, correct: mark?.correct ?? false)
                }
                return QuestionStatistics(question: question, answers: answers, marks: marks)
            })
    }

    @Sendable func resultsCSV(_ request: Request, context: AppRequestContext) async throws -> Response {
        let (run, _) = try await access.run(in: context, needing: .manage)
        guard let course = try await courses.find(id: run.courseId) else {
            throw AppError.notFound(.courseNotFound, "course")
        }
        let reader = context.reader
        let results = try await results(of: run, in: reader)
        let roster = Dictionary(
            try await courses.roster.list(courseID: course.id, in: reader).map { ($0.id, $0) },
            uniquingKeysWith: { first, _ in first })
        var header = [
            reader.say("Name"), reader.say("Student number"), reader.say("Started at (\(course.zone.identifier))"),
            reader.say("Ended at (\(course.zone.identifier))"), reader.say("Ending"), reader.say("Ending code"),
            reader.say("Points"), reader.say("Out of"), reader.say("To mark"),
        ]
        header += run.definition.questions.map { "\($0.id) (\($0.points))" }
        header += [reader.say("Flags")]
        var csv = CSV.line(header)
        for result in results.results {
            var row = [
                result.attempt.name, roster[result.attempt.studentId]?.studentNumber ?? "",
                CourseTimeZone.timestamp(result.attempt.startedAt, in: course.zone),
                result.attempt.closedAt.map { CourseTimeZone.timestamp($0, in: course.zone) } ?? "",
                result.attempt.ending?.pageText(in: reader) ?? "", result.attempt.ending?.rawValue ?? "",
                result.points.pointsText,
                String(results.maxPoints),
                String(result.pending),
            ]
            row += run.definition.questions.map { question in
                guard let answer = result.answers[question.id] else { return "" }
                return answer.mark.pending ? reader.say("to mark") : answer.mark.points.pointsText
            }
            row.append(String(result.flags))
            csv += CSV.line(row)
        }
        return try CSVDownload.response(
            csv, name: reader.say("\(course.name) \(run.definition.title) quiz"), request: request)
    }

}
