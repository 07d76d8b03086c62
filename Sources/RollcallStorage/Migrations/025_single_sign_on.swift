extension Migrations {
    package static let step025SingleSignOn = Step(
        name: "025_single_sign_on",
        statements: [
            // A person at the school's provider, by issuer and subject (never by address), and their account.
            """
            CREATE TABLE sso_identities (
                issuer TEXT NOT NULL, subject TEXT NOT NULL,
                user_id BIGINT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                created_at {time} NOT NULL, last_sign_in_at {time} NOT NULL, PRIMARY KEY (issuer, subject))
            """,
            "CREATE INDEX sso_identities_user ON sso_identities(user_id)",
            // A sign-in under way: only digests of its state and of the browser's cookie, its nonce and PKCE
            // verifier, where to go afterwards, and the signed-in account it links, if any. Used once.
            """
            CREATE TABLE sso_sign_ins (
                state_hash TEXT PRIMARY KEY, browser_hash TEXT NOT NULL, nonce TEXT NOT NULL,
                verifier TEXT NOT NULL, next TEXT, link_user_id BIGINT REFERENCES users(id) ON DELETE CASCADE,
                expires_at {time} NOT NULL)
            """,
            // Where an account's role came from: its own registration, the school's sign-in, or an admin.
            "ALTER TABLE users ADD COLUMN role_source TEXT NOT NULL DEFAULT 'registration'",
        ]
    )
}
