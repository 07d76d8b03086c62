extension Migrations {
    package static let step037HeardAnnounced = Step(
        name: "037_heard_announced",
        statements: [
            // A "heard by" row counts in the room once the heard classmate has checked in themselves; until then it
            // waits, unannounced. Rows from before counted at once, so they stay announced.
            "ALTER TABLE session_proximity ADD COLUMN announced {bool} NOT NULL DEFAULT TRUE"
        ]
    )
}
