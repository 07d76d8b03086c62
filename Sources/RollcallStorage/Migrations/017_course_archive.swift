extension Migrations {
    package static let step017CourseArchive = Step(
        name: "017_course_archive",
        statements: [
            // An archived course keeps its records and takes no new sessions nor students.
            "ALTER TABLE courses ADD COLUMN archived_at {time}"
        ]
    )
}
