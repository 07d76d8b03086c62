import Foundation
import RollcallCore
import RollcallModel
import RollcallStorage
import RollcallWords
import SQLKit

/// What a teacher may change of a session after creating it; a field left `nil` stays as it is.
struct SessionEdit: Sendable {
    var title: String?
    var scheduledAt: Date?
    var settings: SessionSettings?
}

/// A change to a course that is not one student's status: kept so that a teacher can see who did what.
struct CourseAuditEntry: Codable, Sendable, Equatable {
    var id: Int64
    var courseId: Int64
    var action: String
    /// What went, said in the reader's language (`said(to:)`): `detail` in JSON.
    var words: Phrase
    /// Absent once the account that did it is deleted; the name stays.
    var actorId: Int64?
    var actorName: String
    var at: Date

    private enum CodingKeys: String, CodingKey {
        case id, courseId, action, detail, actorId, actorName, at
    }

    init(from decoder: any Decoder) throws {
        let row = try decoder.container(keyedBy: CodingKeys.self)
        id = try row.decode(Int64.self, forKey: .id)
        courseId = try row.decode(Int64.self, forKey: .courseId)
        action = try row.decode(String.self, forKey: .action)
        words = CourseAuditWords.reading(try row.decode(String.self, forKey: .detail))
        actorId = try row.decodeIfPresent(Int64.self, forKey: .actorId)
        actorName = try row.decode(String.self, forKey: .actorName)
        at = try row.decode(Date.self, forKey: .at)
    }

    /// The line with its details said to `reader`, as it is written for them.
    func said(to reader: Reader) -> CourseAuditEntry {
        var said = self
        said.words = .verbatim(reader.say(words))
        return said
    }

    /// Writes the line with its details as `said(to:)` left them.
    func encode(to encoder: any Encoder) throws {
        var fields = encoder.container(keyedBy: CodingKeys.self)
        try fields.encode(id, forKey: .id)
        try fields.encode(courseId, forKey: .courseId)
        try fields.encode(action, forKey: .action)
        try fields.encode(words.description, forKey: .detail)
        try fields.encodeIfPresent(actorId, forKey: .actorId)
        try fields.encode(actorName, forKey: .actorName)
        try fields.encode(at, forKey: .at)
    }
}

extension SessionStore {
    /// Changes a scheduled or open session's title, start or settings; an open session's closing time follows its
    /// new open minutes. The secret stays, so a projected code keeps working.
    func edit(id: Int64, _ edit: SessionEdit, now: Date? = nil) async throws -> ClassSession {
        let edited = try await database.transaction { sql in
            guard let session = try await Self.held(id: id, in: sql) else {
                throw NotStored(.sessionNotFound, what: "session")
            }
            // The time is read once the row is held, so that it is never before a change this request waited for.
            let now = now ?? Date()
            let phase = session.phase(at: now)
            guard phase != .closed else { throw SessionCorrectionRefusal.closed }
            if edit.scheduledAt != nil, phase != .scheduled { throw SessionCorrectionRefusal.alreadyOpened }
            var update = sql.update("sessions").where("id", .equal, id)
            // A typed title replaces a default one, which is then no longer said in each reader's language.
            if let title = edit.title { update = update.set("title", to: title).set("title_key", to: SQLLiteral.null) }
            if let scheduledAt = edit.scheduledAt { update = update.set("scheduled_at", to: scheduledAt) }
            if let settings = edit.settings {
                update = update.set("settings", to: String(decoding: try JSONEncoder().encode(settings), as: UTF8.self))
                if let openedAt = session.openedAt {
                    update = update.set("closes_at", to: openedAt.addingTimeInterval(Double(settings.openMinutes) * 60))
                }
            }
            if edit.title != nil || edit.scheduledAt != nil || edit.settings != nil { try await update.run() }
            if phase == .open, edit.settings != nil {
                try await SessionEvents.append(.phaseChanged(.init(phase: .open)), sessionID: id, in: sql)
            }
            return try await Self.find(id: id, sql: sql)!
        }
        database.announce(.session(id))
        return edited
    }

    /// Keeps an open session open `minutes` longer than it would close.
    func extend(id: Int64, minutes: Int, now: Date? = nil) async throws -> ClassSession {
        try await database.transaction { sql in
            guard let session = try await Self.held(id: id, in: sql) else {
                throw NotStored(.sessionNotFound, what: "session")
            }
            let now = now ?? Date()
            switch session.phase(at: now) {
            case .scheduled: throw SessionCorrectionRefusal.notOpened
            case .closed: throw SessionCorrectionRefusal.closed
            case .open: break
            }
            let closesAt = max(session.closesAt ?? now, now).addingTimeInterval(Double(minutes) * 60)
            try await sql.update("sessions").set("closes_at", to: closesAt).where("id", .equal, id).run()
            try await SessionEvents.append(.phaseChanged(.init(phase: .open)), sessionID: id, in: sql)
            return try await Self.find(id: id, sql: sql)!
        }
    }

