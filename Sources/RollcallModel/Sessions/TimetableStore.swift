import Foundation
import RollcallCore
import RollcallStorage
import RollcallWords
import SQLKit

/// A course's weekly meetings, each with the term's sessions it scheduled.
package struct TimetableEntry: Codable, Sendable, Equatable {
    package var id: Int64
    package var courseId: Int64
    package var weekday: Int
    package var time: String
    package var minutes: Int
    package var title: String
    package var startsOn: Date
    package var endsOn: Date
    package var createdAt: Date
}

/// Timetables: adding a weekly slot schedules the term's sessions; the opener opens them on time.
package struct TimetableStore: Sendable {
    package let database: Database

    package init(database: Database) {
        self.database = database
    }

    /// Adds a slot and schedules a session at each of its starts, with `settings` (open for the slot's minutes).
    package func add(
        courseID: Int64, slot: TimetableSlot, title: String, starts: [Date], from: Date, until: Date,
        settings: SessionSettings, now: Date = Date()
    ) async throws -> (entry: TimetableEntry, sessions: Int) {
        var settings = settings
        settings.openMinutes = slot.minutes
        let settingsJSON = String(decoding: try JSONEncoder().encode(settings), as: UTF8.self)
        let added = try await database.transaction { sql in
            // The course's row is held so that two slots added at once, in any processes, count each other.
            try await sql.lockRow(of: "courses", id: courseID)
            try await CourseStore.requireActive(courseID: courseID, in: sql)
            let counts = try await sql.raw(
                """
                SELECT (SELECT COUNT(*) FROM timetable_slots WHERE course_id = \(bind: courseID)) AS slots,
                  (SELECT COUNT(*) FROM sessions WHERE course_id = \(bind: courseID) AND slot_id IS NOT NULL
                    AND opened_at IS NULL) AS scheduled
                """
            ).first()
            if let refusal = Timetable.refusal(
                slots: try counts?.decode(column: "slots", as: Int.self) ?? 0,
                scheduled: try counts?.decode(column: "scheduled", as: Int.self) ?? 0, adding: starts.count)
            {
                throw AppError(.conflict, refusal.code, refusal.message)
            }
            guard
                let entry = try await sql.insert(into: "timetable_slots")
                    .columns(
                        "course_id", "weekday", "time", "minutes", "title", "starts_on", "ends_on", "created_at"
                    )
                    .values(
                        SQLBind(courseID), SQLBind(slot.weekday), SQLBind(slot.time), SQLBind(slot.minutes),
                        SQLBind(title), SQLBind(from), SQLBind(until), SQLBind(now)
                    )
                    .returning("*").first(decoding: TimetableEntry.self, with: .rollcall)
            else { throw NotSaved(what: "timetable slot") }
            var generator = SystemRandomNumberGenerator()
            for (index, start) in starts.enumerated() {
                try await sql.insert(into: "sessions")
                    .columns("course_id", "title", "scheduled_at", "settings", "secret", "created_at", "slot_id")
                    .values(
                        SQLBind(courseID), SQLBind("\(title) \(index + 1)"), SQLBind(start), SQLBind(settingsJSON),
                        SQLBind(Data(RotatingCode.makeSecret(using: &generator))), SQLBind(now), SQLBind(entry.id)
                    ).run()
            }
            let renamed = try await Self.renumber(courseID: courseID, in: sql)
            return (entry: entry, sessions: starts.count, renamed: renamed)
        }
        for session in added.renamed { database.announce(.session(session)) }
        return (added.entry, added.sessions)
    }

    package func list(courseID: Int64) async throws -> [TimetableEntry] {
        try await database.read { sql in
            try await sql.select().column("*").from("timetable_slots").where("course_id", .equal, courseID)
                .orderBy("weekday").orderBy("time").all(decoding: TimetableEntry.self, with: .rollcall)
        }
    }

    /// Removes a slot with the sessions it scheduled that have not opened; those held stay, with their records.
    /// Answers `false` when the course has no such slot.
    package func remove(courseID: Int64, slotID: Int64) async throws -> Bool {
        let renamed = try await database.transaction { sql -> [Int64]? in
            guard
                try await sql.select().column("id").from("timetable_slots").where("id", .equal, slotID)
                    .where("course_id", .equal, courseID).first() != nil
            else { return nil }
            try await sql.delete(from: "sessions").where("slot_id", .equal, slotID)
                .where(SQLColumn("opened_at"), .is, SQLLiteral.null).run()
            try await sql.delete(from: "timetable_slots").where("id", .equal, slotID).run()
            return try await Self.renumber(courseID: courseID, in: sql)
        }
        guard let renamed else { return false }
        for session in renamed { database.announce(.session(session)) }
        return true
    }

    private struct DueRow: Decodable {
        package var id: Int64
        package var scheduledAt: Date
        package var settings: String
    }

    /// Opens every timetabled session whose time has come and whose class is not over, at its scheduled time, so
    /// that its late rule counts from the start of the class. Safe from several processes: a session is opened by
    /// one conditional update, which a second process finds already done.
    @discardableResult
    package func openDue(now: Date = Date()) async throws -> [Int64] {
        let due = try await database.read { sql in
            try await sql.raw(
                """
                SELECT id, scheduled_at, settings FROM sessions
                WHERE slot_id IS NOT NULL AND opened_at IS NULL AND closed_at IS NULL
                  AND scheduled_at <= \(bind: now)
                """
            ).all(decoding: DueRow.self, with: .rollcall)
        }
        var opened: [Int64] = []
        for row in due {
            let settings = try JSONDecoder().decode(SessionSettings.self, from: Data(row.settings.utf8))
            let closesAt = row.scheduledAt.addingTimeInterval(Double(settings.openMinutes) * 60)
            // A class that is over while nobody was there to open it stays unopened: it did not take place here.
            guard closesAt > now else { continue }
            let done = try await database.transaction { sql in
                let updated = try await sql.raw(
                    """
                    UPDATE sessions SET opened_at = \(bind: row.scheduledAt), closes_at = \(bind: closesAt)
                    WHERE id = \(bind: row.id) AND opened_at IS NULL AND closed_at IS NULL RETURNING id
                    """
                ).all()
                guard !updated.isEmpty else { return false }
                try await SessionEvents.append(.phaseChanged(.init(phase: .open)), sessionID: row.id, in: sql)
                return true
            }
            if done { opened.append(row.id) }
        }
        return opened
    }
}

