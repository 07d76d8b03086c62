extension Migrations {
    package static let step038FirstLanguage = Step(
        name: "038_first_language",
        statements: [
            // The language the person first acted in (registered, signed in): the one their letters are written in
            // while they choose none, as their browser is not there when a letter leaves.
            "ALTER TABLE users ADD COLUMN first_language TEXT"
        ]
    )
}
