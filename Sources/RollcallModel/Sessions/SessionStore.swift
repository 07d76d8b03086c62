import Foundation
import RollcallCore
import RollcallStorage
import RollcallWords
import SQLKit

/// One class meeting of a course, with its check-in settings and the secret its rotating codes come from.
package struct ClassSession: Sendable, Equatable {
    package var id: Int64
    package var courseId: Int64
    /// Read with the session, because every page and answer about a session names its course.
    package var courseName: String
    /// The title as stored: what the teacher typed, or the English of a default one.
    package var storedTitle: String
    /// A default title's moment and the course's zone: the title is then said in the reader's language when read.
    package var defaultTitle: (moment: Date, zone: String)? = nil
    package var scheduledAt: Date?
    package var openedAt: Date?
    package var closesAt: Date?
    package var closedAt: Date?
    package var settings: SessionSettings
    package var secret: [UInt8]
    package var createdAt: Date

    /// The title in the reader's language: a default one ("Session of 26 Jan 2027 at 9:00 AM") is said anew for each
    /// reader, in the course's zone; a typed one stays as typed.
    package func title(in reader: Reader) -> String {
        guard let defaultTitle else { return storedTitle }
        let time = TimeText(zoneIdentifier: defaultTitle.zone, locale: reader.locale)
        return Self.defaultTitle(for: defaultTitle.moment, time: time, in: reader)
    }

    /// "Session of 26 Jan 2027 at 9:00 AM" in the reader's language, in the course's zone (`time`).
    package static func defaultTitle(for date: Date, time: TimeText, in reader: Reader) -> String {
        reader.say("Session of \(time.moment(date))")
    }

    /// `title_key` of a session titled by `defaultTitle`.
    package static let defaultTitleKey = "session_of"

    // Written out: a tuple (the default title) keeps the compiler from making it.
    package static func == (a: ClassSession, b: ClassSession) -> Bool {
        a.id == b.id && a.courseId == b.courseId && a.courseName == b.courseName && a.storedTitle == b.storedTitle
            && a.defaultTitle?.moment == b.defaultTitle?.moment && a.defaultTitle?.zone == b.defaultTitle?.zone
            && a.scheduledAt == b.scheduledAt && a.openedAt == b.openedAt && a.closesAt == b.closesAt
            && a.closedAt == b.closedAt && a.settings == b.settings && a.secret == b.secret
            && a.createdAt == b.createdAt
    }

    package func phase(at now: Date) -> SessionPhase {
        SessionPhase.at(now, openedAt: openedAt, closesAt: closesAt, closedAt: closedAt)
    }

    /// Scheduled, never opened, and past the time it would have closed (`SessionPhase.missed`).
    package func missed(at now: Date) -> Bool {
        SessionPhase.missed(phase(at: now), scheduledAt: scheduledAt, openMinutes: settings.openMinutes, now: now)
    }

    /// The word on the session's badge: its phase, or `missed`.
    package func badge(at now: Date) -> String { missed(at: now) ? "missed" : phase(at: now).rawValue }
}

/// Why a session cannot move to the phase asked for.
package enum SessionTransitionRefusal: Error {
    /// Opening a session that is open already.
    case alreadyOpen
    /// Opening a session that has closed: a new session is needed.
    case closedForGood
    /// Closing a session that has closed already.
    case alreadyClosed
}

