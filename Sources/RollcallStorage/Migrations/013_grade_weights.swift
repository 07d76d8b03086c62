extension Migrations {
    package static let step013GradeWeights = Step(
        name: "013_grade_weights",
        statements: [
            // The share of the course grade that quizzes make; existing courses keep attendance alone.
            "ALTER TABLE courses ADD COLUMN quiz_weight INTEGER NOT NULL DEFAULT 0"
        ]
    )
}
