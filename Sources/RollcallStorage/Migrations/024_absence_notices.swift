extension Migrations {
    package static let step024AbsenceNotices = Step(
        name: "024_absence_notices",
        statements: [
            // Weekly notices to students below the absentee threshold, and the list to the teacher: on since
            // this moment, off when null.
            "ALTER TABLE courses ADD COLUMN absence_notices_since {time}",
            "ALTER TABLE enrollments ADD COLUMN absence_notices_off {bool} NOT NULL DEFAULT FALSE",
            // One row a course and week, written in the transaction that queues that week's notices: however
            // many processes look, a week's notices are queued once.
            """
            CREATE TABLE absence_notice_weeks (
                course_id BIGINT NOT NULL REFERENCES courses(id) ON DELETE CASCADE, due_at {time} NOT NULL,
                queued_at {time} NOT NULL, students INTEGER NOT NULL, PRIMARY KEY (course_id, due_at))
            """,
        ]
    )
}
