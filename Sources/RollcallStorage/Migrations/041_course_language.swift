extension Migrations {
    package static let step041CourseLanguage = Step(
        name: "041_course_language",
        statements: [
            // The language the course's teacher writes its content in (name, description, quizzes, session titles),
            // which pages mark with `lang` where it is not the reader's; empty for a course made before it was kept.
            "ALTER TABLE courses ADD COLUMN language TEXT"
        ]
    )
}
