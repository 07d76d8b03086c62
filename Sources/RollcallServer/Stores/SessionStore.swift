import Foundation
import RollcallCore
import SQLKit

/// One class meeting of a course, with its check-in settings and the secret its rotating codes come from.
struct ClassSession: Sendable, Equatable {
    var id: Int64
    var courseId: Int64
    /// Read with the session, because every page and answer about a session names its course.
    var courseName: String
    var title: String
    var scheduledAt: Date?
    var openedAt: Date?
    var closesAt: Date?
    var closedAt: Date?
    var settings: SessionSettings
    var secret: [UInt8]
    var createdAt: Date

    func phase(at now: Date) -> SessionPhase {
        SessionPhase.at(now, openedAt: openedAt, closesAt: closesAt, closedAt: closedAt)
    }
}

/// Counts of a session's attendance records by status.
typealias AttendanceCounts = [AttendanceStatus: Int]

/// Sessions and their attendance records.
struct SessionStore: Sendable {
    let database: Database

    private struct Row: Decodable {
        var id: Int64
        var courseId: Int64
        var courseName: String
        var title: String
        var scheduledAt: Date?
        var openedAt: Date?
        var closesAt: Date?
        var closedAt: Date?
        var settings: String
        var secret: Data
        var createdAt: Date

        func session() throws -> ClassSession {
            ClassSession(
                id: id, courseId: courseId, courseName: courseName, title: title, scheduledAt: scheduledAt,
                openedAt: openedAt,
                closesAt: closesAt, closedAt: closedAt,
                settings: try JSONDecoder().decode(SessionSettings.self, from: Data(settings.utf8)),
                secret: Array(secret), createdAt: createdAt
            )
        }
    }

    /// Creates a session, open at once when `openNow`, else scheduled for `scheduledAt`.
    func create(
        courseID: Int64, title: String, settings: SessionSettings, scheduledAt: Date?, openNow: Bool, now: Date = Date()
    ) async throws -> ClassSession {
        var generator = SystemRandomNumberGenerator()
        let secret = RotatingCode.makeSecret(using: &generator)
        let settingsJSON = String(decoding: try JSONEncoder().encode(settings), as: UTF8.self)
        return try await database.write { sql in
            let row = try await sql.insert(into: "sessions")
                .columns(
                    "course_id", "title", "scheduled_at", "opened_at", "closes_at", "settings", "secret", "created_at"
                )
                .values(
                    SQLBind(courseID), SQLBind(title), SQLBind(scheduledAt ?? (openNow ? now : nil)),
                    SQLBind(openNow ? now : nil),
                    SQLBind(openNow ? now.addingTimeInterval(Double(settings.openMinutes) * 60) : nil),
                    SQLBind(settingsJSON), SQLBind(Data(secret)), SQLBind(now)
                )
                .returning("id").first(decodingColumn: "id", as: Int64.self)
            guard let row, let session = try await Self.find(id: row, sql: sql) else {
                throw AppError(.internalServerError, "internal_error", "The session was not saved.")
            }
            return session
        }
    }

    func find(id: Int64) async throws -> ClassSession? {
        try await database.read { sql in
            try await Self.select(sql).where(SQLColumn("id", table: "sessions"), .equal, SQLBind(id))
                .first(decoding: Row.self, with: UserStore.decoder)?.session()
        }
    }

    /// A course's sessions, newest first.
    func list(courseID: Int64) async throws -> [ClassSession] {
        try await database.read { sql in
            try await Self.select(sql).where(SQLColumn("course_id", table: "sessions"), .equal, SQLBind(courseID))
                .orderBy(
                    SQLOrderBy(
                        expression: SQLRaw("COALESCE(sessions.opened_at, sessions.scheduled_at, sessions.created_at)"),
                        direction: SQLDirection.descending)
                )
                .all(decoding: Row.self, with: UserStore.decoder).map { try $0.session() }
        }
    }

