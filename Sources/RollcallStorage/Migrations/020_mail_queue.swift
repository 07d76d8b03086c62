extension Migrations {
    package static let step020MailQueue = Step(
        name: "020_mail_queue",
        statements: [
            // The outbox is also the delivery queue: a message waits as `queued` until a courier takes it
            // (`sending`, claimed until a time so that a crashed process's claim runs out), then is `sent`, or
            // `failed` after its last attempt; without a courier for its channel it is only `stored`.
            "ALTER TABLE outbox ADD COLUMN recipient_name TEXT",
            "ALTER TABLE outbox ADD COLUMN html TEXT",
            "ALTER TABLE outbox ADD COLUMN status TEXT NOT NULL DEFAULT 'stored'",
            "ALTER TABLE outbox ADD COLUMN attempts INTEGER NOT NULL DEFAULT 0",
            "ALTER TABLE outbox ADD COLUMN last_error TEXT",
            "ALTER TABLE outbox ADD COLUMN next_attempt_at {time}",
            "ALTER TABLE outbox ADD COLUMN claimed_until {time}",
            "ALTER TABLE outbox ADD COLUMN sent_at {time}",
            "CREATE INDEX outbox_queue ON outbox(status, next_attempt_at)",
        ]
    )
}
