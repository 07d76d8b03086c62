import Foundation
import SQLKit

/// The schema, as an ordered list of named steps; each runs once, in its own transaction, on either engine. Each step
/// is a file of its own in `Migrations/`, named and numbered like the step, and registered here, in order.
package enum Migrations {
    /// One schema change: its statements use `{id}`, `{bool}`, `{blob}`, `{time}`, `{real}` where the engines differ.
    package struct Step {
        package let name: String
        package let statements: [String]
        /// Statements run on PostgreSQL only, after the others: what only several processes on one database need.
        package let postgres: [String]

        package init(name: String, statements: [String], postgres: [String] = []) {
            self.name = name
            self.statements = statements
            self.postgres = postgres
        }
    }

    package static let steps: [Step] = [
        step001Accounts,
        step002Courses,
        step003Sessions,
        step004CheckIn,
        step005Passkeys,
        step006SessionEvents,
        step007Records,
        step008CheckInSpeed,
        step009ExposureAndRetention,
        step010AttemptCounters,
        step011CourseTimeZone,
        step012Quizzes,
        step013GradeWeights,
        step014CourseAudit,
        step015JoinFromScan,
        step016BulkMarks,
        step017CourseArchive,
        step018Timetable,
        step019CourseStaff,
        step020MailQueue,
        step021PasswordResets,
        step022PhoneSignIn,
        step023RememberedDevices,
        step024AbsenceNotices,
        step025SingleSignOn,
        step026InvitationMail,
        step027FlagOtherStudent,
        step028SessionDefaults,
        step029RefusedFlagsOnce,
        step030Proximity,
        step031PersonTimeZone,
        step032LearningPlatforms,
        step033LTIRegistrationLinks,
        step034LTIPending,
        step035PersonLanguage,
        step036Federation,
        step037HeardAnnounced,
        step038FirstLanguage,
        step039SessionTitleKey,
        step040FlagRepeats,
        step041CourseLanguage,
        step042Jobs,
        step043AnswerAnswered,
        step044ChangesAnnounced,
    ]

    /// Applies every step not yet applied, in order; safe to run at every start and from several processes. Tests of
    /// a step stop `before` it, to lay down the rows it will find. A step already applied that is not among `steps`
    /// (a newer build's, during a rolling upgrade) is left as it is. `steps` is this build's schema; a test of a rolling
    /// upgrade passes a later build's.
    package static func apply(
        to database: Database, steps: [Step] = Migrations.steps, before stop: String? = nil
    ) async throws {
        try await Database.allowing(statementsOf: Database.longStatements) {
            try await applying(steps, to: database, before: stop)
        }
    }

    private static func applying(_ steps: [Step], to database: Database, before stop: String?) async throws {
        try await database.transaction { sql in
            try await holdMigrationLock(sql)
            try await sql.raw(
                SQLQueryString(
                    "CREATE TABLE IF NOT EXISTS schema_migrations (name TEXT PRIMARY KEY, applied_at \(unsafeRaw: type("{time}", database.engine)) NOT NULL)"
                )
            ).run()
        }
        for step in steps.prefix(while: { $0.name != stop }) {
            var attempt = 1
            while true {
                let yielding = attempt < yieldingAttempts
                do {
                    try await database.transaction { sql in
                        try await apply(step, in: sql, engine: database.engine, yielding: yielding)
                    }
                    break
                } catch  where attempt < yieldingAttempts && database.isLockTimeout(error) {
                    try await Task.sleep(for: .milliseconds(min(50 * attempt, 500)))
                    attempt += 1
                }
            }
        }
    }

    /// On PostgreSQL a step, while `yielding`, waits at most `lockWait` for each lock it takes, and when a wait runs
    /// out it gives up every lock it holds, to be tried again after a pause. A step holding one table alone while it
    /// waits for the next deadlocks the requests of the processes serving meanwhile that read both in the other order
    /// (a check-in's standing reads the course, then the attendance); the server ends one side after a second, often
    /// the requests. Yielding, the step never holds a table long enough for that. Its last try waits as long as it
    /// must, so that a busy school's upgrade finishes.
    private static func apply(
        _ step: Step, in sql: Transaction, engine: Database.Engine, yielding: Bool
    ) async throws {
        try await holdMigrationLock(sql)
        let done = try await sql.select().column("name").from("schema_migrations")
            .where("name", .equal, step.name).first()
        guard done == nil else { return }
        if yielding && engine == .postgres {
            try await sql.raw("SET LOCAL lock_timeout = '\(unsafeRaw: lockWait)'").run()
        }
        for statement in step.statements + (engine == .postgres ? step.postgres : []) {
            try await sql.raw(SQLQueryString(type(statement, engine))).run()
        }
        try await sql.insert(into: "schema_migrations").columns("name", "applied_at")
            .values(SQLBind(step.name), SQLBind(Date())).run()
    }

    /// How long a step waits for one lock before it yields: well under PostgreSQL's `deadlock_timeout` (one second).
    static let lockWait = "100ms"

    /// Tries of a step that yield before the one that waits.
    static let yieldingAttempts = 20

    /// Processes starting together on one PostgreSQL take turns: a step's check and its tables are one decision,
    /// and `CREATE … IF NOT EXISTS` from two at once can still collide. SQLite's write lock does this already.
    private static func holdMigrationLock(_ sql: Transaction) async throws {
        guard sql.dialect.name == "postgresql" else { return }
        try await sql.raw("SELECT pg_advisory_xact_lock(\(bind: Self.lockKey))").run()
    }

    /// The advisory lock migrations take: "RCMIGRAT" in ASCII, a key nothing else uses.
    package static let lockKey: Int64 = 0x5243_4D49_4752_4154

    /// Replaces the placeholders with the engine's column types.
    package static func type(_ statement: String, _ engine: Database.Engine) -> String {
        let types: [String: String] =
            switch engine {
            case .sqlite:
                [
                    "{id}": "INTEGER PRIMARY KEY AUTOINCREMENT", "{bool}": "BOOLEAN", "{blob}": "BLOB",
                    "{time}": "REAL", "{real}": "REAL",
                ]
            case .postgres:
                [
                    "{id}": "BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY", "{bool}": "BOOLEAN",
                    "{blob}": "BYTEA", "{time}": "TIMESTAMPTZ", "{real}": "DOUBLE PRECISION",
                ]
            }
        return types.reduce(statement) { $0.replacingOccurrences(of: $1.key, with: $1.value) }
    }
}
