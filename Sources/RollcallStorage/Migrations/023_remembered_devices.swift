extension Migrations {
    package static let step023RememberedDevices = Step(
        name: "023_remembered_devices",
        statements: [
            // A browser remembered after a texted-code sign-in: the cookie's secret is kept as a digest, and the
            // sessions it starts name it, so that forgetting it signs them out too.
            """
            CREATE TABLE remembered_devices (
                id {id}, user_id BIGINT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                token_hash TEXT NOT NULL UNIQUE, phone TEXT NOT NULL, name TEXT NOT NULL,
                created_at {time} NOT NULL, last_used_at {time}, expires_at {time} NOT NULL)
            """,
            "CREATE INDEX remembered_devices_user ON remembered_devices(user_id)",
            "ALTER TABLE access_tokens ADD COLUMN device_id BIGINT",
            "CREATE INDEX access_tokens_device ON access_tokens(device_id)",
        ]
    )
}
