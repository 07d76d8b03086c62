import Foundation
import SQLKit

/// The schema, as an ordered list of named steps; each runs once, in its own transaction, on either engine.
enum Migrations {
    /// One schema change: its statements use `{id}`, `{bool}`, `{blob}`, `{time}`, `{real}` where the engines differ.
    struct Step {
        let name: String
        let statements: [String]
    }

    static let steps: [Step] = [
        Step(
            name: "001_accounts",
            statements: [
                """
                CREATE TABLE images (
                    id {id}, content_type TEXT NOT NULL, data {blob} NOT NULL, created_at {time} NOT NULL)
                """,
                """
                CREATE TABLE users (
                    id {id}, email TEXT NOT NULL UNIQUE, name TEXT NOT NULL, password_hash TEXT NOT NULL,
                    role TEXT NOT NULL, student_number TEXT UNIQUE, phone TEXT, about TEXT NOT NULL DEFAULT '',
                    picture_id BIGINT REFERENCES images(id), email_verified_at {time}, approved {bool} NOT NULL,
                    disabled {bool} NOT NULL, created_at {time} NOT NULL)
                """,
                """
                CREATE TABLE access_tokens (
                    token_hash TEXT PRIMARY KEY, user_id BIGINT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                    kind TEXT NOT NULL, csrf TEXT NOT NULL, created_at {time} NOT NULL, expires_at {time} NOT NULL)
                """,
                "CREATE INDEX access_tokens_user ON access_tokens(user_id)",
                """
                CREATE TABLE email_verifications (
                    token_hash TEXT PRIMARY KEY, user_id BIGINT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                    expires_at {time} NOT NULL)
                """,
                """
                CREATE TABLE sign_in_failures (
                    email TEXT PRIMARY KEY, failures INTEGER NOT NULL, last_failure_at {time} NOT NULL)
                """,
                """
                CREATE TABLE outbox (
                    id {id}, channel TEXT NOT NULL, recipient TEXT NOT NULL, subject TEXT NOT NULL,
                    body TEXT NOT NULL, created_at {time} NOT NULL)
                """,
            ]
        ),
        Step(
            name: "002_courses",
            statements: [
                """
                CREATE TABLE courses (
                    id {id}, teacher_id BIGINT NOT NULL REFERENCES users(id), name TEXT NOT NULL,
                    description TEXT NOT NULL DEFAULT '', planned_sessions INTEGER, join_code TEXT NOT NULL UNIQUE,
                    poster_id BIGINT REFERENCES images(id), created_at {time} NOT NULL)
                """,
                "CREATE INDEX courses_teacher ON courses(teacher_id)",
                """
                CREATE TABLE enrollments (
                    course_id BIGINT NOT NULL REFERENCES courses(id) ON DELETE CASCADE,
                    student_id BIGINT NOT NULL REFERENCES users(id), joined_at {time} NOT NULL,
                    PRIMARY KEY (course_id, student_id))
                """,
                "CREATE INDEX enrollments_student ON enrollments(student_id)",
            ]
        ),
        Step(
            name: "003_sessions",
            statements: [
                """
                CREATE TABLE sessions (
                    id {id}, course_id BIGINT NOT NULL REFERENCES courses(id) ON DELETE CASCADE,
                    title TEXT NOT NULL, scheduled_at {time}, opened_at {time}, closes_at {time}, closed_at {time},
                    settings TEXT NOT NULL, secret {blob} NOT NULL, created_at {time} NOT NULL)
                """,
                "CREATE INDEX sessions_course ON sessions(course_id)",
                """
                CREATE TABLE attendance (
                    session_id BIGINT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
                    student_id BIGINT NOT NULL REFERENCES users(id), status TEXT NOT NULL,
                    recorded_at {time} NOT NULL, source TEXT NOT NULL,
                    PRIMARY KEY (session_id, student_id))
                """,
                "CREATE INDEX attendance_student ON attendance(student_id)",
            ]
        ),
        Step(
            name: "004_check_in",
            statements: [
                """
                CREATE TABLE check_in_tickets (
                    token_hash TEXT PRIMARY KEY, session_id BIGINT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
                    step BIGINT NOT NULL, scanned_at {time} NOT NULL, expires_at {time} NOT NULL,
                    student_id BIGINT REFERENCES users(id))
                """,
                """
                CREATE TABLE device_bindings (
                    session_id BIGINT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE, device_id TEXT NOT NULL,
                    student_id BIGINT NOT NULL REFERENCES users(id), created_at {time} NOT NULL,
                    PRIMARY KEY (session_id, device_id))
                """,
                """
                CREATE TABLE check_in_evidence (
                    session_id BIGINT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
                    student_id BIGINT NOT NULL REFERENCES users(id), latitude {real}, longitude {real},
                    accuracy {real}, distance {real}, device_id TEXT, client_address TEXT, via TEXT NOT NULL,
                    created_at {time} NOT NULL, PRIMARY KEY (session_id, student_id))
                """,
                """
                CREATE TABLE flags (
                    id {id}, session_id BIGINT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
                    student_id BIGINT REFERENCES users(id), kind TEXT NOT NULL, detail TEXT NOT NULL,
                    created_at {time} NOT NULL)
                """,
                "CREATE INDEX flags_session ON flags(session_id)",
            ]
        ),
        Step(
            name: "005_passkeys",
            statements: [
                """
                CREATE TABLE passkeys (
                    id {id}, user_id BIGINT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                    credential_id TEXT NOT NULL UNIQUE, public_key {blob} NOT NULL, algorithm INTEGER NOT NULL,
                    sign_count BIGINT NOT NULL, backup_eligible {bool} NOT NULL, backed_up {bool} NOT NULL,
                    name TEXT NOT NULL, aaguid TEXT NOT NULL, created_at {time} NOT NULL, last_used_at {time})
                """,
                "CREATE INDEX passkeys_user ON passkeys(user_id)",
                """
                CREATE TABLE passkey_challenges (
                    challenge_hash TEXT PRIMARY KEY, purpose TEXT NOT NULL,
                    user_id BIGINT REFERENCES users(id) ON DELETE CASCADE,
                    session_id BIGINT REFERENCES sessions(id) ON DELETE CASCADE, ticket_hash TEXT,
                    expires_at {time} NOT NULL)
                """,
                """
                CREATE TABLE course_verification (
                    course_id BIGINT PRIMARY KEY REFERENCES courses(id) ON DELETE CASCADE, required {bool} NOT NULL,
                    reuse_seconds INTEGER NOT NULL, updated_at {time} NOT NULL)
                """,
                """
                CREATE TABLE passkey_verifications (
                    id {id}, user_id BIGINT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                    credential_id TEXT NOT NULL, session_id BIGINT REFERENCES sessions(id) ON DELETE CASCADE,
                    device_id TEXT, backup_eligible {bool} NOT NULL, backed_up {bool} NOT NULL,
                    reused {bool} NOT NULL, created_at {time} NOT NULL)
                """,
                "CREATE INDEX passkey_verifications_session ON passkey_verifications(session_id)",
                "CREATE INDEX passkey_verifications_user ON passkey_verifications(user_id, created_at)",
            ]
        ),
        Step(
            name: "006_session_events",
            statements: [
                // A session's live views replay this log by id after reconnecting; see `SessionEvents`.
                """
                CREATE TABLE session_events (
                    id {id}, session_id BIGINT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
                    kind TEXT NOT NULL, payload TEXT NOT NULL, created_at {time} NOT NULL)
                """,
                "CREATE INDEX session_events_session ON session_events(session_id, id)",
            ]
        ),
        Step(
            name: "007_records",
            statements: [
                "ALTER TABLE courses ADD COLUMN points_present INTEGER NOT NULL DEFAULT 2",
                "ALTER TABLE courses ADD COLUMN points_late INTEGER NOT NULL DEFAULT 1",
                "ALTER TABLE courses ADD COLUMN points_excused INTEGER NOT NULL DEFAULT 1",
                "ALTER TABLE courses ADD COLUMN points_absent INTEGER NOT NULL DEFAULT 0",
                "ALTER TABLE courses ADD COLUMN mark_absent_on_close {bool} NOT NULL DEFAULT FALSE",
                "ALTER TABLE courses ADD COLUMN absentee_threshold INTEGER NOT NULL DEFAULT 80",
                """
                CREATE TABLE attendance_audit (
                    id {id}, session_id BIGINT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
                    student_id BIGINT NOT NULL REFERENCES users(id), changed_by BIGINT NOT NULL REFERENCES users(id),
                    changed_at {time} NOT NULL, old_status TEXT, new_status TEXT NOT NULL,
                    reason TEXT NOT NULL DEFAULT '')
                """,
                "CREATE INDEX attendance_audit_session ON attendance_audit(session_id)",
                "CREATE INDEX attendance_audit_student ON attendance_audit(student_id)",
                """
                CREATE TABLE course_invitations (
                    course_id BIGINT NOT NULL REFERENCES courses(id) ON DELETE CASCADE, email TEXT NOT NULL,
                    name TEXT NOT NULL, student_number TEXT, invited_by BIGINT NOT NULL REFERENCES users(id),
                    invited_at {time} NOT NULL, PRIMARY KEY (course_id, email))
                """,
                "CREATE INDEX course_invitations_email ON course_invitations(email)",
            ]
        ),
        Step(
            name: "008_check_in_speed",
            statements: [
                // Tickets are signed by their session now; a ticket scanned signed out is bound to its first
                // student by the check-in that used it, and the unique index lets no second check-in use it.
                "DROP TABLE check_in_tickets",
                "ALTER TABLE check_in_evidence ADD COLUMN ticket_hash TEXT",
                "CREATE UNIQUE INDEX check_in_evidence_ticket ON check_in_evidence(ticket_hash)",
            ]
        ),
        Step(
            name: "009_exposure_and_retention",
            statements: [
                // A role granted on top of a person's own; a deleted person's row stays, emptied, for their counts.
                "ALTER TABLE users ADD COLUMN health_officer {bool} NOT NULL DEFAULT FALSE",
                "ALTER TABLE users ADD COLUMN deleted_at {time}",
                """
                CREATE TABLE exposure_reports (
                    id {id}, requested_by BIGINT NOT NULL REFERENCES users(id),
                    person_id BIGINT NOT NULL REFERENCES users(id), reason TEXT NOT NULL,
                    window_from {time} NOT NULL, window_until {time} NOT NULL, created_at {time} NOT NULL)
                """,
                "CREATE INDEX exposure_reports_person ON exposure_reports(person_id)",
                // The retention service deletes by age.
                "CREATE INDEX check_in_evidence_created ON check_in_evidence(created_at)",
                "CREATE INDEX device_bindings_created ON device_bindings(created_at)",
                "CREATE INDEX flags_created ON flags(created_at)",
            ]
        ),
        Step(
            name: "010_attempt_counters",
            statements: [
                // Every limit in one table, counted in the database so that every process shares it.
                """
                CREATE TABLE attempt_counters (
                    scope TEXT NOT NULL, key TEXT NOT NULL, count INTEGER NOT NULL, since {time} NOT NULL,
                    last_at {time} NOT NULL, PRIMARY KEY (scope, key))
                """,
                "DROP TABLE sign_in_failures",
            ]
        ),
        Step(
            name: "011_course_time_zone",
            statements: [
                // The IANA zone a course's reports are written in; existing courses take the server's.
                "ALTER TABLE courses ADD COLUMN time_zone TEXT NOT NULL DEFAULT '\(CourseTimeZone.serverDefault.replacingOccurrences(of: "'", with: "''"))'"
            ]
        ),
        Step(
            name: "012_quizzes",
            statements: [
                // A quiz's definition (questions, limits) is JSON; a run keeps the definition it started with, so
                // editing the quiz later changes no attempt already made.
                """
                CREATE TABLE quizzes (
                    id {id}, course_id BIGINT NOT NULL REFERENCES courses(id) ON DELETE CASCADE, title TEXT NOT NULL,
                    definition TEXT NOT NULL, archived_at {time}, created_at {time} NOT NULL,
                    updated_at {time} NOT NULL)
                """,
                "CREATE INDEX quizzes_course ON quizzes(course_id)",
                """
                CREATE TABLE quiz_runs (
                    id {id}, quiz_id BIGINT NOT NULL REFERENCES quizzes(id) ON DELETE CASCADE,
                    session_id BIGINT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE, definition TEXT NOT NULL,
                    started_by BIGINT NOT NULL REFERENCES users(id), started_at {time} NOT NULL, stopped_at {time})
                """,
                "CREATE INDEX quiz_runs_session ON quiz_runs(session_id)",
                "CREATE INDEX quiz_runs_quiz ON quiz_runs(quiz_id)",
                """
                CREATE TABLE quiz_admissions (
                    run_id BIGINT NOT NULL REFERENCES quiz_runs(id) ON DELETE CASCADE,
                    student_id BIGINT NOT NULL REFERENCES users(id), admitted_by BIGINT NOT NULL REFERENCES users(id),
                    admitted_at {time} NOT NULL, PRIMARY KEY (run_id, student_id))
                """,
                // `deadline` is the start plus the limit plus added time, or the run's stop if earlier: the sweep and
                // every save compare with it alone.
                """
                CREATE TABLE quiz_attempts (
                    id {id}, run_id BIGINT NOT NULL REFERENCES quiz_runs(id) ON DELETE CASCADE,
                    student_id BIGINT NOT NULL REFERENCES users(id), seed BIGINT NOT NULL, device_id TEXT,
                    started_at {time} NOT NULL, added_seconds INTEGER NOT NULL DEFAULT 0, deadline {time} NOT NULL,
                    closed_at {time}, ending TEXT, answered INTEGER NOT NULL DEFAULT 0,
                    UNIQUE (run_id, student_id))
                """,
                "CREATE INDEX quiz_attempts_open ON quiz_attempts(closed_at, deadline)",
                "CREATE INDEX quiz_attempts_student ON quiz_attempts(student_id)",
                """
                CREATE TABLE quiz_answers (
                    attempt_id BIGINT NOT NULL REFERENCES quiz_attempts(id) ON DELETE CASCADE,
                    question_id TEXT NOT NULL, answer TEXT NOT NULL, sequence BIGINT NOT NULL,
                    saved_at {time} NOT NULL, PRIMARY KEY (attempt_id, question_id))
                """,
                """
                CREATE TABLE quiz_marks (
                    attempt_id BIGINT NOT NULL REFERENCES quiz_attempts(id) ON DELETE CASCADE,
                    question_id TEXT NOT NULL, points {real} NOT NULL, comment TEXT NOT NULL,
                    marked_by BIGINT NOT NULL REFERENCES users(id), marked_at {time} NOT NULL,
                    PRIMARY KEY (attempt_id, question_id))
                """,
                // A flag queued in a browser while offline may arrive twice; its client id keeps it once.
                """
                CREATE TABLE quiz_flags (
                    id {id}, attempt_id BIGINT NOT NULL REFERENCES quiz_attempts(id) ON DELETE CASCADE,
                    kind TEXT NOT NULL, report TEXT NOT NULL, client_id TEXT, occurred_at {time} NOT NULL,
                    received_at {time} NOT NULL, UNIQUE (attempt_id, client_id))
                """,
                // A run's live dashboards replay this log by id after reconnecting, as a session's do.
                """
                CREATE TABLE quiz_events (
                    id {id}, run_id BIGINT NOT NULL REFERENCES quiz_runs(id) ON DELETE CASCADE,
                    kind TEXT NOT NULL, payload TEXT NOT NULL, created_at {time} NOT NULL)
                """,
                "CREATE INDEX quiz_events_run ON quiz_events(run_id, id)",
            ]
        ),
        Step(
            name: "013_grade_weights",
            statements: [
                // The share of the course grade that quizzes make; existing courses keep attendance alone.
                "ALTER TABLE courses ADD COLUMN quiz_weight INTEGER NOT NULL DEFAULT 0"
            ]
        ),
        Step(
            name: "014_course_audit",
            statements: [
                // Sessions deleted or cancelled take their records with them; the course keeps this line of each.
                """
                CREATE TABLE course_audit (
                    id {id}, course_id BIGINT NOT NULL REFERENCES courses(id) ON DELETE CASCADE,
                    action TEXT NOT NULL, detail TEXT NOT NULL,
                    actor_id BIGINT REFERENCES users(id) ON DELETE SET NULL, actor_name TEXT NOT NULL,
                    at {time} NOT NULL)
                """,
                "CREATE INDEX course_audit_course ON course_audit(course_id, id)",
            ]
        ),
        Step(
            name: "015_join_from_scan",
            statements: [
                // A student not yet on the roster may join from a scan in the room, unless the teacher says no.
                "ALTER TABLE courses ADD COLUMN join_from_scan {bool} NOT NULL DEFAULT TRUE"
            ]
        ),
        Step(
            name: "016_bulk_marks",
            statements: [
                // A note for the teacher only, beside the reason the student sees.
                "ALTER TABLE attendance ADD COLUMN note TEXT NOT NULL DEFAULT ''",
                "ALTER TABLE attendance_audit ADD COLUMN note TEXT NOT NULL DEFAULT ''",
                // One teacher's change of many students at once, so that it can be undone as one.
                """
                CREATE TABLE attendance_batches (
                    id {id}, session_id BIGINT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
                    created_by BIGINT NOT NULL REFERENCES users(id), created_at {time} NOT NULL,
                    status TEXT NOT NULL, reason TEXT NOT NULL DEFAULT '', changed INTEGER NOT NULL DEFAULT 0,
                    undone_by BIGINT REFERENCES users(id), undone_at {time})
                """,
                "CREATE INDEX attendance_batches_session ON attendance_batches(session_id, id)",
                "ALTER TABLE attendance_audit ADD COLUMN batch_id BIGINT REFERENCES attendance_batches(id)",
            ]
        ),
        Step(
            name: "017_course_archive",
            statements: [
                // An archived course keeps its records and takes no new sessions nor students.
                "ALTER TABLE courses ADD COLUMN archived_at {time}"
            ]
        ),
        Step(
            name: "018_timetable",
            statements: [
                """
                CREATE TABLE timetable_slots (
                    id {id}, course_id BIGINT NOT NULL REFERENCES courses(id) ON DELETE CASCADE,
                    weekday INTEGER NOT NULL, time TEXT NOT NULL, minutes INTEGER NOT NULL, title TEXT NOT NULL,
                    starts_on {time} NOT NULL, ends_on {time} NOT NULL, created_at {time} NOT NULL)
                """,
                "CREATE INDEX timetable_slots_course ON timetable_slots(course_id)",
                // A session scheduled by a timetable opens by itself at its time; one scheduled by hand waits.
                "ALTER TABLE sessions ADD COLUMN slot_id BIGINT REFERENCES timetable_slots(id) ON DELETE SET NULL",
                "CREATE INDEX sessions_due ON sessions(slot_id, opened_at, scheduled_at)",
            ]
        ),
        Step(
            name: "019_course_staff",
            statements: [
                // Co-teachers manage the course as its teacher does; assistants see its rooms and mark attendance.
                """
                CREATE TABLE course_staff (
                    course_id BIGINT NOT NULL REFERENCES courses(id) ON DELETE CASCADE,
                    user_id BIGINT NOT NULL REFERENCES users(id) ON DELETE CASCADE, role TEXT NOT NULL,
                    added_at {time} NOT NULL, PRIMARY KEY (course_id, user_id))
                """,
                "CREATE INDEX course_staff_user ON course_staff(user_id)",
            ]
        ),
        Step(
            name: "020_mail_queue",
            statements: [
                // The outbox is also the delivery queue: a message waits as `queued` until a courier takes it
                // (`sending`, claimed until a time so that a crashed process's claim runs out), then is `sent`, or
                // `failed` after its last attempt; without a courier for its channel it is only `stored`.
                "ALTER TABLE outbox ADD COLUMN recipient_name TEXT",
                "ALTER TABLE outbox ADD COLUMN html TEXT",
                "ALTER TABLE outbox ADD COLUMN status TEXT NOT NULL DEFAULT 'stored'",
                "ALTER TABLE outbox ADD COLUMN attempts INTEGER NOT NULL DEFAULT 0",
                "ALTER TABLE outbox ADD COLUMN last_error TEXT",
                "ALTER TABLE outbox ADD COLUMN next_attempt_at {time}",
                "ALTER TABLE outbox ADD COLUMN claimed_until {time}",
                "ALTER TABLE outbox ADD COLUMN sent_at {time}",
                "CREATE INDEX outbox_queue ON outbox(status, next_attempt_at)",
            ]
        ),
        Step(
            name: "021_password_resets",
            statements: [
                // A link to set a new password: single use, 30 minutes, kept as a digest like every bearer secret.
                """
                CREATE TABLE password_resets (
                    token_hash TEXT PRIMARY KEY, user_id BIGINT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                    requested_by BIGINT REFERENCES users(id) ON DELETE SET NULL, expires_at {time} NOT NULL,
                    created_at {time} NOT NULL)
                """,
                "CREATE INDEX password_resets_user ON password_resets(user_id)",
                // Changes to a person's sign-in made other than by themselves in their profile: resets, by whom.
                """
                CREATE TABLE account_audit (
                    id {id}, user_id BIGINT NOT NULL REFERENCES users(id) ON DELETE CASCADE, action TEXT NOT NULL,
                    actor_id BIGINT REFERENCES users(id) ON DELETE SET NULL, actor_name TEXT NOT NULL,
                    at {time} NOT NULL)
                """,
                "CREATE INDEX account_audit_user ON account_audit(user_id, id)",
            ]
        ),
        Step(
            name: "022_phone_sign_in",
            statements: [
                // Only a number proved by a code signs in, and one person at most has proved each number.
                "ALTER TABLE users ADD COLUMN phone_confirmed_at {time}",
                "CREATE UNIQUE INDEX users_confirmed_phone ON users(phone) WHERE phone_confirmed_at IS NOT NULL",
                // A code texted to a number, to sign in or to confirm the number; only a keyed hash is stored.
                """
                CREATE TABLE phone_codes (
                    purpose TEXT NOT NULL, phone TEXT NOT NULL,
                    user_id BIGINT NOT NULL REFERENCES users(id) ON DELETE CASCADE, code_hash TEXT NOT NULL,
                    failures INTEGER NOT NULL, created_at {time} NOT NULL, expires_at {time} NOT NULL,
                    PRIMARY KEY (purpose, phone, user_id))
                """,
                // Keys the server makes for itself on first use, shared by every process.
                "CREATE TABLE server_keys (name TEXT PRIMARY KEY, secret {blob} NOT NULL, created_at {time} NOT NULL)",
            ]
        ),
        Step(
            name: "023_remembered_devices",
            statements: [
                // A browser remembered after a texted-code sign-in: the cookie's secret is kept as a digest, and the
                // sessions it starts name it, so that forgetting it signs them out too.
                """
                CREATE TABLE remembered_devices (
                    id {id}, user_id BIGINT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                    token_hash TEXT NOT NULL UNIQUE, phone TEXT NOT NULL, name TEXT NOT NULL,
                    created_at {time} NOT NULL, last_used_at {time}, expires_at {time} NOT NULL)
                """,
                "CREATE INDEX remembered_devices_user ON remembered_devices(user_id)",
                "ALTER TABLE access_tokens ADD COLUMN device_id BIGINT",
                "CREATE INDEX access_tokens_device ON access_tokens(device_id)",
            ]
        ),
        Step(
            name: "024_absence_notices",
            statements: [
                // Weekly notices to students below the absentee threshold, and the list to the teacher: on since
                // this moment, off when null.
                "ALTER TABLE courses ADD COLUMN absence_notices_since {time}",
                "ALTER TABLE enrollments ADD COLUMN absence_notices_off {bool} NOT NULL DEFAULT FALSE",
                // One row a course and week, written in the transaction that queues that week's notices: however
                // many processes look, a week's notices are queued once.
                """
                CREATE TABLE absence_notice_weeks (
                    course_id BIGINT NOT NULL REFERENCES courses(id) ON DELETE CASCADE, due_at {time} NOT NULL,
                    queued_at {time} NOT NULL, students INTEGER NOT NULL, PRIMARY KEY (course_id, due_at))
                """,
            ]
        ),
    ]

    /// Applies every step not yet applied, in order; safe to run at every start and from several processes.
    static func apply(to database: Database) async throws {
        try await database.write { sql in
            try await sql.raw(
                SQLQueryString(
                    "CREATE TABLE IF NOT EXISTS schema_migrations (name TEXT PRIMARY KEY, applied_at \(unsafeRaw: type("{time}", database.engine)) NOT NULL)"
                )
            ).run()
        }
        for step in steps {
            try await database.transaction { sql in
                let done = try await sql.select().column("name").from("schema_migrations")
                    .where("name", .equal, step.name).first()
                guard done == nil else { return }
                for statement in step.statements {
                    try await sql.raw(SQLQueryString(type(statement, database.engine))).run()
                }
                try await sql.insert(into: "schema_migrations").columns("name", "applied_at")
                    .values(SQLBind(step.name), SQLBind(Date())).run()
            }
        }
    }

    /// Replaces the placeholders with the engine's column types.
    static func type(_ statement: String, _ engine: Database.Engine) -> String {
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
