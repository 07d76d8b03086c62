import Foundation
import HummingbirdWSClient
import Logging
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1
import NIOPosix
import RollcallParts
import RollcallServer

/// `rollcall-bench --quiz N`: N students in a running quiz, each saving an answer every 2 s, one in ten of those
/// moments reporting an integrity flag instead, while the teacher's dashboard is open.
extension Bench {
    static let saveInterval = 2.0

    func runQuiz(students: Int) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "rollcall-bench-quiz-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let configuration = Configuration(
            hostname: "127.0.0.1", port: port, dataDirectory: directory.path, databaseURL: databaseURL,
            logLevel: .error
        )
        print("Preparing \(students) students in a running quiz on \(quizStore)…")
        let fixture = try await QuizBenchFixture.make(configuration, students: students)
        let servers = try (0..<(databaseURL == nil ? 1 : processes)).map { index in
            try MeasuredServer.start(
                dataDirectory: directory.path, port: port + index,
                environment: databaseURL.map { ["ROLLCALL_DATABASE_URL": $0] } ?? [:])
        }
        defer { for server in servers { server.stop() } }
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        do {
            try await measureQuiz(servers, fixture, students: students, on: group.next())
            try await group.shutdownGracefully()
        } catch {
            try? await group.shutdownGracefully()
            throw error
        }
    }

    /// Where the quiz's data lives, as the report says it.
    var quizStore: String {
        databaseURL == nil
            ? "a fresh SQLite file (WAL)"
            : "PostgreSQL with \(processes) server processes, the dashboard on the first and the students spread over all"
    }

    func measureQuiz(
        _ servers: [MeasuredServer], _ fixture: QuizBenchFixture, students: Int, on loop: any EventLoop
    ) async throws {
        let loadBefore = Self.loadAverage()
        for server in servers { try await server.waitUntilUp(on: loop) }
        let pool = try await openConnections(to: servers, on: loop)
        defer { loop.execute { for connection in pool { connection.close() } } }

        let rounds = max(1, Int(Double(duration) / Self.saveInterval))
        let count = students * rounds
        let flagsExpected = (0..<count).filter { Self.isFlag($0, students: students) }.count
        let arrivals = Arrivals(expected: flagsExpected)
        let saves = QuizSaves()
        // Student s saves at s × (2 s ÷ N) within each 2 s round: an even stream, as a class typing would give.
        let spacing = Int64(Self.saveInterval * 1e9) / Int64(students)
        let round = try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask { try await watchQuiz(fixture, arrivals: arrivals) }
            try await arrivals.waitForSnapshot()
            let serverBefore = servers.map { $0.cpuSeconds() }.reduce(0, +)
            let run = LoopbackRun(
                on: loop, count: count, start: .now() + .milliseconds(5),
                offset: { .nanoseconds(Int64($0) * spacing) }
            ) { connection, index, done in
                let student = index % students
                let round = index / students
                let token = fixture.room.studentTokens[student]
                let attempt = fixture.attemptIDs[student]
                if Self.isFlag(index, students: students) {
                    let sent = Date().formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true))
                    connection.send(
                        .POST, "/api/v1/quiz-attempts/\(attempt)/flags", token: token,
                        json: #"{"flags":[{"kind":"left_page","occurredAt":"\#(sent)","clientId":"b\#(index)"}]}"#
                    ) { result in
                        done(Self.expect(result, .created, "a flag"))
                    }
                } else {
                    let began = NIODeadline.now()
                    connection.send(
                        .PUT, "/api/v1/quiz-attempts/\(attempt)/answers/\(QuizBenchFixture.questionID)", token: token,
                        json:
                            #"{"sequence":\#(round + 1),"answer":{"text":"Draft \#(round + 1) of student \#(student)"}}"#
                    ) { result in
                        saves.took(NIODeadline.now() - began)
                        done(Self.expect(result, .ok, "a save"))
                    }
                }
            }
            let measurement = try await run.run(over: pool)
            let serverCPU = servers.map { $0.cpuSeconds() }.reduce(0, +) - serverBefore
            try await arrivals.waitForAll(timeout: .seconds(30))
            tasks.cancelAll()
            return (measurement, serverCPU)
        }
        print(
            quizReport(
                students: students, rounds: rounds, measurement: round.0, serverCPU: round.1, saves: saves,
                arrivals: arrivals, loadBefore: loadBefore))
    }

    /// One moment in ten, spread over the students, reports a flag instead of saving.
    static func isFlag(_ index: Int, students: Int) -> Bool {
        (index % students + index / students) % 10 == 0
    }

    static func expect(
        _ result: Result<LoopbackAnswer, any Error>, _ status: HTTPResponseStatus, _ what: String
    ) -> Result<Void, any Error> {
        result.flatMap { answer in
            answer.status == status
                ? .success(())
                : .failure(LoopbackError("\(what) answered \(answer.status): \(String(buffer: answer.body))"))
        }
    }

    /// The teacher's dashboard: notes how long after its report each flag arrives.
    func watchQuiz(_ fixture: QuizBenchFixture, arrivals: Arrivals) async throws {
        var configuration = WebSocketClientConfiguration()
        configuration.additionalHeaders[.authorization] = "Bearer \(fixture.room.teacherToken)"
        configuration.maxFrameSize = 1 << 24
        let parse = Date.ISO8601FormatStyle(includingFractionalSeconds: true)
        try await WebSocketClient.connect(
            url: "ws://127.0.0.1:\(port)/api/v1/quiz-runs/\(fixture.runID)/live", configuration: configuration,
            logger: Logger(label: "bench-quiz")
        ) { inbound, _, _ in
            for try await message in inbound.messages(maxSize: 1 << 24) {
                let received = Date()
                guard case .text(let text) = message else { continue }
                struct Message: Decodable {
                    struct Data: Decodable { var occurredAt: String? }
                    var type: String
                    var kind: String?
                    var data: Data?
                }
                let decoded = try JSONDecoder().decode(Message.self, from: Data(text.utf8))
                switch decoded.type {
                case "snapshot": arrivals.snapshotArrived()
                case "event" where decoded.kind == "flagged":
                    guard let sent = try decoded.data?.occurredAt.map({ try parse.parse($0) }) else { continue }
                    arrivals.eventArrived(after: received.timeIntervalSince(sent))
                default: continue
                }
            }
        }
    }

    func quizReport(
        students: Int, rounds: Int, measurement: Measurement, serverCPU: Double, saves: QuizSaves,
        arrivals: Arrivals, loadBefore: String
    ) -> String {
        let delays = arrivals.delays.sorted()
        let own = saves.sorted
        func percentile(_ values: [Double], _ p: Double) -> String {
            guard !values.isEmpty else { return "-" }
            let index = min(values.count - 1, max(0, Int((Double(values.count) * p / 100).rounded(.up)) - 1))
            return String(format: "%.1f", values[index] * 1000)
        }
        let offered = Double(students) / Self.saveInterval
        return """

            Server: in processes of its own (the same server as `rollcall serve`), \(quizStore); load
            generator: this process, one event loop, \(connections) keep-alive connections over loopback; the
            teacher's dashboard open on the quiz's WebSocket. \(students) students, each acting every \(Self.saveInterval) s for \(rounds) rounds: a save
            (PUT …/answers/q1 with the next sequence number) or, one time in ten, an integrity flag (POST …/flags).
            Machine load average before the run: \(loadBefore).

              offered/s                    \(Int(offered)) (\(own.count) saves, \(delays.count) flags)
              answered/s sustained         \(Int(measurement.perSecond))
              save latency p50 / p99       \(percentile(own, 50)) / \(percentile(own, 99)) ms (request sent → answer)
              with queueing p50 / p99      \(measurement.percentile(50)) / \(measurement.percentile(99)) ms (scheduled → answer)
              flag → teacher p50 / p99     \(percentile(delays, 50)) / \(percentile(delays, 99)) ms (reported → on the dashboard)
              flag → teacher max           \(percentile(delays, 100)) ms
              server CPU per request       \(String(format: "%.0f", serverCPU / Double(students * rounds) * 1e6)) µs
            """
    }
}

/// How long each save took from its request to its answer.
final class QuizSaves: Sendable {
    private let state = NIOLockedValueBox<[Double]>([])
    func took(_ time: TimeAmount) { state.withLockedValue { $0.append(Double(time.nanoseconds) / 1e9) } }
    var sorted: [Double] { state.withLockedValue { $0.sorted() } }
}
