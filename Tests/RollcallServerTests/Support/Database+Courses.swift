import Foundation
import Logging
import RollcallModel
import RollcallStorage
import ServerTestSupport

@testable import RollcallServer

extension Database {
    /// A teacher's new course with a session open now, written straight through the stores.
    func openSessionOfNewCourse() async throws -> ClassSession {
        let teacher = try await UserStore(database: self).create(
            NewUser(
                name: "Tess", email: "tess@school.test", passwordHash: "x", role: .teacher, studentNumber: nil,
                approved: true)
        )
        let course = try await CourseStore(database: self).create(
            teacherID: teacher.id, name: "Biology", description: "", plannedSessions: nil)
        return try await SessionStore(database: self).create(
            courseID: course.id, title: "Monday", settings: .standard, scheduledAt: nil, openNow: true)
    }
}

/// A migrated database of `engine` for `body`: a fresh SQLite file, or a PostgreSQL server of its own, removed after.
func withMigratedDatabase(_ engine: Database.Engine, _ body: (Database) async throws -> Void) async throws {
    let postgres = engine == .postgres ? try PostgresServer.start() : nil
    defer { postgres?.stop() }
    let path = FileManager.default.temporaryDirectory.appendingPathComponent("rollcall-\(UUID()).sqlite").path
    defer { try? FileManager.default.removeItem(atPath: path) }
    let database =
        try postgres.map { try Database.postgres(url: $0.url, logger: Logger(label: "test")) }
        ?? Database.sqlite(path: path, logger: Logger(label: "test"))
    try await database.closing { database in
        try await Migrations.apply(to: database)
        try await body(database)
    }
}
