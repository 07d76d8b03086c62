import Foundation
import Logging
import Metrics
import RollcallModel
import RollcallStorage
import ServiceLifecycle

/// The background worker: takes due jobs one by one, hands each to its kind's courier, and records the outcome; a
/// failed attempt is retried with a growing wait, so a job survives a platform that is down and a restart of Rollcall.
package struct JobRunner: Service {
    package let queue: JobQueue
    /// The courier of each kind this process does; jobs of other kinds wait for a process that does them.
    package let couriers: [any JobCourier]
    package let bell: DeliveryBell
    /// Opens when the schema is in place.
    package let ready: SchemaReady
    package let logger: Logger
    package var retry = RetryPolicy()
    /// How often the queue is read without a bell: jobs queued by another process, retries falling due.
    package var poll: Duration = .seconds(5)
    /// How long a claim holds; longer than any attempt can take, timeouts included.
    package var lease: TimeInterval = 600

    package init(
        queue: JobQueue, couriers: [any JobCourier], bell: DeliveryBell, ready: SchemaReady, logger: Logger,
        retry: RetryPolicy = RetryPolicy(), poll: Duration = .seconds(5), lease: TimeInterval = 600
    ) {
        self.retry = retry
        self.queue = queue
        self.couriers = couriers
        self.bell = bell
        self.ready = ready
        self.logger = logger
        self.poll = poll
        self.lease = lease
    }

    package func run() async throws {
        let kinds = couriers.map(\.kindName)
        await SenderLoop.run(
            service: "jobs", queue: "the jobs", ready: ready, bell: bell, poll: poll, logger: logger,
            claim: { try await queue.claim(kinds: kinds, lease: lease) },
            nextDue: { try await queue.nextDue(kinds: kinds) }, work: perform)
    }

    /// One attempt at one claimed job.
    package func perform(_ job: Job) async {
        guard let courier = couriers.first(where: { $0.kindName == job.kind }) else { return }
        do {
            try await courier.perform(job)
            try await queue.markDone(id: job.id)
            logger.info("did \(job.kind) job \(job.id)")
        } catch {
            let permanent = (error as? DeliveryFailure)?.permanent ?? false
            let wait = permanent ? nil : retry.wait(after: job.attempts)
            logger.warning(
                "\(job.kind) job \(job.id) failed (attempt \(job.attempts))\(wait == nil ? ", given up" : ""): \(error)"
            )
            do {
                try await queue.markFailed(
                    id: job.id, error: String(describing: error), retryAt: wait.map { Date().addingTimeInterval($0) })
            } catch {
                logger.error("recording the failure of job \(job.id) failed: \(error)")
            }
        }
    }
}
