extension Migrations {
    package static let step009ExposureAndRetention = Step(
        name: "009_exposure_and_retention",
        statements: [
            // A role granted on top of a person's own; a deleted person's row stays, emptied, for their counts.
            "ALTER TABLE users ADD COLUMN health_officer {bool} NOT NULL DEFAULT FALSE",
            "ALTER TABLE users ADD COLUMN deleted_at {time}",
            """
            CREATE TABLE exposure_reports (
                id {id}, requested_by BIGINT NOT NULL REFERENCES users(id),
                person_id BIGINT NOT NULL REFERENCES users(id), reason TEXT NOT NULL,
                window_from {time} NOT NULL, window_until {time} NOT NULL, created_at {time} NOT NULL)
            """,
            "CREATE INDEX exposure_reports_person ON exposure_reports(person_id)",
            // The retention service deletes by age.
            "CREATE INDEX check_in_evidence_created ON check_in_evidence(created_at)",
            "CREATE INDEX device_bindings_created ON device_bindings(created_at)",
            "CREATE INDEX flags_created ON flags(created_at)",
        ]
    )
}
