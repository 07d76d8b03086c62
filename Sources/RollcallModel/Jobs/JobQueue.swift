import Foundation
import RollcallStorage
import SQLKit

/// The `jobs` table as a durable queue: queuing (a newer job of a key takes the waiting one's place), claiming the
/// next job due under a lease, and recording how its attempt went.
///
/// A job is claimed in a transaction (`running`, until its lease runs out) before its work starts and marked `done`
/// right after, so that no other process, and no later start of this one, does it again; only a process that dies
/// between the work and that mark leaves a claim that runs out and is tried again. Jobs of one key run one at a time,
/// oldest first: a job waits while an older one of its key is still open, even one that another process holds.
package struct JobQueue: Sendable {
    package let database: Database
    /// Wakes the runner as soon as a job is queued.
    package var bell: DeliveryBell?

    package init(database: Database, bell: DeliveryBell? = nil) {
        self.database = database
        self.bell = bell
    }

    /// Queues `jobs` together, or none of them.
    package func enqueue(_ jobs: [NewJob], now: Date = Date()) async throws {
        guard !jobs.isEmpty else { return }
        try await database.transaction { sql in try await Self.enqueue(jobs, in: sql, now: now) }
        bell?.ring()
    }

    /// Queues `jobs` in a transaction under way, so that they are kept with what it writes, or not at all.
    package static func enqueue(_ jobs: [NewJob], in sql: any SQLDatabase, now: Date = Date()) async throws {
        for job in jobs {
            try await sql.raw(
                """
                INSERT INTO jobs (kind, key, payload, status, attempts, next_attempt_at, course_id, user_id,
                    created_at, updated_at)
                VALUES (\(bind: job.kind), \(bind: job.key), \(bind: job.payload), 'pending', 0, \(bind: now),
                    \(bind: job.courseID), \(bind: job.userID), \(bind: now), \(bind: now))
                ON CONFLICT (kind, key) WHERE status = 'pending' DO UPDATE SET
                    payload = excluded.payload, attempts = 0, last_error = NULL,
                    next_attempt_at = excluded.next_attempt_at, course_id = excluded.course_id,
                    user_id = excluded.user_id, updated_at = excluded.updated_at
                """
            ).run()
        }
    }

    /// Claims the oldest job due of one of `kinds` for `lease` seconds: one waiting, or one whose claim ran out, and
    /// no older job of its key still open.
    package func claim(kinds: [String], now: Date = Date(), lease: TimeInterval) async throws -> Job? {
        guard !kinds.isEmpty else { return nil }
        return try await database.transaction { sql in
            let postgres = sql.dialect.name == "postgresql"
            let row = try await sql.raw(
                """
                SELECT job.id FROM jobs AS job
                WHERE job.kind IN (\(binds: kinds))
                  AND ((job.status = 'pending' AND job.next_attempt_at <= \(bind: now))
                    OR (job.status = 'running' AND job.claimed_until < \(bind: now)))
                  AND NOT EXISTS (\(unsafeRaw: Self.olderOpen))
                ORDER BY job.next_attempt_at, job.id LIMIT 1\(unsafeRaw: postgres ? " FOR UPDATE SKIP LOCKED" : "")
                """
            ).first()
            guard let id = try row?.decode(column: "id", as: Int64.self) else { return nil }
            try await sql.raw(
                """
                UPDATE jobs SET status = 'running', attempts = attempts + 1,
                  claimed_until = \(bind: now.addingTimeInterval(lease)), updated_at = \(bind: now)
                WHERE id = \(bind: id)
                """
            ).run()
            return try await sql.select().column("*").from("jobs").where("id", .equal, id)
                .first(decoding: Job.self, with: .rollcall)
        }
    }

    /// The condition, on a job aliased `job`, that an older job of its kind and key is still open.
    private static let olderOpen = """
        SELECT 1 FROM jobs AS older
        WHERE older.kind = job.kind AND older.key = job.key AND older.id < job.id
          AND older.status IN ('pending', 'running')
        """

    /// The job's work is done.
    package func markDone(id: Int64, at now: Date = Date()) async throws {
        try await database.write { sql in
            try await sql.update("jobs").set("status", to: JobStatus.done.rawValue)
                .set("claimed_until", to: SQLLiteral.null).set("next_attempt_at", to: SQLLiteral.null)
                .set("last_error", to: SQLLiteral.null).set("updated_at", to: SQLBind(now))
                .where("id", .equal, id).run()
        }
    }

    /// The attempt failed: the job waits until `retryAt`, or, without one, has failed for good. A job that was
    /// running when a newer one of its key was queued is not tried again: the newer one does its work, as it would
    /// have had the older still been waiting, so that older work never lands after newer.
    package func markFailed(id: Int64, error message: String, retryAt: Date?, now: Date = Date()) async throws {
        do {
            try await recordFailure(id: id, message: message, retryAt: retryAt, now: now, newerWaits: nil)
        } catch  where database.isUniqueViolation(error, index: "jobs_waiting") {
            // A newer job of the key was queued while this one was being put back to wait.
            try await recordFailure(id: id, message: message, retryAt: retryAt, now: now, newerWaits: true)
        }
    }

    private func recordFailure(id: Int64, message: String, retryAt: Date?, now: Date, newerWaits: Bool?)
        async throws
    {
        try await database.transaction { sql in
            var newer = newerWaits ?? false
            if newerWaits == nil, retryAt != nil { newer = try await Self.hasNewer(id, in: sql) }
            let status: JobStatus = retryAt == nil ? .failed : newer ? .superseded : .pending
            let next = status == .pending ? retryAt : nil
            try await sql.update("jobs").set("status", to: status.rawValue)
                .set("last_error", to: SQLBind(String(message.prefix(1000))))
                .set("next_attempt_at", to: next.map { SQLBind($0) as any SQLExpression } ?? SQLLiteral.null)
                .set("claimed_until", to: SQLLiteral.null).set("updated_at", to: SQLBind(now))
                .where("id", .equal, id).run()
        }
    }

    /// Whether a newer job of job `id`'s kind and key has been queued since.
    private static func hasNewer(_ id: Int64, in sql: any SQLDatabase) async throws -> Bool {
        try await sql.raw(
            """
            SELECT newer.id FROM jobs AS job JOIN jobs AS newer
              ON newer.kind = job.kind AND newer.key = job.key AND newer.id > job.id
            WHERE job.id = \(bind: id) AND newer.status IN ('pending', 'running')
            LIMIT 1
            """
        ).first() != nil
    }

    /// When the next waiting job of `kinds` falls due, if one waits that no older job of its key holds back.
    package func nextDue(kinds: [String]) async throws -> Date? {
        guard !kinds.isEmpty else { return nil }
        return try await database.read { sql in
            let row = try await sql.raw(
                """
                SELECT MIN(job.next_attempt_at) AS due FROM jobs AS job
                WHERE job.kind IN (\(binds: kinds)) AND job.status = 'pending'
                  AND NOT EXISTS (\(unsafeRaw: Self.olderOpen))
                """
            ).first()
            return try row?.decode(column: "due", as: Date?.self)
        }
    }
}
