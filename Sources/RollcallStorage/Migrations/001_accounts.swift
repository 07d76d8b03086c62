extension Migrations {
    package static let step001Accounts = Step(
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
    )
}
