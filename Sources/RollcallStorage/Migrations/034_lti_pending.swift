extension Migrations {
    package static let step034LTIPending = Step(
        name: "034_lti_pending",
        statements: [
            // A launch that waits for its person's answer: whether to link an account Rollcall has for their address
            // (`account`), or which of their courses the platform's course is (`course`). Once, briefly.
            """
            CREATE TABLE lti_pending (
                code_hash TEXT PRIMARY KEY, kind TEXT NOT NULL,
                platform_id BIGINT NOT NULL REFERENCES lti_platforms(id) ON DELETE CASCADE,
                user_id BIGINT REFERENCES users(id) ON DELETE CASCADE, launch TEXT NOT NULL,
                expires_at {time} NOT NULL)
            """
        ]
    )
}
