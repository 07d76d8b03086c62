import ArgumentParser
import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import RollcallCore
import RollcallParts
import RollcallServer
import RollcallWeb

/// `rollcall-bench` (`run`): a room of students checking in, measured against the same server's `/healthz`.
///
/// The measured server is a separate process on a fresh SQLite file, so that its CPU time can be read apart from the
/// load generator's; both share the machine, as they would on a teacher's laptop.
struct Bench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "run",
        abstract: "Measure check-ins per second and their latency on a fresh server over loopback."
    )
    @Option(help: "Students checking in, in each round.")
    var students = 1000
    @Option(help: "Open keep-alive connections from the load generator to the server.")
    var connections = 64
    @Option(help: "Arrivals per second in the arrival round.")
    var rate = 2000
    @Option(help: "Requests to /healthz for the baseline.")
    var healthRequests = 5000
    @Option(help: "Port for the measured server.")
    var port = 8099
    @Option(
        help: ArgumentHelp(
            "Instead of the check-in rounds: this many new students register and join at once,",
            discussion:
                "each signed in by registering, and check in, while students with accounts check in at --quiet-rate and are timed."
        ))
    var register = 0
    @Option(help: "Check-ins per second of the timed room in the registration rounds.")
    var quietRate = 100
    @Option(help: "ROLLCALL_BCRYPT_COST of the measured server in the registration rounds.")
    var bcryptCost = Configuration.bcryptCosts.lowerBound
    @Option(help: "Instead of a fresh SQLite file: this PostgreSQL database (postgres://…), with --processes.")
    var databaseURL: String?
    @Option(help: "Server processes on the PostgreSQL database, on consecutive ports from --port.")
    var processes = 2
    @Option(help: "Measure a quiz instead: this many students, each saving an answer every 2 s; on --database-url too.")
    var quiz: Int?
    @Option(help: "How long the quiz round lasts, in seconds; with --campus, the arrival window (default 300).")
    var seconds: Int?
    @Flag(help: "Measure a campus morning instead: --rooms rooms of --room-size students arriving over --seconds.")
    var campus = false
    @Option(help: "Rooms in the campus morning.")
    var rooms = 100
    @Option(help: "Students in each room of the campus morning; one in ten registers on the way.")
    var roomSize = 200
    @Option(help: "Rooms of the campus morning running a quiz.")
    var quizRooms = 10
    @Option(help: "Seconds between one student's quiz saves in the campus morning.")
    var saveEvery = 2.0

    /// How long the round lasts: the quiz round's or the campus morning's.
    var duration: Int { seconds ?? (campus ? 300 : 30) }

    func validate() throws {
        guard (1...100_000).contains(students) else { throw ValidationError("--students must be 1 to 100000.") }
        guard (1...1024).contains(connections) else { throw ValidationError("--connections must be 1 to 1024.") }
        guard (1...1_000_000).contains(rate) else { throw ValidationError("--rate must be 1 to 1000000.") }
        guard (1...16).contains(processes) else { throw ValidationError("--processes must be 1 to 16.") }
        if let databaseURL, !databaseURL.hasPrefix("postgres://") && !databaseURL.hasPrefix("postgresql://") {
            throw ValidationError("--database-url must be a postgres:// URL.")
        }
        guard (0...100_000).contains(register) else { throw ValidationError("--register must be 0 to 100000.") }
        guard (1...10_000).contains(quietRate) else { throw ValidationError("--quiet-rate must be 1 to 10000.") }
        guard Configuration.bcryptCosts.contains(bcryptCost) else {
            throw ValidationError("--bcrypt-cost must be \(Configuration.bcryptCosts).")
        }
        if let quiz, !(1...100_000).contains(quiz) { throw ValidationError("--quiz must be 1 to 100000.") }
        guard (4...3600).contains(duration) else { throw ValidationError("--seconds must be 4 to 3600.") }
        guard (1...1000).contains(rooms) else { throw ValidationError("--rooms must be 1 to 1000.") }
        guard (10...1000).contains(roomSize) else { throw ValidationError("--room-size must be 10 to 1000.") }
        guard (0...rooms).contains(quizRooms) else { throw ValidationError("--quiz-rooms must be 0 to --rooms.") }
        guard (0.5...600).contains(saveEvery) else { throw ValidationError("--save-every must be 0.5 to 600.") }
    }

    func run() async throws {
        if campus { return try await runCampus() }
        if let quiz { return try await runQuiz(students: quiz) }
        if let databaseURL { return try await measureProcesses(databaseURL: databaseURL) }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "rollcall-bench-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let configuration = Configuration(
            hostname: "127.0.0.1", port: port, dataDirectory: directory.path, logLevel: .error
        )
        print("Preparing \(students) students on a fresh SQLite file…")
        let fixture = try await BenchFixture.make(configuration, students: students, sessions: 2)
        let server = try MeasuredServer.start(
            dataDirectory: directory.path, port: port,
            environment: register > 0
                ? ["ROLLCALL_TRUSTED_PROXIES": "127.0.0.1/32", "ROLLCALL_BCRYPT_COST": String(bcryptCost)] : [:])
        defer { server.stop() }
        // One event loop: the load generator takes at most one of the machine's cores.
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        do {
            if register > 0 {
                try await measureRegistrations(server, fixture, on: group.next(), loadBefore: Self.loadAverage())
            } else {
                try await measure(server, fixture, on: group.next())
            }
            try await group.shutdownGracefully()
        } catch {
            try? await group.shutdownGracefully()
            throw error
        }
    }

    func measure(_ server: MeasuredServer, _ fixture: BenchFixture, on loop: any EventLoop) async throws {
        let loadBefore = Self.loadAverage()
        try await server.waitUntilUp(on: loop)
        var connected: [LoopbackConnection] = []
        for _ in 0..<connections { connected.append(try await LoopbackConnection.open(to: port, on: loop).get()) }
        let pool = connected
        defer { loop.execute { for connection in pool { connection.close() } } }

        let health = try await round(server, pool, loop, count: healthRequests, rate: nil) { connection, _, done in
            connection.send(.GET, SystemRoutes.health.description) { result in
                done(
                    result.flatMap {
                        $0.status == .ok ? .success(()) : .failure(LoopbackError("healthz: \($0.status)"))
                    })
            }
        }
        var rounds: [(String, Round)] = []
        for (name, sessionID, rate) in [
            ("burst", fixture.sessionIDs[0], nil), ("arrivals", fixture.sessionIDs[1], Optional(rate)),
        ] {
            let code = try await projectedCode(pool[0], loop, session: sessionID, token: fixture.teacherToken)
            rounds.append(
                (
                    name,
                    try await round(server, pool, loop, count: students, rate: rate) { connection, index, done in
                        checkIn(connection, code: code, token: fixture.studentTokens[index], index: index, done: done)
                    }
                )
            )
        }
        print(report(health: health, burst: rounds[0].1, arrivals: rounds[1].1, loadBefore: loadBefore))
    }

    /// The machine's load average over 1, 5 and 15 minutes, as `/proc/loadavg` gives it.
    static func loadAverage() -> String {
        (try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8))?.split(separator: " ").prefix(3)
            .joined(separator: " ") ?? "unknown"
    }

    /// What one round measured: the answers' timing and the CPU each process spent on it.
    struct Round {
        var measurement: Measurement
        var serverCPU: Double
        var generatorCPU: Double
        /// The server's resident memory (megabytes) at the round's end, and its peak so far.
        var memory: (now: Double, peak: Double) = (.nan, .nan)
    }

    /// Runs `count` operations, all released at once (`rate` nil) or arriving `rate` a second.
    func round(
        _ server: MeasuredServer, _ pool: [LoopbackConnection], _ loop: any EventLoop, count: Int, rate: Int?,
        _ operation: @escaping LoopbackRun.Operation
    ) async throws -> Round {
        let serverBefore = server.cpuSeconds()
        let generatorBefore = MeasuredServer.ownCPUSeconds()
        let spacing = rate.map { 1_000_000_000 / Int64($0) } ?? 0
        let run = LoopbackRun(
            on: loop, count: count, start: .now() + .milliseconds(5), offset: { .nanoseconds(Int64($0) * spacing) },
            operation: operation
        )
        let measurement = try await run.run(over: pool)
        return Round(
            measurement: measurement, serverCPU: server.cpuSeconds() - serverBefore,
            generatorCPU: MeasuredServer.ownCPUSeconds() - generatorBefore, memory: server.residentMegabytes()
        )
    }

    /// One student's whole check-in, as the native app does it: open the scanned link with the student's token (the
    /// answer holds the ticket), then check in with the ticket.
    func checkIn(
        _ connection: LoopbackConnection, code: String, token: String, index: Int,
        done: @escaping (Result<Void, any Error>) -> Void
    ) {
        connection.send(.GET, CheckInRoutes.scanUpperCase.filled(["code": code]), token: token) { result in
            guard case .success(let scanned) = result else { return done(result.map { _ in () }) }
            guard scanned.status == .ok, let ticket = try? scanned.json(ScanAnswer.self).ticket else {
                return done(.failure(LoopbackError("the scan answered \(scanned.status)")))
            }
            connection.send(
                .POST, CheckInRoutes.checkIns.description, token: token,
                json: #"{"ticket":"\#(ticket)","deviceId":"bench-device-\#(index)"}"#
            ) { result in
                done(
                    result.flatMap { answer in
                        answer.status == .created
                            ? .success(())
                            : .failure(
                                LoopbackError("a check-in answered \(answer.status): \(String(buffer: answer.body))"))
                    }
                )
            }
        }
    }

    func projectedCode(
        _ connection: LoopbackConnection, _ loop: any EventLoop, session: Int64, token: String
    ) async throws -> String {
        let promise = loop.makePromise(of: LoopbackAnswer.self)
        loop.execute {
            connection.send(.GET, CheckInRoutes.projector.filled(["sessionID": session]), token: token) {
                promise.completeWith($0)
            }
        }
        return try await promise.futureResult.get().json(ProjectorFrame.self).code
    }

    func report(health: Round, burst: Round, arrivals: Round, loadBefore: String) -> String {
        func cpu(_ round: Round, per count: Int) -> String {
            String(
                format: "%.0f µs server + %.0f µs load generator", round.serverCPU / Double(count) * 1e6,
                round.generatorCPU / Double(count) * 1e6
            )
        }
        func megabytes(_ value: Double) -> String { String(format: "%.0f", value) }
        let healthRate = health.measurement.perSecond
        let spread = String(format: "%.2f", Double(students) / Double(rate))
        let ratio = String(format: "%.2f", burst.measurement.perSecond / healthRate)
        return """

            Server: in its own process (the same server as `rollcall serve`), fresh SQLite file (WAL); load
            generator: this process, one event loop, \(connections) keep-alive connections over loopback. Each
            check-in is GET /C/CODE (→ ticket), then POST \(CheckInRoutes.checkIns); a round's students check in to a
            session of their own. The machine's load average before the run (other work shares its cores):
            \(loadBefore).

            /healthz baseline (\(healthRequests) requests, as fast as the connections go):
              requests/s       \(Int(healthRate))
              latency p50/p99  \(health.measurement.percentile(50)) / \(health.measurement.percentile(99)) ms
              CPU per request  \(cpu(health, per: healthRequests))

            Burst: \(students) students released at the same instant; latency from that instant to "checked in",
            so it includes waiting behind everyone else:
              check-ins/s      \(Int(burst.measurement.perSecond))
              latency p50      \(burst.measurement.percentile(50)) ms
              latency p95      \(burst.measurement.percentile(95)) ms
              latency p99      \(burst.measurement.percentile(99)) ms
              CPU per check-in \(cpu(burst, per: students))
              server RSS       \(megabytes(burst.memory.now)) MB at the end, \(megabytes(burst.memory.peak)) MB at the peak

            Arrivals: \(students) students arriving \(rate) a second (open loop, over \(spread) s); latency from each
            student's scheduled arrival to "checked in", so waiting for a connection or a busy server is counted:
              offered/s        \(rate)
              answered/s       \(Int(arrivals.measurement.perSecond)) (all answers ÷ first arrival to last answer)
              latency p50      \(arrivals.measurement.percentile(50)) ms
              latency p95      \(arrivals.measurement.percentile(95)) ms
              latency p99      \(arrivals.measurement.percentile(99)) ms
              latency max      \(arrivals.measurement.percentile(100)) ms
              CPU per check-in \(cpu(arrivals, per: students))

            ratio burst check-ins/s ÷ /healthz requests/s: \(ratio)
            """
    }
}

