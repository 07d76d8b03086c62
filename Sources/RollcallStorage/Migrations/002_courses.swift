extension Migrations {
    package static let step002Courses = Step(
        name: "002_courses",
        statements: [
            """
            CREATE TABLE courses (
                id {id}, teacher_id BIGINT NOT NULL REFERENCES users(id), name TEXT NOT NULL,
                description TEXT NOT NULL DEFAULT '', planned_sessions INTEGER, join_code TEXT NOT NULL UNIQUE,
                poster_id BIGINT REFERENCES images(id), created_at {time} NOT NULL)
            """,
            "CREATE INDEX courses_teacher ON courses(teacher_id)",
            """
            CREATE TABLE enrollments (
                course_id BIGINT NOT NULL REFERENCES courses(id) ON DELETE CASCADE,
                student_id BIGINT NOT NULL REFERENCES users(id), joined_at {time} NOT NULL,
                PRIMARY KEY (course_id, student_id))
            """,
            "CREATE INDEX enrollments_student ON enrollments(student_id)",
        ]
    )
}