/// Sessions and their attendance records.
package struct SessionStore: Sendable {
    package let database: Database

    package init(database: Database) {
        self.database = database
    }

    /// Every scan and check-in needs a session's secret and settings; they change only when a teacher edits the
    /// session, which tells every process (`ChangeNotice.session`), so they are read once. Its times and course name
    /// change more often, and are read afresh each time.
    package var fixed: FixedSessions { database.caches.sessions }

    private struct Row: Decodable {
        package var id: Int64
        package var courseId: Int64
        package var courseName: String
        package var courseTimeZone: String?
        package var title: String
        package var titleKey: String?
        package var scheduledAt: Date?
        package var openedAt: Date?
        package var closesAt: Date?
        package var closedAt: Date?
        package var settings: String
        package var secret: Data
        package var createdAt: Date

        package func session() throws -> ClassSession {
            // A default title's moment is the one it was made from: the scheduled time, else the creation.
            let said = titleKey == ClassSession.defaultTitleKey ? courseTimeZone : nil
            return ClassSession(
                id: id, courseId: courseId, courseName: courseName, storedTitle: title,
                defaultTitle: said.map { (scheduledAt ?? createdAt, $0) }, scheduledAt: scheduledAt,
                openedAt: openedAt,
                closesAt: closesAt, closedAt: closedAt,
                settings: try JSONDecoder().decode(SessionSettings.self, from: Data(settings.utf8)),
                secret: Array(secret), createdAt: createdAt
            )
        }
    }

    /// Creates a session, open at once when `openNow`, else scheduled for `scheduledAt`.
    package func create(
        courseID: Int64, title: String, settings: SessionSettings, scheduledAt: Date?, openNow: Bool,
        now: Date = Date(),
        titleKey: String? = nil
    ) async throws -> ClassSession {
        var generator = SystemRandomNumberGenerator()
        let secret = RotatingCode.makeSecret(using: &generator)
        let settingsJSON = String(decoding: try JSONEncoder().encode(settings), as: UTF8.self)
        return try await database.transaction { sql in
            // The course as it is now: one archived since the request was checked takes no new session.
            try await CourseStore.requireActive(courseID: courseID, in: sql)
            let row = try await sql.insert(into: "sessions")
                .columns(
                    "course_id", "title", "scheduled_at", "opened_at", "closes_at", "settings", "secret", "created_at",
                    "title_key"
                )
                .values(
                    SQLBind(courseID), SQLBind(title), SQLBind(scheduledAt),
                    SQLBind(openNow ? now : nil),
                    SQLBind(openNow ? now.addingTimeInterval(Double(settings.openMinutes) * 60) : nil),
                    SQLBind(settingsJSON), SQLBind(Data(secret)), SQLBind(now), SQLBind(titleKey)
                )
                .returning("id").first(decodingColumn: "id", as: Int64.self)
            guard let row, let session = try await Self.find(id: row, sql: sql) else {
                throw NotSaved(what: "session")
            }
            if openNow { try await SessionEvents.append(.phaseChanged(.init(phase: .open)), sessionID: row, in: sql) }
            return session
        }
    }

    package func find(id: Int64) async throws -> ClassSession? {
        guard var session = fixed.session(id: id) else {
            let mark = fixed.mark
            let session = try await database.read { sql in try await Self.find(id: id, sql: sql) }
            if let session { fixed.remember(session, readSince: mark) }
            return session
        }
        guard let moment = try await database.read({ sql in try await Self.moment(id: id, sql: sql) }) else {
            fixed.forget(id: id)
            return nil
        }
        moment.apply(to: &session)
        return session
    }

    /// The session with its times and course name as read at most a second ago, for a scan, which decides nothing by
    /// them (`Caches.moments`).
    package func recent(id: Int64, now: Date) async throws -> ClassSession? {
        guard var session = try await fixedParts(id: id) else { return nil }
        if let moment = database.caches.moments.value(id: id, now: now) {
            moment.apply(to: &session)
            return session
        }
        guard let moment = try await database.read({ sql in try await Self.moment(id: id, sql: sql) }) else {
            fixed.forget(id: id)
            return nil
        }
        database.caches.moments.remember(moment, id: id, now: now)
        moment.apply(to: &session)
        return session
    }

    /// The session as last read, for the parts that never change (course, title, settings, secret); its times and
    /// course name may be stale, so whoever decides by them reads a `SessionMoment` too.
    package func fixedParts(id: Int64) async throws -> ClassSession? {
        if let session = fixed.session(id: id) { return session }
        return try await find(id: id)
    }

    /// A session's times and course name now.
    package static func moment(id: Int64, sql: any SQLDatabase) async throws -> SessionMoment? {
        guard
            let row = try await sql.raw(
                """
                SELECT sessions.opened_at, sessions.closes_at, sessions.closed_at, courses.name AS course_name
                FROM sessions JOIN courses ON courses.id = sessions.course_id WHERE sessions.id = \(bind: id)
                """
            ).first()
        else { return nil }
        return try SessionMoment(row)
    }

    /// A course's sessions, newest first.
    package func list(courseID: Int64) async throws -> [ClassSession] {
        try await database.read { sql in
            try await Self.select(sql).where(SQLColumn("course_id", table: "sessions"), .equal, SQLBind(courseID))
                .orderBy(
                    SQLOrderBy(
                        expression: SQLRaw("COALESCE(sessions.opened_at, sessions.scheduled_at, sessions.created_at)"),
                        direction: SQLDirection.descending)
                )
                .all(decoding: Row.self, with: .rollcall).map { try $0.session() }
        }
    }

    /// Opens a scheduled session now; its open time starts counting.
    package func open(id: Int64, now: Date? = nil) async throws -> ClassSession {
        let session = try await database.transaction { sql in
            guard let session = try await Self.held(id: id, in: sql) else {
                throw NotStored(.sessionNotFound, what: "session")
            }
            // The time is read once the row is held: read before, a request that waited for another's open would
            // judge it by an earlier moment, find the session not yet open then, and open it a second time.
            let now = now ?? Date()
            switch session.phase(at: now) {
            case .open: throw SessionTransitionRefusal.alreadyOpen
            case .closed: throw SessionTransitionRefusal.closedForGood
            case .scheduled: break
            }
            let closesAt = now.addingTimeInterval(Double(session.settings.openMinutes) * 60)
            try await sql.update("sessions").set("opened_at", to: now).set("closes_at", to: closesAt)
                .where("id", .equal, id).run()
            try await SessionEvents.append(.phaseChanged(.init(phase: .open)), sessionID: id, in: sql)
            return try await Self.find(id: id, sql: sql)!
        }
        // After the commit: a scan in between would keep the old times again.
        database.caches.moments.forget(id: id)
        return session
    }

    /// Closes a session; from then on nobody can check in. With `markAbsentBy`, everyone on the roster without a
    /// record is marked absent in the same transaction, in the name of that teacher.
    package func close(id: Int64, markAbsentBy teacherID: Int64? = nil, now: Date? = nil) async throws -> ClassSession {
        let session = try await database.transaction { sql in
            guard let session = try await Self.held(id: id, in: sql) else {
                throw NotStored(.sessionNotFound, what: "session")
            }
            // Read once the row is held, as in `open`.
            let now = now ?? Date()
            if session.phase(at: now) == .closed { throw SessionTransitionRefusal.alreadyClosed }
            try await sql.update("sessions").set("closed_at", to: now).where("id", .equal, id).run()
            if let teacherID {
                try await AttendanceLedger.markAbsent(
                    sessionID: id, courseID: session.courseId, by: teacherID, at: now, in: sql)
            }
            try await SessionEvents.append(.phaseChanged(.init(phase: .closed)), sessionID: id, in: sql)
            return try await Self.find(id: id, sql: sql)!
        }
        // After the commit: a scan in between would keep the old times again.
        database.caches.moments.forget(id: id)
        return session
    }

    /// Sessions with their course's name.
    private static func select(_ sql: any SQLDatabase) -> SQLSelectBuilder {
        sql.select().column(SQLColumn("*", table: "sessions")).column(
            SQLColumn("name", table: "courses"), as: "course_name"
        ).column(SQLColumn("time_zone", table: "courses"), as: "course_time_zone")
            .from("sessions").join(
                "courses", on: SQLColumn("id", table: "courses"), .equal, SQLColumn("course_id", table: "sessions"))
    }

    /// Takes the session's row lock until the transaction ends, so that what changes a session or its records (open,
    /// close, a teacher's mark, a batch, an undo) is decided one change after another, in every process. SQLite's one
    /// writer does that already, and its dialect writes no locking clause. Answers whether the session exists.
    @discardableResult
    package static func lock(id: Int64, in sql: Transaction) async throws -> Bool {
        try await sql.lockRow(of: "sessions", id: id)
    }

    /// The session, read under its row lock (`lock`), so that what is decided from it holds until the commit.
    package static func held(id: Int64, in sql: Transaction) async throws -> ClassSession? {
        try await lock(id: id, in: sql) ? find(id: id, sql: sql) : nil
    }

    package static func find(id: Int64, sql: any SQLDatabase) async throws -> ClassSession? {
        try await Self.select(sql).where(SQLColumn("id", table: "sessions"), .equal, SQLBind(id))
            .first(decoding: Row.self, with: .rollcall)?.session()
    }

    /// Every session of a course with its records counted by status, and how many students on its roster had no
    /// record when it ended.
    package func tallies(courseID: Int64, now: Date = Date()) async throws -> [Int64: SessionTally] {
        try await database.read { sql in
            var tallies: [Int64: SessionTally] = [:]
            for row in try await sql.raw(
                """
                SELECT a.session_id, a.status, COUNT(*) AS n FROM attendance a
                JOIN sessions s ON s.id = a.session_id WHERE s.course_id = \(bind: courseID)
                GROUP BY a.session_id, a.status
                """
            ).all() {
                guard let status = AttendanceStatus(rawValue: try row.decode(column: "status", as: String.self)) else {
                    continue
                }
                tallies[try row.decode(column: "session_id", as: Int64.self), default: .init()].statuses[status] =
                    try row.decode(column: "n", as: Int.self)
            }
            for row in try await sql.raw(
                """
                SELECT s.id AS session_id, COUNT(*) AS n FROM sessions s
                JOIN enrollments e ON e.course_id = s.course_id
                  AND e.joined_at <= COALESCE(s.closed_at, s.closes_at)
                WHERE s.course_id = \(bind: courseID) AND COALESCE(s.closed_at, s.closes_at) <= \(bind: now)
                  AND NOT EXISTS (SELECT 1 FROM attendance a WHERE a.session_id = s.id AND a.student_id = e.student_id)
                GROUP BY s.id
                """
            ).all() {
                tallies[try row.decode(column: "session_id", as: Int64.self), default: .init()].unrecordedOnRoster =
                    try row.decode(column: "n", as: Int.self)
            }
            return tallies
        }
    }
}

