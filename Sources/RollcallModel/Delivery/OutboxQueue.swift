import Foundation
import NIOConcurrencyHelpers
import RollcallStorage
import SQLKit

/// The outbox seen as a queue: claiming the next message due, and recording how its delivery went.
///
/// A message is claimed in a transaction (`sending`, until a lease runs out) before it is handed over and marked
/// `sent` right after, so that no other process, and no later start of this one, sends it again. Only a process
/// that dies between the server's acceptance and that mark leaves a claim that runs out and is tried again.
package struct OutboxQueue: Sendable {
    package let database: Database

    package init(database: Database) {
        self.database = database
    }

    /// Claims the oldest message due on one of `channels`, queued or with a claim that ran out, for `lease` seconds.
    package func claim(channels: [MessageChannel], now: Date = Date(), lease: TimeInterval) async throws
        -> OutboxMessage?
    {
        guard !channels.isEmpty else { return nil }
        return try await database.transaction { sql in
            let postgres = sql.dialect.name == "postgresql"
            let names = channels.map(\.rawValue)
            let row = try await sql.raw(
                """
                SELECT id FROM outbox
                WHERE channel IN (\(binds: names))
                  AND ((status = 'queued' AND next_attempt_at <= \(bind: now))
                    OR (status = 'sending' AND claimed_until < \(bind: now)))
                ORDER BY next_attempt_at, id LIMIT 1\(unsafeRaw: postgres ? " FOR UPDATE SKIP LOCKED" : "")
                """
            ).first()
            guard let id = try row?.decode(column: "id", as: Int64.self) else { return nil }
            try await sql.raw(
                """
                UPDATE outbox SET status = 'sending', attempts = attempts + 1,
                  claimed_until = \(bind: now.addingTimeInterval(lease))
                WHERE id = \(bind: id)
                """
            ).run()
            return try await sql.select().column("*").from("outbox").where("id", .equal, id)
                .first(decoding: OutboxMessage.self, with: .rollcall)
        }
    }

    /// The message was handed over.
    package func markSent(id: Int64, at now: Date = Date()) async throws {
        try await database.write { sql in
            try await sql.update("outbox").set("status", to: "sent").set("sent_at", to: SQLBind(now))
                .set("claimed_until", to: SQLLiteral.null).set("next_attempt_at", to: SQLLiteral.null)
                .set("last_error", to: SQLLiteral.null).where("id", .equal, id).run()
        }
    }

    /// The attempt failed: the message waits until `retryAt`, or, without one, has failed for good.
    package func markFailed(id: Int64, error: String, retryAt: Date?) async throws {
        try await database.write { sql in
            try await sql.update("outbox").set("status", to: retryAt == nil ? "failed" : "queued")
                .set("last_error", to: SQLBind(String(error.prefix(1000))))
                .set("next_attempt_at", to: retryAt.map { SQLBind($0) as any SQLExpression } ?? SQLLiteral.null)
                .set("claimed_until", to: SQLLiteral.null).where("id", .equal, id).run()
        }
    }

    /// When the next queued message of `channels` falls due, if any waits.
    package func nextDue(channels: [MessageChannel]) async throws -> Date? {
        guard !channels.isEmpty else { return nil }
        return try await database.read { sql in
            let row = try await sql.raw(
                """
                SELECT MIN(next_attempt_at) AS due FROM outbox
                WHERE channel IN (\(binds: channels.map(\.rawValue))) AND status = 'queued'
                """
            ).first()
            return try row?.decode(column: "due", as: Date?.self)
        }
    }
}

/// Wakes the delivery when a message is queued, so that it need not poll often.
package final class DeliveryBell: Sendable {
    package init() {}

    private let state = NIOLockedValueBox<(rung: Bool, waiter: CheckedContinuation<Void, Never>?)>((false, nil))

    package func ring() {
        let waiter = state.withLockedValue { state in
            guard let waiter = state.waiter else {
                state.rung = true
                return CheckedContinuation<Void, Never>?.none
            }
            state.waiter = nil
            return waiter
        }
        waiter?.resume()
    }

    /// Returns when the bell rings (or had rung since the last wait), after `limit` at the latest, or when the task
    /// is cancelled.
    package func wait(upTo limit: Duration) async {
        let timer = Task {
            guard (try? await Task.sleep(for: limit)) != nil else { return }
            self.ring()
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let now = state.withLockedValue { state in
                    if state.rung {
                        state.rung = false
                        return true
                    }
                    state.waiter = continuation
                    return false
                }
                if now { continuation.resume() }
            }
        } onCancel: {
            self.ring()
        }
        timer.cancel()
        state.withLockedValue { $0.rung = false }
    }
}
