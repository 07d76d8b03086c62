import Foundation
import HummingbirdBcrypt
import RollcallCore
import RollcallModel
import RollcallParts
import SQLKit

/// A demo institution to try Rollcall at once: an admin, two teachers, two courses of 30 students, past sessions.
public enum Demo {
    public static let password = "rollcall-demo"
    public static let adminEmail = "admin@demo.rollcall.test"

    static let teachers = [("Ada Lovelace", "ada@demo.rollcall.test"), ("Alan Turing", "alan@demo.rollcall.test")]
    static let courses = [
        ("Biology 101", "Cells, genes and evolution. Tuesdays and Thursdays, room B12."),
        ("Computing Foundations", "Algorithms and data from first principles. Mondays, lecture hall 2."),
    ]
    static let firstNames = [
        "Amara", "Ben", "Chiara", "Dmitri", "Elif", "Farid", "Grace", "Hana", "Ivan", "Jonas", "Keiko", "Liam",
        "Maya", "Nia", "Oscar", "Priya", "Quinn", "Rosa", "Sami", "Tariq", "Uma", "Victor", "Wen", "Ximena",
        "Yusuf", "Zoe", "Aiko", "Bruno", "Carmen", "Diego",
    ]
    static let lastNames = [
        "Okafor", "Schmidt", "Rossi", "Ivanov", "Yilmaz", "Haddad", "Kim", "Sato", "Novak", "Berg", "Tanaka",
        "Murphy", "Cohen", "Mensah", "Larsen", "Patel", "Walsh", "García", "Nieminen", "Aziz", "Rao", "Dubois",
        "Chen", "López", "Demir", "Martin", "Mori", "Costa", "Ruiz", "Silva",
    ]

    /// Fills the demo data once (running it again changes nothing) and returns the logins to print.
    public static func fill(_ configuration: Configuration) async throws -> String {
        let hash = Bcrypt.hash(password, cost: 10)
        try await Maintenance.withStores(configuration) { stores in
            let users = stores.users
            let courses = stores.courses
            guard try await users.find(email: adminEmail) == nil else { return }
            _ = try await users.create(
                NewUser(
                    name: "Demo Admin", email: adminEmail, passwordHash: hash, role: .admin, studentNumber: nil,
                    approved: true, emailVerified: true
                )
            )
            var random = SeededRandom(seed: 2026)
            for (index, (teacherName, teacherEmail)) in teachers.enumerated() {
                let teacher = try await users.create(
                    NewUser(
                        name: teacherName, email: teacherEmail, passwordHash: hash, role: .teacher, studentNumber: nil,
                        approved: true, emailVerified: true
                    )
                )
                let (courseName, description) = Self.courses[index]
                let course = try await courses.create(
                    teacherID: teacher.id, name: courseName, description: description, plannedSessions: 24
                )
                let students = try await enrolStudents(in: course, index: index, hash: hash, stores: stores)
                try await pastSessions(of: course, for: students, random: &random, stores: stores)
            }
        }
        return """
            Demo data is ready. Every demo account's password is “\(password)”.
              admin:    \(adminEmail)
              teachers: \(teachers.map(\.1).joined(separator: ", "))
              students: amara.okafor1@demo.rollcall.test … (30 per course; see the roster)
            """
    }

    /// Thirty students with names from the lists, on the course's roster.
    private static func enrolStudents(in course: Course, index: Int, hash: String, stores: Stores) async throws
        -> [User]
    {
        let users = stores.users
        let courses = stores.courses
        var students: [User] = []
        for number in 0..<30 {
            let first = firstNames[number]
            let last = lastNames[(number + index * 7) % lastNames.count]
            let slug = "\(first).\(last)".lowercased().folding(options: .diacriticInsensitive, locale: nil)
            let student = try await users.create(
                NewUser(
                    name: "\(first) \(last)", email: "\(slug)\(index + 1)@demo.rollcall.test", passwordHash: hash,
                    role: .student, studentNumber: "S\(index + 1)\(String(format: "%04d", number + 1))",
                    approved: true, emailVerified: true
                )
            )
            try await courses.roster.enroll(courseID: course.id, studentID: student.id)
            students.append(student)
        }
        return students
    }

    /// Four weekly sessions in the past, with a plausible record for every student.
    private static func pastSessions(
        of course: Course, for students: [User], random: inout SeededRandom, stores: Stores
    ) async throws {
        let sessions = stores.sessions
        for week in (1...4).reversed() {
            let opened = Date().addingTimeInterval(-Double(week) * 7 * 24 * 3600)
            let session = try await sessions.create(
                courseID: course.id, title: "Week \(5 - week)", settings: .standard, scheduledAt: nil,
                openNow: true, now: opened
            )
            for student in students {
                let roll = Int.random(in: 0..<100, using: &random)
                let status: AttendanceStatus = roll < 78 ? .present : roll < 88 ? .late : roll < 93 ? .excused : .absent
                let offset = status == .late ? 660.0 : Double.random(in: 20...300, using: &random)
                let record = AttendanceRecord(
                    sessionId: session.id, studentId: student.id, status: status,
                    recordedAt: opened.addingTimeInterval(offset),
                    source: status == .excused || status == .absent ? .manual : .demo
                )
                try await stores.database.transaction { sql in try await AttendanceLedger.replace(with: record, in: sql)
                }
            }
        }
    }
}
