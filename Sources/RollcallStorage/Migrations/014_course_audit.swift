extension Migrations {
    package static let step014CourseAudit = Step(
        name: "014_course_audit",
        statements: [
            // Sessions deleted or cancelled take their records with them; the course keeps this line of each.
            """
            CREATE TABLE course_audit (
                id {id}, course_id BIGINT NOT NULL REFERENCES courses(id) ON DELETE CASCADE,
                action TEXT NOT NULL, detail TEXT NOT NULL,
                actor_id BIGINT REFERENCES users(id) ON DELETE SET NULL, actor_name TEXT NOT NULL,
                at {time} NOT NULL)
            """,
            "CREATE INDEX course_audit_course ON course_audit(course_id, id)",
        ]
    )
}
