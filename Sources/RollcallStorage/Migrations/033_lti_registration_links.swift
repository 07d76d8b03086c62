extension Migrations {
    package static let step033LTIRegistrationLinks = Step(
        name: "033_lti_registration_links",
        statements: [
            // A link an admin made for a platform's dynamic registration: its secret's digest, used once, within an hour.
            """
            CREATE TABLE lti_registration_links (
                secret_hash TEXT PRIMARY KEY, created_by BIGINT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                expires_at {time} NOT NULL)
            """
        ]
    )
}
