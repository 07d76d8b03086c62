extension Migrations {
    package static let step006SessionEvents = Step(
        name: "006_session_events",
        statements: [
            // A session's live views replay this log by id after reconnecting; see `SessionEvents`.
            """
            CREATE TABLE session_events (
                id {id}, session_id BIGINT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
                kind TEXT NOT NULL, payload TEXT NOT NULL, created_at {time} NOT NULL)
            """,
            "CREATE INDEX session_events_session ON session_events(session_id, id)",
        ]
    )
}
