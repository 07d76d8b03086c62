import Foundation
import RollcallCore
import RollcallModel
import RollcallParts
import RollcallStorage
import SQLKit
import ServerTestSupport
import Testing

@testable import RollcallServer

/// The upgrade to jobs: scores queued in the outbox before it (the `lti` channel) become score jobs, and no grade
/// waiting to be sent is lost, on either engine.
@Suite("Jobs migration", .serialized, .timeLimit(.minutes(3)))
struct JobMigrationTests {
    @Test func scores_waiting_in_the_outbox_move_over_as_jobs_on_sqlite() async throws {
        try await withJobDatabase(before: "042_jobs") { database in try await Self.upgrade(database) }
    }

    @Test func scores_waiting_in_the_outbox_move_over_as_jobs_on_postgresql() async throws {
        let postgres = try PostgresServer.start()
        defer { postgres.stop() }
        try await Database.postgres(url: postgres.url, logger: .init(label: "test")).closing { database in
            try await Migrations.apply(to: database, before: "042_jobs")
            try await Self.upgrade(database)
        }
    }

    static let lineItem = "https://lms.test/courses/7/line_items/1"

    /// The outbox as an older Rollcall left it, upgraded.
    static func upgrade(_ database: Database) async throws {
        let (courseID, studentID) = try await linkedCourse(database)
        let past = Date().addingTimeInterval(-120)
        // s-1's score was on its way when a newer one was queued; s-2 has one waiting and is no one Rollcall knows;
        // an older score of s-1 went out long ago; and a letter waits for its mail server.
        try await outbox(
            database, "lti", "s-1", lineItem, try scoreJSON("s-1", 60), status: "sending", attempts: 2, at: past)
        try await outbox(
            database, "lti", "s-1", lineItem, try scoreJSON("s-1", 90), status: "queued", attempts: 0, at: past)
        try await outbox(
            database, "lti", "s-2", lineItem, try scoreJSON("s-2", 70), status: "queued", attempts: 3, at: past)
        try await outbox(
            database, "lti", "s-1", lineItem, try scoreJSON("s-1", 10), status: "sent", attempts: 1, at: past)
        try await outbox(database, "email", "a@school.test", "Hello", "Hi", status: "queued", attempts: 0, at: past)

        try await Migrations.apply(to: database)

        let queue = JobQueue(database: database)
        let jobs = try await queue.all()
        try #require(jobs.map(\.status) == [.superseded, .pending, .pending, .done], "\(jobs)")
        #expect(jobs.allSatisfy { $0.kind == ScoreJob.name })
        let payloads = try jobs.map { try JSONDecoder().decode(ScoreJob.Payload.self, from: Data($0.payload.utf8)) }
        #expect(payloads.map(\.score.scoreGiven) == [60, 90, 70, 10])
        #expect(zip(jobs, payloads).allSatisfy { $0.key == ScoreJob.key($1) }, "the key a new score would have")
        #expect(jobs.map(\.userId) == [studentID, studentID, nil, studentID])
        #expect(jobs.map(\.courseId) == [courseID, courseID, courseID, courseID])
        #expect(jobs[2].attempts == 3 && jobs[2].lastError == "down", "its history comes along")
        let rest = try await Outbox(database: database, logger: .init(label: "test")).list()
        #expect(rest.map(\.channel) == ["email"], "the outbox keeps messages only")

        // The scores waiting are due, and a newer score of s-1 takes the waiting one's place.
        try await queue.enqueue([try NewJob(ScoreJob.self, score("s-1", 95), courseID: courseID, userID: studentID)])
        var claimed: [Double?] = []
        while let job = try await queue.claim(kinds: [ScoreJob.name], lease: 60) {
            let payload = try JSONDecoder().decode(ScoreJob.Payload.self, from: Data(job.payload.utf8))
            claimed.append(payload.score.scoreGiven)
            try await queue.markDone(id: job.id)
        }
        #expect(claimed.sorted { ($0 ?? 0) < ($1 ?? 0) } == [70, 95], "\(claimed)")
    }

    static func score(_ subject: String, _ grade: Double) -> ScoreJob.Payload {
        ScoreJob.Payload(
            platformId: 1, lineItem: lineItem,
            score: LTI.score(userID: subject, grade: grade, explanation: "", at: Date()), offered: [LTI.Scope.scores])
    }

    static func scoreJSON(_ subject: String, _ grade: Double) throws -> String {
        let payload = score(subject, grade)
        return String(decoding: try JSONEncoder().encode(payload), as: UTF8.self)
    }

    /// A course linked to a platform's course with a line item, and its student s-1.
    static func linkedCourse(_ database: Database) async throws -> (course: Int64, student: Int64) {
        let users = UserStore(database: database)
        let teacher = try await users.create(
            NewUser(name: "Tess", email: "tess@school.test", passwordHash: "x", role: .teacher, approved: true))
        let student = try await users.create(
            NewUser(name: "Sam", email: "sam@school.test", passwordHash: "x", role: .student, approved: true))
        let course = try await CourseStore(database: database).create(
            teacherID: teacher.id, name: "Biology", description: "", plannedSessions: nil)
        try await database.write { sql in
            try await sql.raw(
                """
                INSERT INTO lti_platforms (id, name, issuer, client_id, deployment_ids, authorization_url, token_url,
                    jwks_url, created_at)
                VALUES (1, 'Hill', 'https://lms.test', 'c', 'd', 'https://lms.test/a', 'https://lms.test/t',
                    'https://lms.test/k', \(bind: Date()))
                """
            ).run()
            try await sql.raw(
                """
                INSERT INTO lti_identities (platform_id, subject, user_id, created_at)
                VALUES (1, 's-1', \(bind: student.id), \(bind: Date()))
                """
            ).run()
            try await sql.raw(
                """
                INSERT INTO lti_courses (platform_id, context_id, course_id, deployment_id, title, line_item_url,
                    created_at)
                VALUES (1, 'ctx', \(bind: course.id), 'd', 'Biology', \(bind: lineItem), \(bind: Date()))
                """
            ).run()
        }
        return (course.id, student.id)
    }

    /// A row of the outbox as the Rollcall before jobs wrote it.
    static func outbox(
        _ database: Database, _ channel: String, _ recipient: String, _ subject: String, _ body: String,
        status: String, attempts: Int, at moment: Date
    ) async throws {
        try await database.write { sql in
            try await sql.raw(
                """
                INSERT INTO outbox (channel, recipient, subject, body, status, attempts, last_error, next_attempt_at,
                    claimed_until, created_at)
                VALUES (\(bind: channel), \(bind: recipient), \(bind: subject), \(bind: body), \(bind: status),
                    \(bind: attempts), \(bind: attempts > 0 ? "down" : nil), \(bind: status == "queued" ? moment : nil),
                    \(bind: status == "sending" ? moment : nil), \(bind: moment))
                """
            ).run()
        }
    }
}
