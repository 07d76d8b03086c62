import Logging
import Metrics
import ServiceLifecycle

/// Background work done every `interval` once the schema is ready, until the server shuts down.
///
/// A failed round (the database away for a moment) is not fatal: the next round tries again. It is logged with the
/// service's name and counted in `/metrics` (`rollcall_background_failures_total{service=…}`), so that work that
/// keeps failing is seen.
package struct Periodically: Service {
    /// Names the work in logs and metrics, such as `quiz-sweep`.
    package let name: String
    package let interval: Duration
    package let ready: SchemaReady
    package let logger: Logger
    package let work: @Sendable () async throws -> Void

    package init(
        name: String, interval: Duration, ready: SchemaReady, logger: Logger,
        work: @escaping @Sendable () async throws -> Void
    ) {
        self.name = name
        self.interval = interval
        self.ready = ready
        self.logger = logger
        self.work = work
    }

    package func run() async throws {
        await cancelWhenGracefulShutdown {
            await ready.wait()
            while !Task.isCancelled {
                do {
                    try await work()
                } catch is CancellationError {
                    break
                } catch {
                    failed(error)
                }
                try? await Task.sleep(for: interval)
            }
        }
    }

    /// Logs and counts one failed round.
    package func failed(_ error: any Error) {
        logger.error(
            "\(name) failed; it runs again in \(interval)", metadata: ["service": "\(name)", "error": "\(error)"])
        Counter(label: Self.failures, dimensions: [("service", name)]).increment()
    }

    /// The counter of failed rounds, by service.
    package static let failures = "rollcall_background_failures_total"
}
