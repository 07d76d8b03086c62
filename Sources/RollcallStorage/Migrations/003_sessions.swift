extension Migrations {
    package static let step003Sessions = Step(
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
    )
}
