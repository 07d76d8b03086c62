extension Migrations {
    package static let step036Federation = Step(
        name: "036_federation",
        statements: [
            // The school's ID token of a session signed in through the school, for signing out there too
            // (`id_token_hint`); it goes with the session.
            "ALTER TABLE access_tokens ADD COLUMN id_token TEXT",
            // Anonymous starts are purged by their expiry: an index, not a scan of every row.
            "CREATE INDEX sso_sign_ins_expires ON sso_sign_ins(expires_at)",
            "CREATE INDEX lti_logins_expires ON lti_logins(expires_at)",
            "CREATE INDEX lti_handoffs_expires ON lti_handoffs(expires_at)",
            // The placed link whose launch linked the course, for the line item Rollcall makes (platforms show
            // learners only the grades of a column bound to it), and the gradebook scopes the launches offered.
            "ALTER TABLE lti_courses ADD COLUMN resource_link_id TEXT",
            "ALTER TABLE lti_courses ADD COLUMN grade_scopes TEXT",
            // A framed launch without cookies continues in a window of its own by logging in at the platform again
            // there: the platform, not a link, says who that browser is.
            "ALTER TABLE lti_logins ADD COLUMN login_hint TEXT",
            "ALTER TABLE lti_logins ADD COLUMN message_hint TEXT",
            "ALTER TABLE lti_handoffs ADD COLUMN platform_id BIGINT REFERENCES lti_platforms(id) ON DELETE CASCADE",
            "ALTER TABLE lti_handoffs ADD COLUMN login_hint TEXT",
            "ALTER TABLE lti_handoffs ADD COLUMN message_hint TEXT",
        ]
    )
}
