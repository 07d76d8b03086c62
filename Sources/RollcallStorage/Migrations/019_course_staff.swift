extension Migrations {
    package static let step019CourseStaff = Step(
        name: "019_course_staff",
        statements: [
            // Co-teachers manage the course as its teacher does; assistants see its rooms and mark attendance.
            """
            CREATE TABLE course_staff (
                course_id BIGINT NOT NULL REFERENCES courses(id) ON DELETE CASCADE,
                user_id BIGINT NOT NULL REFERENCES users(id) ON DELETE CASCADE, role TEXT NOT NULL,
                added_at {time} NOT NULL, PRIMARY KEY (course_id, user_id))
            """,
            "CREATE INDEX course_staff_user ON course_staff(user_id)",
        ]
    )
}
