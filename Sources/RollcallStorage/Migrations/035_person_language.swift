extension Migrations {
    package static let step035PersonLanguage = Step(
        name: "035_person_language",
        statements: [
            // The language the person chose on their profile (a BCP 47 tag such as fr); their browser's while null.
            "ALTER TABLE users ADD COLUMN language TEXT"
        ]
    )
}
