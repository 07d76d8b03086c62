extension Migrations {
    package static let step012Quizzes = Step(
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
    )
}
