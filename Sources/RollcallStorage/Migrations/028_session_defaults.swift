extension Migrations {
    package static let step028SessionDefaults = Step(
        name: "028_session_defaults",
        statements: [
            // A course's check-in settings for new sessions (a `SessionSettingsDraft` as JSON): what the teacher
            // leaves out when opening or timetabling a session comes from here.
            "ALTER TABLE courses ADD COLUMN session_defaults TEXT"
        ]
    )
}
