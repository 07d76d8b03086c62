extension Migrations {
    package static let step004CheckIn = Step(
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
    )
}