/// The server process under measurement: this executable's hidden `serve`, the same server as `rollcall serve`.
final class MeasuredServer: @unchecked Sendable {
    let process: Process
    let port: Int

    private init(process: Process, port: Int) {
        self.process = process
        self.port = port
    }

    /// Starts this same executable's `serve` on the prepared data directory.
    static func start(
        dataDirectory: String, port: Int, environment extra: [String: String] = [:]
    ) throws -> MeasuredServer {
        let process = Process()
        process.executableURL = URL(
            fileURLWithPath: (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"))
                ?? CommandLine.arguments[0]
        )
        process.arguments = ["serve", "--hostname", "127.0.0.1", "--port", String(port), "--data-dir", dataDirectory]
        var environment = ProcessInfo.processInfo.environment
        environment["ROLLCALL_DATABASE_URL"] = nil
        environment["ROLLCALL_LOG_LEVEL"] = "error"
        environment.merge(extra) { _, new in new }
        process.environment = environment
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        return MeasuredServer(process: process, port: port)
    }

    func waitUntilUp(on loop: any EventLoop) async throws {
        for _ in 0..<300 {
            guard process.isRunning else { throw LoopbackError("the server stopped at start") }
            if let connection = try? await LoopbackConnection.open(to: port, on: loop).get() {
                let promise = loop.makePromise(of: LoopbackAnswer.self)
                loop.execute { connection.send(.GET, SystemRoutes.health.description) { promise.completeWith($0) } }
                let answer = try? await promise.futureResult.get()
                loop.execute { connection.close() }
                if answer?.status == .ok { return }
            }
            try await Task.sleep(for: .milliseconds(100))
        }
        throw LoopbackError("the server did not start on port \(port)")
    }

    /// CPU seconds (user + system) the server process has used so far.
    func cpuSeconds() -> Double { Self.cpuSeconds(process: String(process.processIdentifier)) }

    /// The server's resident memory now and at its peak so far, in megabytes (`VmRSS`, `VmHWM`).
    func residentMegabytes() -> (now: Double, peak: Double) {
        guard let status = try? String(contentsOfFile: "/proc/\(process.processIdentifier)/status", encoding: .utf8)
        else { return (.nan, .nan) }
        func field(_ name: String) -> Double {
            guard let line = status.split(separator: "\n").first(where: { $0.hasPrefix(name + ":") }),
                let kilobytes = line.split(separator: " ").dropFirst().first.flatMap({ Double($0) })
            else { return .nan }
            return kilobytes / 1024
        }
        return (field("VmRSS"), field("VmHWM"))
    }

    /// CPU seconds this process (the load generator) has used so far.
    static func ownCPUSeconds() -> Double { cpuSeconds(process: "self") }

    /// CPU seconds every PostgreSQL process on this machine has used so far (its backends, writers and checkpointer),
    /// or nil when none runs here.
    static func postgresCPUSeconds() -> Double? {
        let processes = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        let postgres = processes.filter { process in
            process.allSatisfy(\.isNumber)
                && (try? String(contentsOfFile: "/proc/\(process)/comm", encoding: .utf8))?.hasPrefix("postgres")
                    == true
        }
        guard !postgres.isEmpty else { return nil }
        return postgres.map { cpuSeconds(process: $0) }.filter { !$0.isNaN }.reduce(0, +)
    }

    private static func cpuSeconds(process: String) -> Double {
        guard let stat = try? String(contentsOfFile: "/proc/\(process)/stat", encoding: .utf8),
            let end = stat.lastIndex(of: ")")
        else { return .nan }
        // After the command name, which may hold spaces: the state is field 3, utime 14 and stime 15, in the
        // kernel's clock ticks of 1/100 s.
        let fields = stat[stat.index(after: end)...].split(separator: " ")
        guard fields.count > 12, let user = Double(fields[11]), let system = Double(fields[12]) else { return .nan }
        return (user + system) / 100
    }

    func stop() {
        guard process.isRunning else { return }
        process.terminate()
        process.waitUntilExit()
    }
}

struct Measurement {
    var total: Duration
    /// Sorted, shortest first.
    var latencies: [Duration]
    /// Operation `i`'s latency at index `i`.
    var byIndex: [Duration] = []
    /// Operations that failed, by what went wrong, in a run that counts them rather than stopping.
    var failures: [String: Int] = [:]

    /// The same measurement restricted to the operations `indices`.
    func only(_ indices: Range<Int>) -> Measurement {
        Measurement(
            total: total, latencies: byIndex[indices].sorted(), byIndex: Array(byIndex[indices]), failures: failures)
    }

    var perSecond: Double { Double(latencies.count) / total.seconds }

    func percentile(_ p: Int) -> String {
        let index = min(latencies.count - 1, Int((Double(latencies.count) * Double(p) / 100).rounded(.up)) - 1)
        return String(format: "%.1f", latencies[max(0, index)].seconds * 1000)
    }
}
