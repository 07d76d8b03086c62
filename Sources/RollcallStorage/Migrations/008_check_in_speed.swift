extension Migrations {
    package static let step008CheckInSpeed = Step(
        name: "008_check_in_speed",
        statements: [
            // Tickets are signed by their session now; a ticket scanned signed out is bound to its first
            // student by the check-in that used it, and the unique index lets no second check-in use it.
            "DROP TABLE check_in_tickets",
            "ALTER TABLE check_in_evidence ADD COLUMN ticket_hash TEXT",
            "CREATE UNIQUE INDEX check_in_evidence_ticket ON check_in_evidence(ticket_hash)",
        ]
    )
}
