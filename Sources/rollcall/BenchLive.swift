import ArgumentParser
import AsyncHTTPClient
import Foundation
import HummingbirdWSClient
import Logging
import NIOConcurrencyHelpers
import RollcallServer

/// `rollcall bench-live`: how soon a committed check-in reaches the teacher's live view, with a room checking in.
struct BenchLive: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bench-live",
        abstract: "Measure the time from a committed check-in to its event on the teacher's WebSocket."
    )
    @Option(help: "Students checking in, all at once.")
    var students = 1000
    @Option(help: "Open connections from the load generator to the server.")
    var connections = 64
    @Option(help: "Port for the measured server.")
    var port = 8098

    func validate() throws {
        guard (1...100_000).contains(students) else { throw ValidationError("--students must be 1 to 100000.") }
        guard (1...1024).contains(connections) else { throw ValidationError("--connections must be 1 to 1024.") }
    }

    func run() async throws {
        // The check-in load is `rollcall bench`'s own, so both commands measure the same room.
        let load = try Bench.parse([
            "--students", "\(students)", "--connections", "\(connections)", "--port", "\(port)",
        ])
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "rollcall-bench-live-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let configuration = Configuration(
            hostname: "127.0.0.1", port: port, dataDirectory: directory.path, logLevel: .error
        )
        print("Preparing \(students) students on a fresh SQLite file…")
        let fixture = try await BenchFixture.make(configuration, students: students)
        let app = try await buildApplication(configuration)
        let arrivals = Arrivals(expected: students)
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await app.runService(gracefulShutdownSignals: []) }
            let base = "http://127.0.0.1:\(port)"
            var clientConfiguration = HTTPClient.Configuration(redirectConfiguration: .disallow)
            clientConfiguration.connectionPool = .init(
                idleTimeout: .seconds(60), concurrentHTTP1ConnectionsPerHostSoftLimit: connections
            )
            let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: clientConfiguration)
            do {
                try await load.waitUntilUp(client, base)
                group.addTask { try await watch(fixture, arrivals: arrivals) }
                try await arrivals.waitForSnapshot()
                let code = try await load.projectedCode(client, base, fixture)
                let checkIns = try await load.measure(count: students) { index in
                    try await load.checkIn(client, base, code: code, token: fixture.studentTokens[index], index: index)
                }
                try await arrivals.waitForAll(timeout: .seconds(30))
                print(report(checkIns: checkIns, arrivals: arrivals))
                try await client.shutdown()
            } catch {
                try? await client.shutdown()
                group.cancelAll()
                throw error
            }
            group.cancelAll()
        }
    }

    /// The teacher's live view: notes when each `checked_in` event arrives, beside when the server wrote it.
    func watch(_ fixture: BenchFixture, arrivals: Arrivals) async throws {
        var configuration = WebSocketClientConfiguration()
        configuration.additionalHeaders[.authorization] = "Bearer \(fixture.teacherToken)"
        configuration.maxFrameSize = 1 << 24
        let parse = Date.ISO8601FormatStyle(includingFractionalSeconds: true)
        try await WebSocketClient.connect(
            url: "ws://127.0.0.1:\(port)/api/v1/sessions/\(fixture.sessionID)/live", configuration: configuration,
            logger: Logger(label: "bench-live")
        ) { inbound, _, _ in
            for try await message in inbound.messages(maxSize: 1 << 24) {
                let received = Date()
                guard case .text(let text) = message else { continue }
                struct Message: Decodable {
                    var type: String
                    var kind: String?
                    var createdAt: String?
                }
                let decoded = try JSONDecoder().decode(Message.self, from: Data(text.utf8))
                switch decoded.type {
                case "snapshot": arrivals.snapshotArrived()
                case "event" where decoded.kind == "checked_in":
                    guard let written = try decoded.createdAt.map({ try parse.parse($0) }) else { continue }
                    arrivals.eventArrived(after: received.timeIntervalSince(written))
                default: continue
                }
            }
        }
    }

    func report(checkIns: Measurement, arrivals: Arrivals) -> String {
        let delays = arrivals.delays.sorted()
        func percentile(_ p: Double) -> String {
            guard !delays.isEmpty else { return "-" }
            let index = min(delays.count - 1, max(0, Int((Double(delays.count) * p / 100).rounded(.up)) - 1))
            return String(format: "%.1f", delays[index] * 1000)
        }
        return """

            \(students) students checking in at once over \(connections) connections, one teacher watching live:
              check-ins/s                  \(Int(checkIns.perSecond))
              check-in latency p50 / p99   \(checkIns.percentile(50)) ms / \(checkIns.percentile(99)) ms
            committed check-in → its event on the teacher's WebSocket (\(delays.count) of \(students) events):
              p50                          \(percentile(50)) ms
              p95                          \(percentile(95)) ms
              p99                          \(percentile(99)) ms
              max                          \(percentile(100)) ms
            """
    }
}

/// What the teacher's socket has received so far.
final class Arrivals: Sendable {
    private struct State {
        var snapshot = false
        var delays: [Double] = []
    }
    private let state = NIOLockedValueBox(State())
    let expected: Int

    init(expected: Int) { self.expected = expected }

    var delays: [Double] { state.withLockedValue { $0.delays } }

    func snapshotArrived() { state.withLockedValue { $0.snapshot = true } }
    func eventArrived(after delay: Double) { state.withLockedValue { $0.delays.append(delay) } }

    func waitForSnapshot() async throws {
        for _ in 0..<500 {
            if state.withLockedValue({ $0.snapshot }) { return }
            try await Task.sleep(for: .milliseconds(10))
        }
        throw BenchError("the live view sent no snapshot")
    }

    func waitForAll(timeout: Duration) async throws {
        let deadline = ContinuousClock.now + timeout
        while state.withLockedValue({ $0.delays.count }) < expected {
            guard ContinuousClock.now < deadline else {
                throw BenchError("only \(delays.count) of \(expected) check-ins reached the live view")
            }
            try await Task.sleep(for: .milliseconds(10))
        }
    }
}
