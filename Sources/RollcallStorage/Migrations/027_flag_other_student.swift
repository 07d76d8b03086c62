extension Migrations {
    package static let step027FlagOtherStudent = Step(
        name: "027_flag_other_student",
        statements: [
            // The second student a flag names, such as the phone's owner when another tried to check in from it:
            // "Flagged" in the room shows both.
            "ALTER TABLE flags ADD COLUMN other_student_id BIGINT REFERENCES users(id)"
        ]
    )
}
