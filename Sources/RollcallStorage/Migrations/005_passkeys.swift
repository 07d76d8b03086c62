extension Migrations {
    package static let step005Passkeys = Step(
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
    )
}
