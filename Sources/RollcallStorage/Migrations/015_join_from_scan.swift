extension Migrations {
    package static let step015JoinFromScan = Step(
        name: "015_join_from_scan",
        statements: [
            // A student not yet on the roster may join from a scan in the room, unless the teacher says no.
            "ALTER TABLE courses ADD COLUMN join_from_scan {bool} NOT NULL DEFAULT TRUE"
        ]
    )
}
