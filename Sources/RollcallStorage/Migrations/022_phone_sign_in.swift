extension Migrations {
    package static let step022PhoneSignIn = Step(
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
    )
}