    /// Opens a scheduled session now; its open time starts counting.
    func open(id: Int64, now: Date = Date()) async throws -> ClassSession {
        let opened = try await database.transaction { sql in
            guard let session = try await Self.find(id: id, sql: sql) else { throw AppError.notFound("session") }
            switch session.phase(at: now) {
            case .open: throw AppError.conflict("session_already_open", "This session is already open.")
            case .closed:
                throw AppError.conflict("session_closed", "This session has closed; create a new session instead.")
            case .scheduled: break
            }
            let closesAt = now.addingTimeInterval(Double(session.settings.openMinutes) * 60)
            try await sql.update("sessions").set("opened_at", to: now).set("closes_at", to: closesAt)
                .where("id", .equal, id).run()
            try await SessionEvents.append(.phaseChanged(.init(phase: .open)), sessionID: id, in: sql)
            return try await Self.find(id: id, sql: sql)!
        }
        database.live.published(sessionID: id)
        return opened
    }

    /// Closes a session; from then on nobody can check in.
    func close(id: Int64, now: Date = Date()) async throws -> ClassSession {
        let closed = try await database.transaction { sql in
            guard let session = try await Self.find(id: id, sql: sql) else { throw AppError.notFound("session") }
            if session.phase(at: now) == .closed {
                throw AppError.conflict("session_closed", "This session is already closed.")
            }
            try await sql.update("sessions").set("closed_at", to: now).where("id", .equal, id).run()
            try await SessionEvents.append(.phaseChanged(.init(phase: .closed)), sessionID: id, in: sql)
            return try await Self.find(id: id, sql: sql)!
        }
        database.live.published(sessionID: id)
        return closed
    }

    /// Sessions with their course's name.
    private static func select(_ sql: any SQLDatabase) -> SQLSelectBuilder {
        sql.select().column(SQLColumn("*", table: "sessions")).column(
            SQLColumn("name", table: "courses"), as: "course_name"
        )
        .from("sessions").join("courses", on: "courses.id = sessions.course_id")
    }

    private static func find(id: Int64, sql: any SQLDatabase) async throws -> ClassSession? {
        try await Self.select(sql).where(SQLColumn("id", table: "sessions"), .equal, SQLBind(id))
            .first(decoding: Row.self, with: UserStore.decoder)?.session()
    }

    /// How many records of each status every session of a course has.
    func attendanceCounts(courseID: Int64) async throws -> [Int64: AttendanceCounts] {
        try await database.read { sql in
            let rows = try await sql.select().column(SQLColumn("session_id", table: "attendance"))
                .column(SQLColumn("status", table: "attendance")).column(
                    SQLFunction("COUNT", args: SQLLiteral.all), as: "n"
                )
                .from("attendance").join("sessions", on: "sessions.id = attendance.session_id")
                .where(SQLColumn("course_id", table: "sessions"), .equal, SQLBind(courseID))
                .groupBy(SQLColumn("session_id", table: "attendance")).groupBy(SQLColumn("status", table: "attendance"))
                .all()
            var counts: [Int64: AttendanceCounts] = [:]
            for row in rows {
                guard let status = AttendanceStatus(rawValue: try row.decode(column: "status", as: String.self)) else {
                    continue
                }
                counts[try row.decode(column: "session_id", as: Int64.self), default: [:]][status] =
                    try row.decode(column: "n", as: Int.self)
            }
            return counts
        }
    }

    /// Writes one student's record for a session, replacing an earlier one; used by the demo and manual marking.
    func record(sessionID: Int64, studentID: Int64, status: AttendanceStatus, at: Date, source: String) async throws {
        try await database.transaction { sql in
            try await sql.delete(from: "attendance").where("session_id", .equal, sessionID)
                .where("student_id", .equal, studentID).run()
            try await sql.insert(into: "attendance")
                .columns("session_id", "student_id", "status", "recorded_at", "source")
                .values(SQLBind(sessionID), SQLBind(studentID), SQLBind(status.rawValue), SQLBind(at), SQLBind(source))
                .run()
        }
    }
}
