import Foundation
import HummingbirdBcrypt
import RollcallCore
import RollcallModel
import RollcallParts
import RollcallStorage
import SQLKit

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
        return try await Maintenance.withStores(configuration) { stores in
            let users = stores.users
            let courses = stores.courses
            let classSessions = stores.sessions
            let accessTokens = stores.tokens
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
                try await courses.roster.enroll(courseID: course.id, studentID: student.id)
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

/// A quiz running in the fixture's first session, every student checked in with an attempt started, for
/// `rollcall bench --quiz`.
public struct QuizBenchFixture: Sendable {
    public var room: BenchFixture
    public var runID: Int64
    /// Each student's attempt, in the order of `room.studentTokens`.
    public var attemptIDs: [Int64]
    /// The short-text question every save answers.
    public static let questionID = "q1"

    public static func make(_ configuration: Configuration, students: Int) async throws -> QuizBenchFixture {
        let room = try await BenchFixture.make(configuration, students: students, sessions: 1)
        return try await Maintenance.withStores(configuration) { stores in
            let quizzes = stores.quizzes
            let sessions = stores.sessions
            guard let session = try await sessions.find(id: room.sessionIDs[0]) else {
                throw NotStored(.sessionNotFound, what: "session")
            }
            let definition = QuizDefinition(
                title: "Benchmark quiz",
                questions: [
                    QuizQuestion(id: questionID, kind: .shortText, prompt: "Explain, and keep editing.", points: 1),
                    QuizQuestion(
                        id: "q2", kind: .singleChoice, prompt: "Pick one.", points: 1, options: ["A", "B"],
                        correct: [0]),
                ],
                timeLimitSeconds: 4 * 3600)
            let quiz = try await quizzes.create(courseID: session.courseId, definition: definition)
            guard let course = try await stores.courses.find(id: session.courseId) else {
                throw NotStored(.courseNotFound, what: "course")
            }
            let run = try await quizzes.runs.start(quiz, sessionID: session.id, by: course.teacherId)
            let now = Date()
            try await stores.database.transaction { sql in
                try await sql.raw(
                    """
                    INSERT INTO attendance (session_id, student_id, status, recorded_at, source)
                    SELECT \(bind: session.id), student_id, 'present', \(bind: now), 'teacher' FROM enrollments
                    WHERE course_id = \(bind: session.courseId)
                    """
                ).run()
            }
            let students = try await stores.database.read { sql in
                try await sql.select().column("student_id").from("enrollments")
                    .where("course_id", .equal, session.courseId).orderBy("student_id")
                    .all(decodingColumn: "student_id", as: Int64.self)
            }
            var attempts: [Int64] = []
            for student in students {
                attempts.append(
                    try await quizzes.attempts.start(run, studentID: student, deviceID: "bench-\(student)").attempt.id)
            }
            return QuizBenchFixture(room: room, runID: run.id, attemptIDs: attempts)
        }
    }
}

/// A campus morning for `rollcall-bench --campus`: rooms of a course each, every room's session open with its code
/// rotating as in class, most students already holding an account and a token, and some rooms with a quiz running.
public struct CampusFixture: Sendable {
    /// One lecture room.
    public struct Room: Sendable {
        public var teacherToken: String
        public var sessionID: Int64
        public var joinCode: String
        /// The room's students who already have an account; the others register on the way in.
        public var studentTokens: [String]
        /// The quiz running in the room, if any: students start an attempt once checked in.
        public var quizRunID: Int64?
    }

    public var rooms: [Room]
    /// The question every quiz save answers.
    public static let questionID = "q1"

    /// Writes the rooms straight into the database, as `BenchFixture` does, each student with a token of their own.
    public static func make(
        _ configuration: Configuration, rooms count: Int, enrolled: Int, quizRooms: Int
    ) async throws -> CampusFixture {
        let hash = Bcrypt.hash("bench-password", cost: 4)
        let run = UUID().uuidString.prefix(8).lowercased()
        return try await Maintenance.withStores(configuration) { stores in
            var rooms: [Room] = []
            for number in 0..<count {
                let teacher = try await stores.users.create(
                    NewUser(
                        name: "Teacher \(number)", email: "teacher\(number).\(run)@campus.rollcall.test",
                        passwordHash: hash, role: .teacher, studentNumber: nil, approved: true, emailVerified: true))
                let course = try await stores.courses.create(
                    teacherID: teacher.id, name: "Lecture \(number)", description: "", plannedSessions: nil)
                var tokens: [String] = []
                for seat in 0..<enrolled {
                    let student = try await stores.users.create(
                        NewUser(
                            name: "Student \(number)-\(seat)", email: "s\(number)-\(seat).\(run)@campus.rollcall.test",
                            passwordHash: hash, role: .student, studentNumber: nil, approved: true,
                            emailVerified: true))
                    try await stores.courses.roster.enroll(courseID: course.id, studentID: student.id)
                    tokens.append(try await stores.tokens.issue(userID: student.id, kind: .api).token)
                }
                let session = try await stores.sessions.create(
                    courseID: course.id, title: "Morning lecture", settings: .standard, scheduledAt: nil, openNow: true)
                var runID: Int64?
                if number < quizRooms {
                    let quiz = try await stores.quizzes.create(
                        courseID: course.id,
                        definition: QuizDefinition(
                            title: "Morning quiz",
                            questions: [
                                QuizQuestion(id: questionID, kind: .shortText, prompt: "Explain.", points: 1)
                            ],
                            timeLimitSeconds: 4 * 3600))
                    runID = try await stores.quizzes.runs.start(quiz, sessionID: session.id, by: teacher.id).id
                }
                rooms.append(
                    Room(
                        teacherToken: try await stores.tokens.issue(userID: teacher.id, kind: .api).token,
                        sessionID: session.id, joinCode: course.joinCode, studentTokens: tokens, quizRunID: runID))
            }
            return CampusFixture(rooms: rooms)
        }
    }
}