/// A session's records counted by status, and the students on its roster who had none when it ended.
package struct SessionTally: Sendable, Equatable {
    package var statuses: [AttendanceStatus: Int] = [:]

    package init(statuses: [AttendanceStatus: Int] = [:]) {
        self.statuses = statuses
    }

    package var unrecordedOnRoster = 0

    /// The counts as the records count them: a student on the roster with no record is absent once the session
    /// has ended (the core's `AttendanceSummary.countedStatus`).
    package var counted: [AttendanceStatus: Int] {
        var counts = statuses
        counts[.absent, default: 0] += unrecordedOnRoster
        return counts
    }
}

/// The parts of a session that change after it is created: when it opened and closes, and its course's name.
package struct SessionMoment: Sendable {
    package var openedAt: Date?
    package var closesAt: Date?
    package var closedAt: Date?
    package var courseName: String

    /// Reads the columns `opened_at`, `closes_at`, `closed_at` and `course_name` of a row.
    package init(_ row: any SQLRow) throws {
        openedAt = try row.decodeIfPresent(column: "opened_at", as: Date.self)
        closesAt = try row.decodeIfPresent(column: "closes_at", as: Date.self)
        closedAt = try row.decodeIfPresent(column: "closed_at", as: Date.self)
        courseName = try row.decode(column: "course_name", as: String.self)
    }

    package func apply(to session: inout ClassSession) {
        session.openedAt = openedAt
        session.closesAt = closesAt
        session.closedAt = closedAt
        session.courseName = courseName
    }
}

