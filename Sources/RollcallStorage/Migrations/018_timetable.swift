extension Migrations {
    package static let step018Timetable = Step(
        name: "018_timetable",
        statements: [
            """
            CREATE TABLE timetable_slots (
                id {id}, course_id BIGINT NOT NULL REFERENCES courses(id) ON DELETE CASCADE,
                weekday INTEGER NOT NULL, time TEXT NOT NULL, minutes INTEGER NOT NULL, title TEXT NOT NULL,
                starts_on {time} NOT NULL, ends_on {time} NOT NULL, created_at {time} NOT NULL)
            """,
            "CREATE INDEX timetable_slots_course ON timetable_slots(course_id)",
            // A session scheduled by a timetable opens by itself at its time; one scheduled by hand waits.
            "ALTER TABLE sessions ADD COLUMN slot_id BIGINT REFERENCES timetable_slots(id) ON DELETE SET NULL",
            "CREATE INDEX sessions_due ON sessions(slot_id, opened_at, scheduled_at)",
        ]
    )
}
