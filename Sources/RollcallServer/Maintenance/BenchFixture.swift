import Foundation
import HummingbirdBcrypt
import RollcallCore

/// A classroom made for measuring: a teacher, open sessions (one per measured round, since a student checks in once
/// per session), and signed-in students with their bearer tokens.
public struct BenchFixture: Sendable {
    public var teacherToken: String
    public var sessionIDs: [Int64]
    public var studentTokens: [String]
    /// The course's join code, for students who register during the run.
    public var joinCode: String

    /// Writes the classroom straight into the database, so that setting up a thousand accounts does not cost a
    /// thousand bcrypt hashes; the check-ins themselves then go through HTTP like any phone's.
    public static func make(_ configuration: Configuration, students: Int, sessions: Int) async throws -> BenchFixture {
        let hash = Bcrypt.hash("bench-password", cost: 4)
        // Addresses of their own in each run, so that runs against one PostgreSQL database do not collide.
        let run = UUID().uuidString.prefix(8).lowercased()
        return try await Maintenance.withDatabase(configuration) { database in
            let users = UserStore(database: database)
            let courses = CourseStore(database: database)
            let classSessions = SessionStore(database: database)
            let accessTokens = AccessTokenStore(database: database)
            let teacher = try await users.create(
                NewUser(
                    name: "Bench Teacher", email: "teacher.\(run)@bench.rollcall.test", passwordHash: hash,
                    role: .teacher,
                    studentNumber: nil, approved: true, emailVerified: true
                )
            )
            let course = try await courses.create(
                teacherID: teacher.id, name: "Benchmark Hall", description: "", plannedSessions: nil
            )
            var tokens: [String] = []
            for number in 0..<students {
                let student = try await users.create(
                    NewUser(
                        name: "Student \(number)", email: "student\(number).\(run)@bench.rollcall.test",
                        passwordHash: hash,
                        role: .student, studentNumber: nil, approved: true, emailVerified: true
                    )
                )
                try await courses.enroll(courseID: course.id, studentID: student.id)
                tokens.append(try await accessTokens.issue(userID: student.id, kind: .api).token)
            }
            // A long period keeps one projected code valid for the whole run, as a room scanning at once would see.
            var settings = SessionSettings.standard
            settings.period = 60
            var sessionIDs: [Int64] = []
            for round in 1...sessions {
                sessionIDs.append(
                    try await classSessions.create(
                        courseID: course.id, title: "Benchmark \(round)", settings: settings, scheduledAt: nil,
                        openNow: true
                    ).id
                )
            }
            return BenchFixture(
                teacherToken: try await accessTokens.issue(userID: teacher.id, kind: .api).token,
                sessionIDs: sessionIDs, studentTokens: tokens, joinCode: course.joinCode
            )
        }
    }
}
