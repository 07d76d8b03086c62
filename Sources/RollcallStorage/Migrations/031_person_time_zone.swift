extension Migrations {
    package static let step031PersonTimeZone = Step(
        name: "031_person_time_zone",
        statements: [
            // The zone a person's pages not tied to a course are written in: the browser's, set on the first visit,
            // until they choose another on their profile; the server's while null.
            "ALTER TABLE users ADD COLUMN time_zone TEXT"
        ]
    )
}
