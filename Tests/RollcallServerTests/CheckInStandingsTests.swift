import Foundation
import Logging
import RollcallModel
import RollcallStorage
import SQLKit
import ServerTestSupport
import Testing

@testable import RollcallServer

/// Check-ins' standings read in groups: whatever a crowd asks at once, each gets what it would have been told alone.
@Suite("Check-in standings", .timeLimit(.minutes(3)))
struct CheckInStandingsTests {
    @Test(arguments: [Database.Engine.sqlite, .postgres])
    func a_crowd_asking_at_once_is_told_what_each_would_be_told_alone(engine: Database.Engine) async throws {
        try await withMigratedDatabase(engine) { database in
            let asks = try await Self.classroomOfDifferences(database)
            let store = CheckInStore(database: database)
            func standing(_ ask: Ask) async throws -> String {
                let found = try await store.standing(
                    sessionID: ask.session, studentID: ask.student, deviceID: ask.device, ticketHash: ask.ticket)
                return found.map { String(describing: $0) } ?? "no session"
            }
            var alone: [String] = []
            for ask in asks { alone.append(try await standing(ask)) }

            // The call under test: everyone at once, in another order, some twice.
            let together = try await withThrowingTaskGroup(of: (Int, String).self) { group in
                for index in (Array(asks.indices) + asks.indices.prefix(9)).shuffled() {
                    group.addTask { (index, try await standing(asks[index])) }
                }
                return try await group.reduce(into: [(Int, String)]()) { $0.append($1) }
            }

            #expect(together.count == asks.count + 9)
            for (index, answer) in together { #expect(answer == alone[index], "\(asks[index])") }
            // The setup differs where it should: otherwise the comparison proves little.
            #expect(Set(alone).count > 10, "\(Set(alone).count) different standings")
            #expect(alone.last == "no session")
        }
    }

    struct Ask: Sendable {
        var session: Int64
        var student: Int64
        var device: String?
        var ticket: String?
    }

    /// 40 students in a session and another course's session: enrolled or not, checked in or not, on a phone or with
    /// a ticket another student used or not; and a session that does not exist.
    static func classroomOfDifferences(_ database: Database) async throws -> [Ask] {
        let session = try await database.openSessionOfNewCourse()
        let other = try await SessionStore(database: database).create(
            courseID: try await CourseStore(database: database).create(
                teacherID: 1, name: "Chemistry", description: "", plannedSessions: nil
            ).id,
            title: "Tuesday", settings: .standard, scheduledAt: nil, openNow: true)
        let users = UserStore(database: database)
        var students: [Int64] = []
        for number in 0..<41 {
            students.append(
                try await users.create(
                    NewUser(
                        name: "Student \(number)", email: "s\(number)@school.test", passwordHash: "-", role: .student,
                        approved: true)
                ).id)
        }
        let now = Date()
        try await database.write { [students] sql in
            for (index, student) in students.enumerated().dropLast() {
                let (next, at) = (students[index + 1], SQLBind(now))
                if index % 2 == 0 {
                    try await sql.insert(into: "enrollments").columns("course_id", "student_id", "joined_at")
                        .values(SQLBind(session.courseId), SQLBind(student), at).run()
                }
                if index % 3 == 0 {
                    try await sql.insert(into: "attendance")
                        .columns("session_id", "student_id", "status", "recorded_at", "source")
                        .values(SQLBind(session.id), SQLBind(student), SQLBind("present"), at, SQLBind("qr")).run()
                }
                if index % 5 == 0 {
                    try await sql.insert(into: "device_bindings")
                        .columns("session_id", "device_id", "student_id", "created_at")
                        .values(SQLBind(session.id), SQLBind("phone-\(index)"), SQLBind(next), at).run()
                }
                if index % 7 == 0 {
                    try await sql.insert(into: "check_in_evidence")
                        .columns("session_id", "student_id", "via", "created_at", "ticket_hash")
                        .values(SQLBind(other.id), SQLBind(next), SQLBind("qr"), at, SQLBind("ticket-\(index)")).run()
                }
            }
        }
        var asks = students.dropLast().enumerated().map { index, student in
            Ask(session: session.id, student: student, device: "phone-\(index)", ticket: "ticket-\(index)")
        }
        asks += students.prefix(5).map { Ask(session: other.id, student: $0, device: nil, ticket: nil) }
        asks.append(Ask(session: other.id + 1000, student: students[0], device: nil, ticket: nil))
        return asks
    }
}
