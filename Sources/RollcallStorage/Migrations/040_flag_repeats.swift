extension Migrations {
    package static let step040FlagRepeats = Step(
        name: "040_flag_repeats",
        statements: [
            // The client ids of reports folded into a flag once an attempt's flags flood: a report sent again is
            // recognised by its id and not counted twice. They go with their flag (erasure, retention).
            """
            CREATE TABLE quiz_flag_repeats (
                flag_id BIGINT NOT NULL REFERENCES quiz_flags(id) ON DELETE CASCADE,
                attempt_id BIGINT NOT NULL, client_id TEXT NOT NULL, PRIMARY KEY (attempt_id, client_id))
            """,
            "CREATE INDEX quiz_flag_repeats_flag ON quiz_flag_repeats(flag_id)",
        ]
    )
}
