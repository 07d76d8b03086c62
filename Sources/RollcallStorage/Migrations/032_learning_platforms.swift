extension Migrations {
    package static let step032LearningPlatforms = Step(
        name: "032_learning_platforms",
        statements: [
            // A learning platform an admin registered: its LTI 1.3 endpoints and the deployments it may launch from.
            """
            CREATE TABLE lti_platforms (
                id {id}, name TEXT NOT NULL, issuer TEXT NOT NULL, client_id TEXT NOT NULL,
                deployment_ids TEXT NOT NULL, authorization_url TEXT NOT NULL, token_url TEXT NOT NULL,
                jwks_url TEXT NOT NULL, created_at {time} NOT NULL, UNIQUE (issuer, client_id))
            """,
            // Rollcall's own RSA keys: the one in slot `current` signs, retired ones stay published until removed, so
            // that a platform holding a cached key set still verifies what was signed before a rotation.
            """
            CREATE TABLE lti_tool_keys (
                kid TEXT PRIMARY KEY, private_pem TEXT NOT NULL, slot TEXT UNIQUE, created_at {time} NOT NULL)
            """,
            // A login initiation waiting for its launch: the state's digest, once, and the nonce the token must carry.
            """
            CREATE TABLE lti_logins (
                state_hash TEXT PRIMARY KEY,
                platform_id BIGINT NOT NULL REFERENCES lti_platforms(id) ON DELETE CASCADE,
                browser_hash TEXT NOT NULL, nonce TEXT NOT NULL, expires_at {time} NOT NULL)
            """,
            // A platform's person, known by issuer and subject: never by address alone.
            """
            CREATE TABLE lti_identities (
                platform_id BIGINT NOT NULL REFERENCES lti_platforms(id) ON DELETE CASCADE, subject TEXT NOT NULL,
                user_id BIGINT NOT NULL REFERENCES users(id) ON DELETE CASCADE, created_at {time} NOT NULL,
                PRIMARY KEY (platform_id, subject))
            """,
            "CREATE INDEX lti_identities_user ON lti_identities(user_id)",
            // A platform's course linked to one of Rollcall's, with its services and how far its grades were sent.
            """
            CREATE TABLE lti_courses (
                id {id}, platform_id BIGINT NOT NULL REFERENCES lti_platforms(id) ON DELETE CASCADE,
                context_id TEXT NOT NULL, course_id BIGINT NOT NULL REFERENCES courses(id) ON DELETE CASCADE,
                deployment_id TEXT NOT NULL, title TEXT NOT NULL, memberships_url TEXT, line_items_url TEXT,
                line_item_url TEXT, graded_through {time}, synced_at {time}, created_at {time} NOT NULL,
                UNIQUE (platform_id, context_id))
            """,
            // One platform course per Rollcall course: its roster and grades come from, and go to, one place.
            "CREATE UNIQUE INDEX lti_courses_course ON lti_courses(course_id)",
            // A launch handed to a new window where the platform's frame could not keep Rollcall's cookie: once, briefly.
            """
            CREATE TABLE lti_handoffs (
                code_hash TEXT PRIMARY KEY, user_id BIGINT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                next TEXT NOT NULL, expires_at {time} NOT NULL)
            """,
        ]
    )
}
