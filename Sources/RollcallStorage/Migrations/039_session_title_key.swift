extension Migrations {
    package static let step039SessionTitleKey = Step(
        name: "039_session_title_key",
        statements: [
            // A title Rollcall made rather than a teacher typed: which one (`session_of`), said in the reader's
            // language from the session's moment when read. `title` keeps the English words, for what reads it raw.
            "ALTER TABLE sessions ADD COLUMN title_key TEXT"
        ]
    )
}
