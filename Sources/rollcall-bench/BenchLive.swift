import ArgumentParser
import Foundation
import HummingbirdWSClient
import Logging
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import RollcallCore
import RollcallParts
import RollcallProtocol
import RollcallServer
import RollcallWeb

/// `rollcall-bench live`: how soon a committed check-in reaches the teacher's live view, with a room checking in.
struct BenchLive: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "live",
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
        // The check-in load is `rollcall-bench`'s own burst, so both commands measure the same room.
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
        let fixture = try await BenchFixture.make(configuration, students: students, sessions: 1)
        let server = try MeasuredServer.start(dataDirectory: directory.path, port: port)
        defer { server.stop() }
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        do {
            let checkIns = try await measure(load, server, fixture, on: group.next())
            let openings = try await reopen(server, fixture, session: fixture.sessionIDs[0])
            try await group.shutdownGracefully()
            print(report(checkIns: checkIns.0, arrivals: checkIns.1, openings: openings))
        } catch {
            try? await group.shutdownGracefully()
            throw error
        }
    }

    /// The room checks in at once while the teacher's live view notes each event's arrival.
    func measure(
        _ load: Bench, _ server: MeasuredServer, _ fixture: BenchFixture, on loop: any EventLoop
    ) async throws -> (Measurement, Arrivals) {
        try await server.waitUntilUp(on: loop)
        var connected: [LoopbackConnection] = []
        for _ in 0..<connections { connected.append(try await LoopbackConnection.open(to: port, on: loop).get()) }
        let pool = connected
        defer { loop.execute { for connection in pool { connection.close() } } }
        let session = fixture.sessionIDs[0]
        let arrivals = Arrivals(expected: students)
        let round = try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask { try await watch(fixture, session: session, arrivals: arrivals) }
            try await arrivals.waitForSnapshot()
            let code = try await load.projectedCode(pool[0], loop, session: session, token: fixture.teacherToken)
            let round = try await load.round(server, pool, loop, count: students, rate: nil) {
                connection, index, done in
                load.checkIn(connection, code: code, token: fixture.studentTokens[index], index: index, done: done)
            }
            try await arrivals.waitForAll(timeout: .seconds(30))
            tasks.cancelAll()
            return round
        }
        return (round.measurement, arrivals)
    }

    /// What a teacher opening the live view of the room once everyone is in waits for its snapshot, and what the
    /// server spends on it: a reconnect mid-lecture, or a second screen, opens on the full roster.
    struct Opening {
        var seconds: Double
        var serverCPU: Double
    }

    /// Opens the full room's live view `times` times, one after another, each until its snapshot arrives.
    func reopen(_ server: MeasuredServer, _ fixture: BenchFixture, session: Int64, times: Int = 5) async throws
        -> [Opening]
    {
        var openings: [Opening] = []
        for _ in 0..<times {
            let snapshotAt = NIOLockedValueBox<ContinuousClock.Instant?>(nil)
            let cpuBefore = server.cpuSeconds()
            let start = ContinuousClock.now
            try await withThrowingTaskGroup(of: Void.self) { tasks in
                tasks.addTask {
                    try await Self.watchRoom(
                        port: port, token: fixture.teacherToken, session: session,
                        opened: { snapshotAt.withLockedValue { $0 = .now } }, arrived: { _ in })
                }
                let deadline = start + .seconds(30)
                while snapshotAt.withLockedValue({ $0 }) == nil {
                    guard ContinuousClock.now < deadline else { throw LoopbackError("the live view sent no snapshot") }
                    try await Task.sleep(for: .milliseconds(2))
                }
                tasks.cancelAll()
            }
            let elapsed = snapshotAt.withLockedValue { $0 }! - start
            openings.append(Opening(seconds: elapsed.seconds, serverCPU: server.cpuSeconds() - cpuBefore))
        }
        return openings
    }

    /// The teacher's live view: notes when each `checked_in` event arrives, beside when the server wrote it.
    func watch(_ fixture: BenchFixture, session: Int64, arrivals: Arrivals) async throws {
        try await Self.watchRoom(
            port: port, token: fixture.teacherToken, session: session, opened: { arrivals.snapshotArrived() },
            arrived: { arrivals.eventArrived(after: $0) })
    }

    /// A teacher's live room on its WebSocket: `opened` at its snapshot, then `arrived` with how long after the
    /// server wrote it each check-in's event came.
    static func watchRoom(
        port: Int, token: String, session: Int64, opened: @escaping @Sendable () -> Void,
        arrived: @escaping @Sendable (Double) -> Void
    ) async throws {
        var configuration = WebSocketClientConfiguration()
        configuration.additionalHeaders[.authorization] = "Bearer \(token)"
        configuration.maxFrameSize = 1 << 24
        let parse = Date.ISO8601FormatStyle(includingFractionalSeconds: true)
        try await WebSocketClient.connect(
            url: "ws://127.0.0.1:\(port)" + LiveRoutes.live.filled(["sessionID": session]),
            configuration: configuration,
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
                case "snapshot": opened()
                case "event" where decoded.kind == SessionEventKind.checkedIn.rawValue:
                    guard let written = try decoded.createdAt.map({ try parse.parse($0) }) else { continue }
                    arrived(received.timeIntervalSince(written))
                default: continue
                }
            }
        }
    }

    func report(checkIns: Measurement, arrivals: Arrivals, openings: [Opening]) -> String {
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
            the live view opened again on the full room (\(openings.count) times, one after another):
              until its snapshot           \(milliseconds(openings.map(\.seconds)))
              server CPU                   \(milliseconds(openings.map(\.serverCPU)))
            """
    }
}

/// The least and the median of some durations, in milliseconds.
private func milliseconds(_ seconds: [Double]) -> String {
    let sorted = seconds.sorted()
    guard let least = sorted.first else { return "-" }
    return String(format: "least %.1f ms, median %.1f ms", least * 1000, sorted[sorted.count / 2] * 1000)
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
        throw LoopbackError("the live view sent no snapshot")
    }

    func waitForAll(timeout: Duration) async throws {
        let deadline = ContinuousClock.now + timeout
        while state.withLockedValue({ $0.delays.count }) < expected {
            guard ContinuousClock.now < deadline else {
                throw LoopbackError("only \(delays.count) of \(expected) check-ins reached the live view")
            }
            try await Task.sleep(for: .milliseconds(10))
        }
    }
}
