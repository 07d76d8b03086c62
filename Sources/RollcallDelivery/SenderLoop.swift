import Foundation
import Logging
import Metrics
import RollcallModel
import RollcallStorage
import ServiceLifecycle

/// The loop the outbox's sender and the jobs' runner share: once the schema is ready, claim and work through what is
/// due, then sleep until the next is due (a poll and a second at most), woken early by the bell. A failure to read
/// the queue is logged, counted as a background failure and waited out for a poll.
enum SenderLoop {
    static func run<Item: Sendable>(
        service: String, queue: String, ready: SchemaReady, bell: DeliveryBell, poll: Duration, logger: Logger,
        claim: @escaping @Sendable () async throws -> Item?, nextDue: @escaping @Sendable () async throws -> Date?,
        work: @escaping @Sendable (Item) async -> Void
    ) async {
        await cancelWhenGracefulShutdown {
            await ready.wait()
            while !Task.isCancelled {
                do {
                    while !Task.isCancelled, let item = try await claim() {
                        await work(item)
                    }
                    let due = try await nextDue()
                    let wait = due.map { max(0.01, min($0.timeIntervalSinceNow, Double(poll.components.seconds) + 1)) }
                    await bell.wait(upTo: wait.map { .milliseconds(Int($0 * 1000)) } ?? poll)
                } catch is CancellationError {
                    break
                } catch {
                    logger.error("reading \(queue) failed: \(error)", metadata: ["service": "\(service)"])
                    Counter(label: Periodically.failures, dimensions: [("service", service)]).increment()
                    await bell.wait(upTo: poll)
                }
            }
        }
    }
}
