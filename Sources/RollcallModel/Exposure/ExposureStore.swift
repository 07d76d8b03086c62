import Foundation
import RollcallCore
import RollcallStorage
import SQLKit

/// One run of an exposure report, as its audit entry keeps it: who asked, about whom, why, when, and the window.
package struct ExposureAuditEntry: Codable, Sendable, Equatable {
    package var id: Int64
    package var requestedBy: Int64
    package var requestedByName: String
    package var personId: Int64
    package var personName: String
    package var reason: String
    package var windowFrom: Date
    package var windowUntil: Date
    package var createdAt: Date
}

/// A session the person attended, with what the report shows of it: course, title, time and room, never coordinates.
package struct ExposureSessionFacts: Sendable, Equatable {
    package var session: Exposure.Session
    package var courseName: String
    package var title: String
    package var room: String?
}

/// The attendance an exposure report is made from, and the audit of every report.
package struct ExposureStore: Sendable {
    package let database: Database

    package init(database: Database) {
        self.database = database
    }

    /// The statuses and sources that say a person was in the room: check-ins, and a teacher's present or late mark.
    package static let statuses = [AttendanceStatus.present, .late].map(\.rawValue)
    package static let sources = RecordSource.allCases.filter { $0.isCheckIn || $0 == .manual }.map(\.rawValue)

    private struct SessionRow: Decodable {
        package var id: Int64
        package var title: String
        package var settings: String
        package var openedAt: Date
        package var closesAt: Date?
        package var closedAt: Date?
        package var courseName: String
    }

    private struct PresenceRow: Decodable {
        package var sessionId: Int64
        package var studentId: Int64
        package var recordedAt: Date
        package var source: String
        package var name: String
    }

    /// The sessions that opened within the window in which `personID` was recorded in the room, each with everyone
    /// recorded in it, oldest first. A session still open ends at `now` for the count.
    package func sessions(of personID: Int64, from: Date, until: Date, now: Date) async throws -> [ExposureSessionFacts]
    {
        try await database.read { sql in
            let sessions = try await sql.select()
                .column(SQLColumn("id", table: "sessions")).column(SQLColumn("title", table: "sessions"))
                .column(SQLColumn("settings", table: "sessions")).column(SQLColumn("opened_at", table: "sessions"))
                .column(SQLColumn("closes_at", table: "sessions")).column(SQLColumn("closed_at", table: "sessions"))
                .column(SQLColumn("name", table: "courses"), as: "course_name")
                .from("attendance")
                .join(
                    "sessions", on: SQLColumn("id", table: "sessions"), .equal,
                    SQLColumn("session_id", table: "attendance")
                )
                .join(
                    "courses", on: SQLColumn("id", table: "courses"), .equal, SQLColumn("course_id", table: "sessions")
                )
                .where(SQLColumn("student_id", table: "attendance"), .equal, SQLBind(personID))
                .where(SQLColumn("status", table: "attendance"), .in, SQLBind.group(Self.statuses))
                .where(SQLColumn("source", table: "attendance"), .in, SQLBind.group(Self.sources))
                .where(SQLColumn("opened_at", table: "sessions"), .greaterThanOrEqual, SQLBind(from))
                .where(SQLColumn("opened_at", table: "sessions"), .lessThanOrEqual, SQLBind(until))
                .all(decoding: SessionRow.self, with: .rollcall)
            guard !sessions.isEmpty else { return [] }
            let rows = try await sql.select()
                .column(SQLColumn("session_id", table: "attendance")).column(
                    SQLColumn("student_id", table: "attendance")
                )
                .column(SQLColumn("recorded_at", table: "attendance")).column(SQLColumn("source", table: "attendance"))
                .column(SQLColumn("name", table: "users"))
                .from("attendance")
                .join(
                    "users", on: SQLColumn("id", table: "users"), .equal, SQLColumn("student_id", table: "attendance")
                )
                .where(SQLColumn("session_id", table: "attendance"), .in, SQLBind.group(sessions.map(\.id)))
                .where(SQLColumn("status", table: "attendance"), .in, SQLBind.group(Self.statuses))
                .where(SQLColumn("source", table: "attendance"), .in, SQLBind.group(Self.sources))
                .all(decoding: PresenceRow.self, with: .rollcall)
            let present = Dictionary(grouping: rows, by: \.sessionId)
            return try sessions.map { row in
                let settings = try JSONDecoder().decode(SessionSettings.self, from: Data(row.settings.utf8))
                let ended = [row.closedAt, row.closesAt, now].compactMap { $0 }.min() ?? now
                let people = (present[row.id] ?? []).map { presence in
                    Exposure.Presence(
                        personID: presence.studentId, name: presence.name,
                        checkedInAt: RecordSource(rawValue: presence.source)?.isCheckIn == true
                            ? presence.recordedAt : nil)
                }
                return ExposureSessionFacts(
                    session: Exposure.Session(id: row.id, openedAt: row.openedAt, endedAt: ended, present: people),
                    courseName: row.courseName, title: row.title, room: settings.room)
            }
        }
    }

    /// Writes the audit entry of a report about to be shown.
    package func audit(
        requestedBy: Int64, personID: Int64, reason: String, window: ExposureWindow, now: Date
    ) async throws -> ExposureAuditEntry {
        try await database.transaction { sql in
            let id = try await sql.insert(into: "exposure_reports")
                .columns("requested_by", "person_id", "reason", "window_from", "window_until", "created_at")
                .values(
                    SQLBind(requestedBy), SQLBind(personID), SQLBind(reason), SQLBind(window.from),
                    SQLBind(window.until), SQLBind(now)
                )
                .returning("id").first(decodingColumn: "id", as: Int64.self)
            guard let id,
                let entry = try await Self.entries(sql).where(
                    SQLColumn("id", table: "exposure_reports"), .equal, SQLBind(id)
                )
                .first(decoding: ExposureAuditEntry.self, with: .rollcall)
            else { throw NotSaved(what: "exposure report") }
            return entry
        }
    }

    package func find(id: Int64) async throws -> ExposureAuditEntry? {
        try await database.read { sql in
            try await Self.entries(sql).where(SQLColumn("id", table: "exposure_reports"), .equal, SQLBind(id))
                .first(decoding: ExposureAuditEntry.self, with: .rollcall)
        }
    }

    /// Every report, newest first, or those about one person.
    package func list(about personID: Int64? = nil, by requesterID: Int64? = nil, limit: Int = 200) async throws
        -> [ExposureAuditEntry]
    {
        try await database.read { sql in
            var select = Self.entries(sql)
            if let personID {
                select = select.where(SQLColumn("person_id", table: "exposure_reports"), .equal, SQLBind(personID))
            }
            if let requesterID {
                select = select.where(
                    SQLColumn("requested_by", table: "exposure_reports"), .equal, SQLBind(requesterID))
            }
            return try await select.orderBy(
                SQLOrderBy(expression: SQLColumn("id", table: "exposure_reports"), direction: SQLDirection.descending)
            ).limit(limit).all(decoding: ExposureAuditEntry.self, with: .rollcall)
        }
    }

    private static func entries(_ sql: any SQLDatabase) -> SQLSelectBuilder {
        sql.select().column(SQLColumn("*", table: "exposure_reports"))
            .column(SQLColumn("name", table: "officers"), as: "requested_by_name")
            .column(SQLColumn("name", table: "people"), as: "person_name")
            .from("exposure_reports")
            .join(
                SQLAlias(SQLIdentifier("users"), as: SQLIdentifier("officers")),
                on: SQLRaw("officers.id = exposure_reports.requested_by")
            )
            .join(
                SQLAlias(SQLIdentifier("users"), as: SQLIdentifier("people")),
                on: SQLRaw("people.id = exposure_reports.person_id"))
    }
}
