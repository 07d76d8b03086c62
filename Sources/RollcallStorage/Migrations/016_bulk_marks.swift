extension Migrations {
    package static let step016BulkMarks = Step(
        name: "016_bulk_marks",
        statements: [
            // A note for the teacher only, beside the reason the student sees.
            "ALTER TABLE attendance ADD COLUMN note TEXT NOT NULL DEFAULT ''",
            "ALTER TABLE attendance_audit ADD COLUMN note TEXT NOT NULL DEFAULT ''",
            // One teacher's change of many students at once, so that it can be undone as one.
            """
            CREATE TABLE attendance_batches (
                id {id}, session_id BIGINT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
                created_by BIGINT NOT NULL REFERENCES users(id), created_at {time} NOT NULL,
                status TEXT NOT NULL, reason TEXT NOT NULL DEFAULT '', changed INTEGER NOT NULL DEFAULT 0,
                undone_by BIGINT REFERENCES users(id), undone_at {time})
            """,
            "CREATE INDEX attendance_batches_session ON attendance_batches(session_id, id)",
            "ALTER TABLE attendance_audit ADD COLUMN batch_id BIGINT REFERENCES attendance_batches(id)",
        ]
    )
}