extension TimetableStore {
    private struct NumberedRow: Decodable {
        package var id: Int64
        package var title: String
        package var openedAt: Date?
        package var slotTitle: String
    }

    /// Numbers the course's timetabled sessions in one sequence, in the order they meet, whichever weekly class
    /// scheduled them: two classes a week would otherwise both have a "Lecture 14", in lists, the grid, the CSV and
    /// its file name. A session keeps its title once it opened (its name is on record by then) or when the teacher
    /// renamed it; it still counts in the sequence. Answers the sessions it renamed, which the caller announces once
    /// the change commits: a title is among the parts of a session every process keeps (`FixedSessions`).
    package static func renumber(courseID: Int64, in sql: any SQLDatabase) async throws -> [Int64] {
        let rows = try await sql.raw(
            """
            SELECT sessions.id, sessions.title, sessions.opened_at, timetable_slots.title AS slot_title
            FROM sessions JOIN timetable_slots ON timetable_slots.id = sessions.slot_id
            WHERE sessions.course_id = \(bind: courseID)
            ORDER BY sessions.scheduled_at, sessions.id
            """
        ).all(decoding: NumberedRow.self, with: .rollcall)
        var renamed: [Int64] = []
        for (index, row) in rows.enumerated() where row.openedAt == nil {
            let numbered = "\(row.slotTitle) \(index + 1)"
            guard row.title != numbered, isNumbered(row.title, after: row.slotTitle) else { continue }
            try await sql.update("sessions").set("title", to: numbered).where("id", .equal, row.id).run()
            renamed.append(row.id)
        }
        return renamed
    }

    /// Whether `title` is the one its weekly class gave it: the class's title, a space and a number.
    package static func isNumbered(_ title: String, after slotTitle: String) -> Bool {
        guard title.hasPrefix(slotTitle + " ") else { return false }
        let number = title.dropFirst(slotTitle.count + 1)
        return !number.isEmpty && number.allSatisfy { $0.isASCII && $0.isNumber }
    }

    /// Moves the course's timetabled sessions still to come from the wall-clock times they had in `old` to the same
    /// times in `new`, and its slots' terms to the same days: weekly classes are wall-clock times in the course's zone.
    /// Sessions held, open or whose time has passed stay as they were. Answers the sessions moved.
    package static func followZone(
        courseID: Int64, from old: TimeZone, to new: TimeZone, now: Date, in sql: any SQLDatabase
    ) async throws -> [Int64] {
        let due = try await sql.raw(
            """
            SELECT id, scheduled_at FROM sessions
            WHERE course_id = \(bind: courseID) AND slot_id IS NOT NULL AND opened_at IS NULL AND closed_at IS NULL
              AND scheduled_at > \(bind: now)
            """
        ).all()
        var moved: [Int64] = []
        for row in due {
            let id = try row.decode(column: "id", as: Int64.self)
            let at = try row.decode(column: "scheduled_at", as: Date.self)
            let next = TimetableSlot.sameWallClock(at, from: old, to: new)
            guard next != at else { continue }
            // Unless the opener opened it meanwhile.
            let updated = try await sql.raw(
                """
                UPDATE sessions SET scheduled_at = \(bind: next)
                WHERE id = \(bind: id) AND opened_at IS NULL AND closed_at IS NULL RETURNING id
                """
            ).all()
            if !updated.isEmpty { moved.append(id) }
        }
        let slots = try await sql.select().columns("id", "starts_on", "ends_on").from("timetable_slots")
            .where("course_id", .equal, courseID).all()
        for slot in slots {
            try await sql.update("timetable_slots")
                .set(
                    "starts_on",
                    to: TimetableSlot.sameWallClock(
                        try slot.decode(column: "starts_on", as: Date.self), from: old, to: new)
                )
                .set(
                    "ends_on",
                    to: TimetableSlot.sameWallClock(
                        try slot.decode(column: "ends_on", as: Date.self), from: old, to: new)
                )
                .where("id", .equal, try slot.decode(column: "id", as: Int64.self)).run()
        }
        return moved
    }
}
