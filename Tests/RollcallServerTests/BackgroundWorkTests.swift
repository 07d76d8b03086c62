import Foundation
import Logging
import NIOConcurrencyHelpers
import RollcallStorage
import ServiceLifecycle
import Testing

@testable import RollcallServer

/// Background work (the quiz sweep, the timetable opener, the absence notices, the evidence purge): what happens when
/// a round fails.
@Suite("Background work", .timeLimit(.minutes(5)))
struct BackgroundWorkTests {
    /// Keeps what is logged, for the test to read.
    final class LogBook: LogHandler, @unchecked Sendable {
        let entries = NIOLockedValueBox<[(Logger.Level, String, Logger.Metadata)]>([])
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .trace
        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }
        func log(event: LogEvent) {
            entries.withLockedValue { $0.append((event.level, "\(event.message)", event.metadata ?? [:])) }
        }
    }

    @Test func a_failed_round_is_logged_with_the_services_name_counted_and_tried_again() async throws {
        // Setup: work that fails twice, then succeeds; nothing runs before the schema is ready.
        let registry = PrometheusMetrics.registry
        let book = LogBook()
        let rounds = NIOLockedValueBox(0)
        struct Broken: Error {}
        let schema = SchemaReady()
        let service = Periodically(
            name: "test-work", interval: .milliseconds(10), ready: schema, logger: Logger(label: "test") { _ in book }
        ) {
            let round = rounds.withLockedValue { rounds in
                rounds += 1
                return rounds
            }
            if round <= 2 { throw Broken() }
        }
        let group = ServiceGroup(
            configuration: .init(services: [service], gracefulShutdownSignals: [], logger: Logger(label: "test")))

        // The call under test: the service runs until its third round succeeds.
        try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask { try await group.run() }
            try await Task.sleep(for: .milliseconds(50))
            #expect(rounds.withLockedValue { $0 } == 0, "no round before the schema is ready")
            schema.open()
            let deadline = ContinuousClock.now + .seconds(30)
            while rounds.withLockedValue({ $0 }) < 3 && ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(10))
            }
            await group.triggerGracefulShutdown()
            try await tasks.waitForAll()
        }

        // Validation: each failure is an error naming the service, and the counter says how many.
        #expect(rounds.withLockedValue { $0 } >= 3, "the work is tried again after a failure")
        let failures = book.entries.withLockedValue { $0 }.filter { $0.0 == .error }
        #expect(failures.count == 2, "\(failures)")
        #expect(failures.allSatisfy { $0.1.contains("test-work failed") && $0.2["service"] == "test-work" })
        let metrics = String(decoding: registry.emitToBuffer(), as: UTF8.self)
        #expect(
            metrics.contains(#"rollcall_background_failures_total{service="test-work"} 2"#),
            "\(metrics.split(separator: "\n").filter { $0.contains("background") })")
    }

    @Test func a_service_waiting_for_the_schema_stops_with_the_server() async throws {
        let schema = SchemaReady()
        let service = Periodically(name: "never", interval: .seconds(1), ready: schema, logger: Logger(label: "test")) {
            Issue.record("no round runs when the schema never became ready")
        }
        let group = ServiceGroup(
            configuration: .init(services: [service], gracefulShutdownSignals: [], logger: Logger(label: "test")))
        try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask { try await group.run() }
            try await Task.sleep(for: .milliseconds(50))
            await group.triggerGracefulShutdown()
            try await tasks.waitForAll()
        }
    }
}
