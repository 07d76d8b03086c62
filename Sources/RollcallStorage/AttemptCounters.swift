import Foundation
import RollcallCore
import SQLKit

/// Counters behind every limit (sign-in failures, wrong typed codes, registrations and joins per address), kept in
/// the database so that every process counts the same attempts; each update reads and writes one counter in one
/// transaction, so concurrent attempts cannot all read the same stale count.
package struct AttemptCounters: Sendable {
    package let database: Database

    package init(database: Database) {
        self.database = database
    }

    /// What a limit counts: sign-in failures, typed codes, and so on; with the key, one counter.
    package enum Scope: String, Sendable {
        case signInAccount = "sign_in_account"
        case signInAddress = "sign_in_address"
        case typedCode = "typed_code"
        case registration
        case join
        case passkeyOptions = "passkey_options"
        case passwordResetAddress = "password_reset_address"
        case passwordResetEmail = "password_reset_email"
        case phoneCodeInterval = "phone_code_interval"
        case phoneCodeNumber = "phone_code_number"
        case phoneCodeAddress = "phone_code_address"
        case phoneCodeCheck = "phone_code_check"
        case proximityIDs = "proximity_ids"
        case proximityUploads = "proximity_uploads"
        /// A sign-in through the school or a platform's launch begun by someone not signed in, per address.
        case anonymousStart = "anonymous_start"
        /// Tries of one dynamic registration URL.
        case registrationTry = "registration_try"
    }

    /// A counter as stored.
    package struct Counter: Sendable, Equatable {
        package var count: Int
        package var since: Date
        package var last: Date

        package init(count: Int, since: Date, last: Date) {
            self.count = count
            self.since = since
            self.last = last
        }
    }

    /// Reads one counter, lets `next` decide its new value (`nil` removes it), writes that, and answers what `next`
    /// answered, all in one transaction.
    package func update<Result: Sendable>(
        _ scope: Scope, key: String, _ next: @escaping @Sendable (Counter?) -> (Counter?, Result)
    ) async throws -> Result {
        try await database.transaction { sql in
            let postgres = sql.dialect.name == "postgresql"
            if postgres {
                // A row to lock even for a first attempt; the SQLite transaction holds the database's write lock.
                try await sql.raw(
                    """
                    INSERT INTO attempt_counters (scope, key, count, since, last_at)
                    VALUES (\(bind: scope.rawValue), \(bind: key), 0, \(bind: Date.distantPast), \(bind: Date.distantPast))
                    ON CONFLICT (scope, key) DO NOTHING
                    """
                ).run()
            }
            let row = try await sql.raw(
                """
                SELECT count, since, last_at FROM attempt_counters
                WHERE scope = \(bind: scope.rawValue) AND key = \(bind: key)\(unsafeRaw: postgres ? " FOR UPDATE" : "")
                """
            ).first()
            let current = try row.map { row in
                Counter(
                    count: try row.decode(column: "count", as: Int.self),
                    since: try row.decode(column: "since", as: Date.self),
                    last: try row.decode(column: "last_at", as: Date.self))
            }
            let (new, result) = next(current.flatMap { $0.count > 0 ? $0 : nil })
            if new != current {
                if let new {
                    // In place, never deleted and inserted again: on PostgreSQL a transaction waiting for this row's
                    // lock follows an update, but skips a deleted row and would then insert a second one.
                    try await sql.raw(
                        """
                        INSERT INTO attempt_counters (scope, key, count, since, last_at)
                        VALUES (\(bind: scope.rawValue), \(bind: key), \(bind: new.count), \(bind: new.since), \(bind: new.last))
                        ON CONFLICT (scope, key) DO UPDATE
                        SET count = excluded.count, since = excluded.since, last_at = excluded.last_at
                        """
                    ).run()
                } else if postgres {
                    // Zeroed rather than deleted, for the same reason: a zero counts as none.
                    try await sql.update("attempt_counters").set("count", to: 0).where("scope", .equal, scope.rawValue)
                        .where("key", .equal, key).run()
                } else {
                    try await sql.delete(from: "attempt_counters").where("scope", .equal, scope.rawValue)
                        .where("key", .equal, key).run()
                }
            }
            return result
        }
    }

    /// Forgets a counter, as after a successful sign-in.
    package func reset(_ scope: Scope, key: String) async throws {
        try await database.write { sql in
            try await sql.delete(from: "attempt_counters").where("scope", .equal, scope.rawValue)
                .where("key", .equal, key).run()
        }
    }

    /// Counts one event under a fixed-window limit; throws `TooManyAttempts` when the key is over it.
    package func admit(_ scope: Scope, key: String, under limit: RateLimit, now: Date = Date(), refusal: Phrase)
        async throws
    {
        let retryAfter = try await update(scope, key: key) { current in
            let (count, retryAfter) = limit.admit(
                current.map { RateLimit.Count(count: $0.count, since: $0.since) }, now: now)
            return (Counter(count: count.count, since: count.since, last: now), retryAfter)
        }
        if let retryAfter {
            throw TooManyAttempts(retryAfter: Int(retryAfter), message: refusal)
        }
    }
}