/// Sessions as last read, by id, for the parts that change only by an edit, which every process hears of
/// (`ChangeNotices`); bounded, since a server runs for months.
package final class FixedSessions: NoticedCache {
    private let entries = Forgetting<[Int64: ClassSession]>([:])
    /// Past this many sessions the memory starts afresh rather than grow without bound.
    package let capacity: Int

    package init(capacity: Int = 10_000) {
        self.capacity = capacity
    }

    package func session(id: Int64) -> ClassSession? {
        entries.withEntries { $0[id] }
    }

    /// A value to pass to `remember(_:readSince:)` taken before reading.
    package var mark: UInt64 { entries.mark }

    /// Remembers what a read found, unless something was forgotten since `mark`: an edit may have committed after
    /// the read, and its notice came before this remember.
    package func remember(_ session: ClassSession, readSince mark: UInt64) {
        entries.remember(readSince: mark) { byID in
            if byID.count >= capacity { byID.removeAll(keepingCapacity: true) }
            byID[session.id] = session
        }
    }

    package func forget(id: Int64) {
        entries.forget { $0[id] = nil }
    }

    /// Forgets what a change notice names: one edited session, a changed course's sessions (their default titles are
    /// said in its zone), or all when anything may have changed.
    package func forget(_ notice: ChangeNotice?) {
        switch notice {
        case .session(let id)?: forget(id: id)
        case .course(let id)?: entries.forget { $0 = $0.filter { $0.value.courseId != id } }
        case nil: entries.forget { $0.removeAll() }
        case .user?, .token?: break
        }
    }
}
