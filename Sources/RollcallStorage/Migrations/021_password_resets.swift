extension Migrations {
    package static let step021PasswordResets = Step(
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
    )
}