    /// Opens a closed session again for `minutes`, for those who came late; their check-ins count as late when
    /// `late`, else as present. The records made before stay as they are.
    func reopen(id: Int64, minutes: Int, late: Bool, now: Date? = nil) async throws -> ClassSession {
        let reopened = try await database.transaction { sql in
            guard var session = try await Self.held(id: id, in: sql) else {
                throw NotStored(.sessionNotFound, what: "session")
            }
            let now = now ?? Date()
            switch session.phase(at: now) {
            case .scheduled: throw SessionCorrectionRefusal.notOpened
            case .open: throw SessionCorrectionRefusal.stillOpen
            case .closed: break
            }
            // Late is counted from the opening; 0 makes every check-in from now on late, none never.
            session.settings.lateAfterMinutes = late ? 0 : nil
            try await sql.update("sessions").set(SQLColumn("closed_at"), to: SQLLiteral.null)
                .set("closes_at", to: now.addingTimeInterval(Double(minutes) * 60))
                .set("settings", to: String(decoding: try JSONEncoder().encode(session.settings), as: UTF8.self))
                .where("id", .equal, id).run()
            try await SessionEvents.append(.phaseChanged(.init(phase: .open)), sessionID: id, in: sql)
            return try await Self.find(id: id, sql: sql)!
        }
        database.announce(.session(id))
        return reopened
    }

    /// What deleting a session would take with it.
    func contents(id: Int64) async throws -> SessionContents {
        try await database.read { sql in try await Self.contents(id: id, sql: sql) }
    }

    private static func contents(id: Int64, sql: any SQLDatabase) async throws -> SessionContents {
        let row = try await sql.raw(
            """
            SELECT (SELECT COUNT(*) FROM attendance WHERE session_id = \(bind: id)) AS records,
              (SELECT COUNT(*) FROM quiz_attempts JOIN quiz_runs ON quiz_runs.id = quiz_attempts.run_id
                WHERE quiz_runs.session_id = \(bind: id)) AS attempts
            """
        ).first()
        return SessionContents(
            records: try row?.decode(column: "records", as: Int.self) ?? 0,
            attempts: try row?.decode(column: "attempts", as: Int.self) ?? 0)
    }

    /// Deletes a session with everything recorded in it, once the teacher has said how many records go
    /// (`confirmedRecords`); the course's audit log keeps what went and who deleted it.
    func delete(
        id: Int64, confirmed: SessionContents, by teacher: User, time: TimeText, now: Date = Date()
    ) async throws {
        try await database.transaction { sql in
            guard let session = try await Self.held(id: id, in: sql) else {
                throw NotStored(.sessionNotFound, what: "session")
            }
            // Its quiz runs held before counting: an attempt starting now is counted, or finds its run gone.
            try await QuizRuns.hold(where: "session_id = \(bind: id)", in: sql)
            let contents = try await Self.contents(id: id, sql: sql)
            guard contents.confirmed(by: confirmed) else { throw SessionCorrectionRefusal.unconfirmedDelete(contents) }
            let detail = try CourseAuditWords.removed(session, contents: contents, zone: time.zone).storedText()
            try await sql.insert(into: "course_audit").columns(
                "course_id", "action", "detail", "actor_id", "actor_name", "at"
            )
            .values(
                SQLBind(session.courseId), SQLBind(session.openedAt == nil ? "session_cancelled" : "session_deleted"),
                SQLBind(detail), SQLBind(teacher.id), SQLBind(teacher.name), SQLBind(now)
            ).run()
            try await sql.delete(from: "sessions").where("id", .equal, id).run()
        }
        database.announce(.session(id))
    }

    /// The course's other sessions open at `now`.
    func openSessions(courseID: Int64, except id: Int64? = nil, now: Date = Date()) async throws -> [ClassSession] {
        try await list(courseID: courseID).filter { $0.id != id && $0.phase(at: now) == .open }
    }

    /// The course's audit log of sessions deleted or cancelled, newest first.
    func courseAudit(courseID: Int64, in reader: Reader) async throws -> [CourseAuditEntry] {
        try await database.read { sql in
            try await sql.raw(
                """
                SELECT id, course_id, action, detail, actor_id, actor_name, at FROM course_audit
                WHERE course_id = \(bind: courseID) ORDER BY id DESC
                """
            ).all(decoding: CourseAuditEntry.self, with: .rollcall).map { $0.said(to: reader) }
        }
    }
}
