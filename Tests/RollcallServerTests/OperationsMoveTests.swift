import Foundation
import PasskeyTestSupport
import RollcallParts
import RollcallWeb
import SQLKit
import ServerTestSupport
import Testing

@testable import RollcallServer

/// The embedded school moves to PostgreSQL: `rollcall copy-database` into a cluster the test starts, after which the
/// API answers as it did.
@Suite("Operations: the move to PostgreSQL", .timeLimit(.minutes(6)))
struct OperationsMoveTests {
    /// What the API answered on SQLite, to be answered again on PostgreSQL.
    struct Answers: Sendable, Equatable {
        var texts: [String: String] = [:]
    }

    /// The school after a term: the demo institution, and a course with a quiz answered, a teacher's change, a
    /// student's passkey and a registered learning platform.
    struct Term: Sendable {
        var quiz: QuizRoom
        var phone: SoftwareAuthenticator
        var passkeyStudent: Account
        var paths: [(path: String, email: String)]
    }

    @Test func the_demo_school_copied_to_postgresql_answers_the_same() async throws {
        let scratch = Scratch()
        defer { scratch.remove() }
        let postgres = try PostgresServer.start()
        defer { postgres.stop() }
        _ = try await Demo.fill(scratch.configuration())
        let (term, before) = try await withServerAnswering(dataDirectory: scratch.path("data")) { api in
            let term = try await Self.term(api)
            return (term, try await Self.answers(api, term))
        }
        let old = try await maxima(scratch.configuration())

        let report = try await Operations.copyDatabase(scratch.configuration(), to: postgres.url, in: .english)
        #expect(report.lines.contains { $0.hasPrefix("  attendance ") }, "\(report.lines)")
        #expect(report.lines.last?.contains("equal on both sides") == true, "\(report.lines)")
        let moved = Configuration(databaseURL: postgres.url, logLevel: .error)
        #expect(try await Operations.check(moved, in: .english).passed)

        try await withServer(databaseURL: postgres.url) { api in
            let after = try await Self.answers(api, term)
            #expect(after.texts.keys.sorted() == before.texts.keys.sorted())
            for (asked, answer) in before.texts {
                #expect(after.texts[asked] == answer, "\(asked) answers otherwise after the move")
            }
            var phone = term.phone
            let token = try await api.call(
                .post, "/api/v1/auth/passkey-tokens",
                json: ["credential": phone.assertionJSON(challenge: try await api.signInChallenge())])
            #expect(token.status == .created, "the passkey signs in after the move: \(token.text)")

            let teacher = try await api.signIn(term.quiz.room.teacher.email)
            let opened = try await api.call(
                .post, "/api/v1/courses/\(term.quiz.room.courseID)/sessions", as: teacher, json: [String: Any]())
            #expect(opened.status == .created, "\(opened.text)")
            let room = Classroom(
                teacher: teacher, student: term.quiz.room.student, courseID: term.quiz.room.courseID,
                sessionID: try #require(opened.int("session.id")))
            #expect(room.sessionID > old.sessions)
            #expect(try await room.checkIn(api, try await api.signIn(room.student.email)).status == .created)
        }
        let new = try await maxima(moved)
        #expect(new.events > old.events, "the new check-in's event is numbered past the copied ones")

        // And back, once the servers' connections are closed: PostgreSQL into a new SQLite file.
        var back: Operations.Report?
        try await eventually("the servers' connections to PostgreSQL to close") {
            do {
                back = try await Operations.copyDatabase(moved, to: scratch.path("back/rollcall.sqlite"), in: .english)
                return true
            } catch let refused as OperationRefused where refused.description.contains("Other connections") {
                return false
            }
        }
        #expect(back?.lines.last?.contains("equal on both sides") == true, "\(back?.lines ?? [])")
        #expect(try await Operations.check(scratch.configuration("back"), in: .english).passed)
    }

    /// The highest session and session-event ids in a database.
    private func maxima(_ configuration: Configuration) async throws -> (sessions: Int64, events: Int64) {
        let store = try await OperatedStores.open(.configured(configuration))
        return try await store.closing { store in
            try await store.using { sql in
                let sessions = try await sql.raw("SELECT MAX(id) AS n FROM sessions").first(
                    decodingColumn: "n", as: Int64.self)
                let events = try await sql.raw("SELECT MAX(id) AS n FROM session_events").first(
                    decodingColumn: "n", as: Int64.self)
                return (sessions ?? 0, events ?? 0)
            }
        }
    }

    private static func term(_ api: API) async throws -> Term {
        let quiz = try await QuizRoom.start(api)
        let attempt = try #require(try await quiz.attempt(api).int("attempt.id"))
        #expect(try await quiz.save(api, attempt: attempt, "q1", ["choice": 1], sequence: 1).status == .ok)
        #expect(try await quiz.save(api, attempt: attempt, "q4", ["number": 46], sequence: 2).status == .ok)
        let submitted = try await api.call(.post, "/api/v1/quiz-attempts/\(attempt)/submit", as: quiz.room.student)
        #expect(submitted.status == .ok, "\(submitted.text)")
        let late = try await quiz.room.enrol(api, "Late Lou")
        #expect(try await api.mark(quiz.room, session: quiz.room.sessionID, student: late.id, "late").status == .ok)

        let student = try await api.register("Pat Passkey")
        let phone = SoftwareAuthenticator.of(student)
        try await api.addPasskey(student, phone)
        let admin = try await api.signIn(Demo.adminEmail, password: Demo.password)
        let platform = try await api.call(
            .post, "/api/v1/admin/lti-platforms", as: admin,
            json: [
                "name": "Hill Moodle", "issuer": "https://moodle.hill.test", "clientId": "rollcall-tool",
                "deploymentIds": ["1"], "authorizationUrl": "https://moodle.hill.test/auth",
                "tokenUrl": "https://moodle.hill.test/token", "jwksUrl": "https://moodle.hill.test/jwks",
            ])
        #expect(platform.status == .created, "\(platform.text)")
        let ada = "ada@demo.rollcall.test"
        let teacher = quiz.room.teacher.email
        let paths: [(path: String, email: String)] = [
            ("/api/v1/courses", ada), ("/api/v1/courses", teacher),
            ("/api/v1/courses/\(quiz.room.courseID)/report.csv", teacher),
            ("/api/v1/sessions/\(quiz.room.sessionID)/report.csv", teacher),
            ("/api/v1/quiz-runs/\(quiz.runID)/results", teacher),
            ("/api/v1/quiz-runs/\(quiz.runID)/results.csv", teacher),
            ("/api/v1/admin/lti-platforms", Demo.adminEmail),
            ("/api/v1/admin/outbox", Demo.adminEmail),
            ("/api/v1/admin/exposure-reports", Demo.adminEmail),
        ]
        return Term(quiz: quiz, phone: phone, passkeyStudent: student, paths: paths)
    }

    /// JSON with its keys in one order: the server writes an object's keys in whatever order its dictionary holds
    /// them, which differs between two runs; the CSVs are compared byte for byte.
    private static func sortedJSON(_ text: String) throws -> String {
        let value = try JSONSerialization.jsonObject(with: Data(text.utf8))
        return String(
            decoding: try JSONSerialization.data(withJSONObject: value, options: [.sortedKeys]), as: UTF8.self)
    }

    /// The answers to the term's paths, each as its person asks, signed in with their password.
    private static func answers(_ api: API, _ term: Term) async throws -> Answers {
        var answers = Answers()
        for (path, email) in term.paths {
            let password = email.hasSuffix("demo.rollcall.test") ? Demo.password : API.password
            let account = try await api.signIn(email, password: password)
            let reply = try await api.call(.get, path, as: account)
            #expect(reply.status == .ok, "\(path): \(reply.text)")
            answers.texts["\(email) \(path)"] = path.hasSuffix(".csv") ? reply.text : try Self.sortedJSON(reply.text)
        }
        // The demo courses' own CSVs, with their term of history.
        let ada = try await api.signIn("ada@demo.rollcall.test", password: Demo.password)
        for course in try await api.call(.get, "/api/v1/courses", as: ada).list("courses") {
            let id = (course["id"] as? NSNumber)?.intValue ?? 0
            answers.texts["ada \(id)"] = try await api.call(.get, "/api/v1/courses/\(id)/report.csv", as: ada).text
        }
        return answers
    }
}
