extension Migrations {
    package static let step030Proximity = Step(
        name: "030_proximity",
        statements: [
            // The phones' own evidence is opt-in: on since this moment, off when null.
            "ALTER TABLE users ADD COLUMN proximity_since {time}",
            // Pseudo-IDs as issued: random, so nothing links two of them or one to the person but this row, and
            // kept as a keyed hash, so the table alone does not tell which broadcast was whose.
            """
            CREATE TABLE proximity_ids (
                id {id}, user_id BIGINT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                id_hash TEXT NOT NULL UNIQUE, window_start {time} NOT NULL, issued_at {time} NOT NULL)
            """,
            "CREATE INDEX proximity_ids_user ON proximity_ids(user_id, window_start)",
            // A health officer's request that the person of a report upload what their phone heard; the upload
            // that answers it says so.
            """
            CREATE TABLE proximity_requests (
                id {id}, report_id BIGINT NOT NULL UNIQUE REFERENCES exposure_reports(id),
                person_id BIGINT NOT NULL REFERENCES users(id), requested_by BIGINT NOT NULL REFERENCES users(id),
                created_at {time} NOT NULL, answered_at {time})
            """,
            """
            CREATE TABLE proximity_uploads (
                id {id}, user_id BIGINT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                request_id BIGINT REFERENCES proximity_requests(id), received INTEGER NOT NULL,
                kept INTEGER NOT NULL, unknown INTEGER NOT NULL, created_at {time} NOT NULL)
            """,
            // What one phone heard of one pseudo-ID: the pseudo-ID's row, not the person, so that who it was is
            // read only inside a report. Uploading the same encounter again merges into this row.
            """
            CREATE TABLE proximity_encounters (
                uploader_id BIGINT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                pseudo_id BIGINT NOT NULL REFERENCES proximity_ids(id) ON DELETE CASCADE,
                first_seen {time} NOT NULL, last_seen {time} NOT NULL, signal INTEGER NOT NULL,
                PRIMARY KEY (uploader_id, pseudo_id))
            """,
            "CREATE INDEX proximity_encounters_pseudo ON proximity_encounters(pseudo_id)",
            // In a session that asks for it: which classmates' phones heard a student's, from their check-ins.
            """
            CREATE TABLE session_proximity (
                session_id BIGINT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
                student_id BIGINT NOT NULL REFERENCES users(id), heard_by BIGINT NOT NULL REFERENCES users(id),
                created_at {time} NOT NULL, PRIMARY KEY (session_id, student_id, heard_by))
            """,
        ]
    )
}
