import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import RollcallParts
import RollcallServer
import RollcallWeb

/// Several server processes on one PostgreSQL database, as behind a proxy: one process alone first, then all of
/// them with the students spread over them, then the live view on the first process timing check-ins taken by the
/// second.
extension Bench {
    func measureProcesses(databaseURL: String) async throws {
        let configuration = Configuration(
            hostname: "127.0.0.1", port: port, dataDirectory: FileManager.default.temporaryDirectory.path,
            databaseURL: databaseURL, logLevel: .error)
        print("Preparing \(students) students on PostgreSQL…")
        let fixture = try await BenchFixture.make(configuration, students: students, sessions: 3)
        let servers = try (0..<processes).map { index in
            try MeasuredServer.start(
                dataDirectory: FileManager.default.temporaryDirectory.path, port: port + index,
                environment: ["ROLLCALL_DATABASE_URL": databaseURL])
        }
        defer { for server in servers { server.stop() } }
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        do {
            try await measureProcesses(servers, fixture, on: group.next(), loadBefore: Self.loadAverage())
            try await group.shutdownGracefully()
        } catch {
            try? await group.shutdownGracefully()
            throw error
        }
    }

    /// What a round on several processes measured: the answers, and each process's CPU.
    struct SpreadRound {
        var measurement: Measurement
        var serverCPU: [Double]
        var generatorCPU: Double
        /// What PostgreSQL's own processes spent, when it runs on this machine.
        var postgresCPU: Double?
    }

    private func measureProcesses(
        _ servers: [MeasuredServer], _ fixture: BenchFixture, on loop: any EventLoop, loadBefore: String
    ) async throws {
        for server in servers { try await server.waitUntilUp(on: loop) }
        var pools: [[LoopbackConnection]] = []
        for server in servers {
            var pool: [LoopbackConnection] = []
            for _ in 0..<max(1, connections / servers.count) {
                pool.append(try await LoopbackConnection.open(to: server.port, on: loop).get())
            }
            pools.append(pool)
        }
        let all = pools.flatMap { $0 }
        defer { loop.execute { for connection in all { connection.close() } } }
        // Connections taken in turn from each process, so that consecutive students go to different processes.
        let spread = (0..<pools[0].count).flatMap { index in pools.map { $0[index] } }
        let alone = max(1, connections / servers.count) * servers.count

        func spreadRound(
            session: Int64, over pool: [LoopbackConnection], offset: Int = 0
        ) async throws -> SpreadRound {
            let code = try await projectedCode(pool[0], loop, session: session, token: fixture.teacherToken)
            let before = servers.map { $0.cpuSeconds() }
            let generatorBefore = MeasuredServer.ownCPUSeconds()
            let postgresBefore = MeasuredServer.postgresCPUSeconds()
            let run = LoopbackRun(
                on: loop, count: students, start: .now() + .milliseconds(5), offset: { _ in .nanoseconds(0) }
            ) { connection, index, done in
                checkIn(connection, code: code, token: fixture.studentTokens[index], index: offset + index, done: done)
            }
            let measurement = try await run.run(over: pool)
            return SpreadRound(
                measurement: measurement, serverCPU: zip(servers, before).map { $0.cpuSeconds() - $1 },
                generatorCPU: MeasuredServer.ownCPUSeconds() - generatorBefore,
                postgresCPU: MeasuredServer.postgresCPUSeconds().flatMap { after in postgresBefore.map { after - $0 } })
        }

        // One process with all the connections, then every process with its share of them.
        var onePool: [LoopbackConnection] = pools[0]
        while onePool.count < alone { onePool.append(try await LoopbackConnection.open(to: port, on: loop).get()) }
        let extra = onePool.dropFirst(pools[0].count)
        defer { loop.execute { for connection in extra { connection.close() } } }
        let one = try await spreadRound(session: fixture.sessionIDs[0], over: onePool)
        let many = try await spreadRound(session: fixture.sessionIDs[1], over: spread)

        // The teacher watches on the first process; the room checks in on the last.
        let watcher = try BenchLive.parse(["--students", "\(students)", "--port", "\(servers[0].port)"])
        let arrivals = Arrivals(expected: students)
        let session = fixture.sessionIDs[2]
        let live = try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask { try await watcher.watch(fixture, session: session, arrivals: arrivals) }
            try await arrivals.waitForSnapshot()
            let round = try await spreadRound(session: session, over: pools[servers.count - 1], offset: 2 * students)
            try await arrivals.waitForAll(timeout: .seconds(60))
            tasks.cancelAll()
            return round
        }
        print(report(one: one, many: many, live: live, arrivals: arrivals, processes: servers.count, loadBefore))
    }

    private func report(
        one: SpreadRound, many: SpreadRound, live: SpreadRound, arrivals: Arrivals, processes: Int,
        _ loadBefore: String
    ) -> String {
        func cpu(_ round: SpreadRound) -> String {
            round.serverCPU.enumerated().map { index, seconds in
                String(format: "process %d: %.0f µs", index + 1, seconds / Double(students) * 1e6)
            }.joined(separator: ", ")
                + String(format: "; load generator %.0f µs", round.generatorCPU / Double(students) * 1e6)
                + (round.postgresCPU.map { String(format: "; PostgreSQL %.0f µs", $0 / Double(students) * 1e6) }
                    ?? "; PostgreSQL not on this machine")
        }
        func line(_ name: String, _ round: SpreadRound) -> String {
            """
            \(name):
              check-ins/s      \(Int(round.measurement.perSecond))
              latency p50/p99  \(round.measurement.percentile(50)) / \(round.measurement.percentile(99)) ms
              CPU per check-in \(cpu(round))
            """
        }
        let delays = arrivals.delays.sorted()
        func percentile(_ p: Double) -> String {
            guard !delays.isEmpty else { return "-" }
            let index = min(delays.count - 1, max(0, Int((Double(delays.count) * p / 100).rounded(.up)) - 1))
            return String(format: "%.1f", delays[index] * 1000)
        }
        return """

            \(processes) server processes on one PostgreSQL database, on \(System.coreCount) cores; load generator:
            this process, one event loop. Each round: \(students) students released at once, GET /C/CODE
            then POST \(CheckInRoutes.checkIns). The machine's load average before the run: \(loadBefore).

            \(line("One process, \(max(1, connections / processes) * processes) connections", one))
            \(line("\(processes) processes, students spread over them", many))
              ratio to one process: \(String(format: "%.2f", many.measurement.perSecond / one.measurement.perSecond))

            \(line("Check-ins on process \(processes), the teacher's live view open on process 1", live))
            committed check-in on process \(processes) → its event on process 1's WebSocket \
            (\(delays.count) of \(students)):
              p50 / p95 / p99 / max  \(percentile(50)) / \(percentile(95)) / \(percentile(99)) / \(percentile(100)) ms
            """
    }
}
