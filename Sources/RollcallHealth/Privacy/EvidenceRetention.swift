import Foundation
import Logging
import RollcallCore
import RollcallModel
import RollcallProtocol
import RollcallStorage
import SQLKit
import ServiceLifecycle

/// Deletes evidence older than the retention period, once at start (after the migrations) and then every day.
///
/// Aged out: location readings, device ids and client addresses (`check_in_evidence`, `device_bindings`), the phones'
/// pseudo-IDs and encounters, the room's "heard by" counts and `heard` events, passkey verifications, flags (quiz
/// flags too) and their live events, the outbox and finished jobs, sign-in failures, and expired challenges, tokens
/// and confirmation links. Kept: attendance records, their audit, exposure-report audit entries, courses and grades.
/// Scan tickets are signed, not stored, so there is nothing of them to delete.
package struct EvidenceRetention: Service {
    package let database: Database
    package let days: Int
    package let logger: Logger
    /// Opens when the schema is in place; the first purge waits for it.
    package let ready: SchemaReady
    package var interval: Duration = .seconds(86_400)
    package var now: @Sendable () -> Date = { Date() }

    package init(
        database: Database, days: Int, logger: Logger, ready: SchemaReady, interval: Duration = .seconds(86_400),
        now: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.database = database
        self.days = days
        self.logger = logger
        self.ready = ready
        self.interval = interval
        self.now = now
    }

    /// Every table that holds evidence, and the column its age is read from.
    package static let evidence: [(table: String, column: String)] = [
        ("check_in_evidence", "created_at"), ("device_bindings", "created_at"),
        ("passkey_verifications", "created_at"), ("flags", "created_at"),
        ("attempt_counters", "last_at"), ("quiz_flags", "received_at"),
        // The phones' evidence: what was heard, by when it was last heard; pseudo-IDs by their window (what anyone
        // heard of them goes with them); a session's "heard by" counts; and the uploads' counts.
        ("proximity_encounters", "last_seen"), ("proximity_ids", "window_start"), ("session_proximity", "created_at"),
        ("proximity_uploads", "created_at"),
    ]

    package func run() async throws {
        // A purge cut short by a stop is finished by the next start.
        try await Periodically(name: "evidence-retention", interval: interval, ready: ready, logger: logger) {
            try await Self.purge(database, days: days, now: now())
            logger.info("evidence older than \(days) days deleted")
        }.run()
    }

    /// Deletes what is older than `days` before `now`, and whatever has expired. Each deletion is a statement of
    /// its own: nothing here needs to be atomic, and no lock is held between them while other writers wait.
    package static func purge(_ database: Database, days: Int, now: Date) async throws {
        let cutoff = Retention.cutoff(now: now, days: days)
        for (table, column) in evidence {
            try await database.write { sql in
                try await sql.delete(from: table).where(SQLColumn(column), .lessThan, SQLBind(cutoff)).run()
            }
        }
        // A message still waiting for delivery is not old evidence but work to do.
        try await database.write { sql in
            try await sql.delete(from: "outbox").where("created_at", .lessThan, SQLBind(cutoff))
                .where("status", .notIn, SQLBind.group(["queued", "sending"])).run()
        }
        try await database.write { sql in
            try await sql.delete(from: "jobs").where("updated_at", .lessThan, SQLBind(cutoff))
                .where("status", .notIn, SQLBind.group(JobStatus.open.map(\.rawValue))).run()
        }
        // A flag's live event repeats its detail, and a `heard` event names whose phone heard whose.
        try await database.write { sql in
            try await sql.delete(from: "session_events")
                .where("kind", .in, SQLBind.group([SessionEventKind.flagged, .heard].map(\.rawValue)))
                .where("created_at", .lessThan, SQLBind(cutoff)).run()
        }
        try await database.write { sql in
            try await sql.delete(from: "quiz_events").where("kind", .equal, QuizEventKind.flagged.rawValue)
                .where("created_at", .lessThan, SQLBind(cutoff)).run()
        }
        for table in [
            "passkey_challenges", "access_tokens", "email_verifications", "password_resets", "phone_codes",
            "remembered_devices",
        ] {
            try await database.write { sql in
                try await sql.delete(from: table).where("expires_at", .lessThan, SQLBind(now)).run()
            }
        }
    }
}
