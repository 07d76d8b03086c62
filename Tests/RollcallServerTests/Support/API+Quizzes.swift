import Foundation
import HTTPTypes
import HummingbirdWSTesting
import ServerTestSupport
import Testing

@testable import RollcallServer

/// A quiz of one question of each kind, as the teacher's editor sends it.
nonisolated(unsafe) let quizBody: [String: Any] = [
    "title": "Cells", "instructions": "No notes.", "timeLimitSeconds": 600, "showResults": true,
    "questions": [
        [
            "id": "q1", "kind": "single_choice", "prompt": "Powerhouse of the cell?", "points": 2,
            "options": ["Nucleus", "Mitochondrion", "Ribosome"], "correct": [1],
        ],
        [
            "id": "q2", "kind": "multiple_choice", "prompt": "Which hold DNA?", "points": 3,
            "options": ["Nucleus", "Mitochondrion", "Ribosome"], "correct": [0, 1],
        ],
        ["id": "q3", "kind": "short_text", "prompt": "Explain osmosis.", "points": 4],
        [
            "id": "q4", "kind": "number", "prompt": "Chromosomes in a human cell?", "points": 1, "answer": 46,
            "tolerance": 0,
        ],
    ],
]

/// A classroom whose teacher has started a quiz, with the student checked in.
struct QuizRoom {
    var room: Classroom
    var quizID: Int64
    var runID: Int64

    static func start(_ api: API, body: [String: Any] = quizBody, checkIn: Bool = true) async throws -> QuizRoom {
        let room = try await Classroom.open(api)
        let quiz = try await api.call(.post, "/api/v1/courses/\(room.courseID)/quizzes", as: room.teacher, json: body)
        #expect(quiz.status == .created, "\(quiz.text)")
        let quizID = try #require(quiz.int("quiz.id"))
        let run = try await api.call(
            .post, "/api/v1/sessions/\(room.sessionID)/quiz-runs", as: room.teacher, json: ["quizId": quizID])
        #expect(run.status == .created, "\(run.text)")
        if checkIn {
            let checked = try await room.checkIn(api, room.student)
            #expect(checked.status == .created, "\(checked.text)")
        }
        return QuizRoom(room: room, quizID: quizID, runID: try #require(run.int("run.id")))
    }

    /// Starts (or resumes) the student's attempt; answers the attempt view.
    func attempt(_ api: API, as student: Account? = nil, device: String = "phone-a") async throws -> Reply {
        try await api.call(
            .post, "/api/v1/quiz-runs/\(runID)/attempts", as: student ?? room.student, json: ["deviceId": device])
    }

    /// Saves one answer as the quiz page does.
    @discardableResult
    func save(
        _ api: API, attempt: Int64, _ question: String, _ answer: [String: Any], sequence: Int64,
        as student: Account? = nil
    ) async throws -> Reply {
        try await api.call(
            .put, "/api/v1/quiz-attempts/\(attempt)/answers/\(question)", as: student ?? room.student,
            json: ["sequence": sequence, "answer": answer])
    }
}

extension API {
    /// Opens a quiz run's dashboard WebSocket as `account` and hands the messages to `body`.
    func watchQuiz(
        _ runID: Int64, as account: Account?, after: Int64? = nil,
        _ body: @escaping @Sendable (LiveView) async throws -> Void
    ) async throws {
        var headers: HTTPFields = [:]
        if let account { headers[.authorization] = "Bearer \(account.token)" }
        let path = "/api/v1/quiz-runs/\(runID)/live" + (after.map { "?after=\($0)" } ?? "")
        try await client.ws(path, configuration: .init(additionalHeaders: headers)) { inbound, outbound, _ in
            let (stream, continuation) = AsyncStream<String>.makeStream()
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask {
                    defer { continuation.finish() }
                    for try await message in inbound.messages(maxSize: 1 << 22) {
                        if case .text(let text) = message { continuation.yield(text) }
                    }
                }
                try await body(LiveView(stream))
                try await outbound.close(.normalClosure, reason: nil)
                try await group.waitForAll()
            }
        }
    }
}
