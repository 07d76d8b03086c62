extension Migrations {
    package static let step007Records = Step(
        name: "007_records",
        statements: [
            "ALTER TABLE courses ADD COLUMN points_present INTEGER NOT NULL DEFAULT 2",
            "ALTER TABLE courses ADD COLUMN points_late INTEGER NOT NULL DEFAULT 1",
            "ALTER TABLE courses ADD COLUMN points_excused INTEGER NOT NULL DEFAULT 1",
            "ALTER TABLE courses ADD COLUMN points_absent INTEGER NOT NULL DEFAULT 0",
            "ALTER TABLE courses ADD COLUMN mark_absent_on_close {bool} NOT NULL DEFAULT FALSE",
            "ALTER TABLE courses ADD COLUMN absentee_threshold INTEGER NOT NULL DEFAULT 80",
            """
            CREATE TABLE attendance_audit (
                id {id}, session_id BIGINT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
                student_id BIGINT NOT NULL REFERENCES users(id), changed_by BIGINT NOT NULL REFERENCES users(id),
                changed_at {time} NOT NULL, old_status TEXT, new_status TEXT NOT NULL,
                reason TEXT NOT NULL DEFAULT '')
            """,
            "CREATE INDEX attendance_audit_session ON attendance_audit(session_id)",
            "CREATE INDEX attendance_audit_student ON attendance_audit(student_id)",
            """
            CREATE TABLE course_invitations (
                course_id BIGINT NOT NULL REFERENCES courses(id) ON DELETE CASCADE, email TEXT NOT NULL,
                name TEXT NOT NULL, student_number TEXT, invited_by BIGINT NOT NULL REFERENCES users(id),
                invited_at {time} NOT NULL, PRIMARY KEY (course_id, email))
            """,
            "CREATE INDEX course_invitations_email ON course_invitations(email)",
        ]
    )
}
