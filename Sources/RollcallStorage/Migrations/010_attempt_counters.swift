extension Migrations {
    package static let step010AttemptCounters = Step(
        name: "010_attempt_counters",
        statements: [
            // Every limit in one table, counted in the database so that every process shares it.
            """
            CREATE TABLE attempt_counters (
                scope TEXT NOT NULL, key TEXT NOT NULL, count INTEGER NOT NULL, since {time} NOT NULL,
                last_at {time} NOT NULL, PRIMARY KEY (scope, key))
            """,
            "DROP TABLE sign_in_failures",
        ]
    )
}
