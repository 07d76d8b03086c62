import Foundation
import HummingbirdWSClient
import Logging
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1
import NIOPosix
import RollcallCore
import RollcallParts
import RollcallServer
import RollcallWeb

/// `rollcall-bench --campus`: a campus morning on one server. Every room's students arrive over the same minutes and
/// check in with the code their room's projector shows, one in ten registering on the way; every projector and
/// every teacher's live room is open; some rooms run a quiz that their students start once checked in and save
/// every few seconds. The figure a school's IT department asks for.
extension Bench {
    func runCampus() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "rollcall-bench-campus-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let configuration = Configuration(
            hostname: "127.0.0.1", port: port, dataDirectory: directory.path, databaseURL: databaseURL,
            logLevel: .error)
        let newcomers = roomSize / 10
        print("Preparing \(rooms) rooms of \(roomSize - newcomers) students with accounts on \(campusStore)…")
        let started = ContinuousClock.now
        let fixture = try await CampusFixture.make(
            configuration, rooms: rooms, enrolled: roomSize - newcomers, quizRooms: quizRooms)
        print("Prepared in \(Int((ContinuousClock.now - started).seconds)) s.")
        var environment = ["ROLLCALL_TRUSTED_PROXIES": "127.0.0.1/32", "ROLLCALL_BCRYPT_COST": String(bcryptCost)]
        if let databaseURL { environment["ROLLCALL_DATABASE_URL"] = databaseURL }
        let servers = try (0..<(databaseURL == nil ? 1 : processes)).map { index in
            try MeasuredServer.start(dataDirectory: directory.path, port: port + index, environment: environment)
        }
        defer { for server in servers { server.stop() } }
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        do {
            try await measureCampus(servers, fixture, newcomers: newcomers, on: group.next())
            try await group.shutdownGracefully()
        } catch {
            try? await group.shutdownGracefully()
            throw error
        }
    }

    /// `connections` keep-alive connections, taken in turn from each process, so that consecutive students go to
    /// different processes.
    func openConnections(to servers: [MeasuredServer], on loop: any EventLoop) async throws -> [LoopbackConnection] {
        var connected: [LoopbackConnection] = []
        for index in 0..<connections {
            connected.append(try await LoopbackConnection.open(to: servers[index % servers.count].port, on: loop).get())
        }
        return connected
    }

    /// Where the morning's data lives, as the report says it.
    var campusStore: String {
        databaseURL == nil
            ? "a fresh SQLite file" : "PostgreSQL with \(processes) server processes, students spread over them"
    }

    /// One student's way in: where they sit, whether they register first, and when they arrive.
    struct Arrival {
        var room: Int
        var seat: Int
        var newcomer: Bool
        var at: Double
    }

    func measureCampus(
        _ servers: [MeasuredServer], _ fixture: CampusFixture, newcomers: Int, on loop: any EventLoop
    ) async throws {
        let loadBefore = Self.loadAverage()
        for server in servers { try await server.waitUntilUp(on: loop) }
        let pool = try await openConnections(to: servers, on: loop)
        let saving = try await openConnections(to: servers, on: loop)
        defer { loop.execute { for connection in pool + saving { connection.close() } } }

        let arrivals = campusArrivals(fixture, newcomers: newcomers)
        let campus = Campus(rooms: fixture.rooms.count, expectedEvents: arrivals.count)
        let ports = servers.map(\.port)
        let sockets = try await withThrowingTaskGroup(of: Void.self) { tasks in
            for (index, room) in fixture.rooms.enumerated() {
                // A room's projector and its teacher on different processes, when there are several.
                let port = ports[index % ports.count]
                let teacherPort = ports[(index + 1) % ports.count]
                tasks.addTask { try await projector(room, index: index, campus: campus, port: port) }
                tasks.addTask { try await teacherRoom(room, index: index, campus: campus, port: teacherPort) }
            }
            try await campus.waitUntilOpen(sockets: 2 * fixture.rooms.count, timeout: .seconds(120))
            let serverBefore = servers.map { $0.cpuSeconds() }
            // PostgreSQL's own processes, when it runs on this machine and the morning is on it.
            let postgresBefore = databaseURL == nil ? nil : MeasuredServer.postgresCPUSeconds()
            let start = NIODeadline.now() + .milliseconds(50)
            let saves = CampusSaves(
                on: loop, over: saving, first: 3, every: saveEvery,
                end: start + .nanoseconds(Int64(duration) * 1_000_000_000))
            let morning = try await runMorning(
                arrivals, fixture: fixture, campus: campus, saves: saves, start: start, on: loop, over: pool)
            try await saves.whenAllAnswered()
            let serverCPU = zip(servers, serverBefore).map { $0.cpuSeconds() - $1 }.reduce(0, +)
            let postgresCPU = MeasuredServer.postgresCPUSeconds().flatMap { after in postgresBefore.map { after - $0 } }
            try await campus.waitForEvents(timeout: .seconds(60))
            tasks.cancelAll()
            return (morning, saves, serverCPU, postgresCPU)
        }
        print(
            campusReport(
                campus,
                CampusOutcome(
                    morning: sockets.0, saves: sockets.1, serverCPU: sockets.2, postgresCPU: sockets.3,
                    arrivals: arrivals.count, newcomers: newcomers,
                    memory: servers.map { $0.residentMegabytes() }, loadBefore: loadBefore)))
    }

    /// What the campus morning measured, for its report.
    struct CampusOutcome {
        var morning: Measurement
        var saves: CampusSaves
        var serverCPU: Double
        var postgresCPU: Double?
        var arrivals: Int
        var newcomers: Int
        var memory: [(now: Double, peak: Double)]
        var loadBefore: String
    }

    /// Students in a fixed random order, evenly spread over the arrival window.
    func campusArrivals(_ fixture: CampusFixture, newcomers: Int) -> [Arrival] {
        var random = SystemRandomNumberGenerator()
        var seats = (0..<fixture.rooms.count).flatMap { room in (0..<roomSize).map { (room, $0) } }
        seats.shuffle(using: &random)
        let window = Double(duration)
        return seats.enumerated().map { index, seat in
            Arrival(
                room: seat.0, seat: seat.1, newcomer: seat.1 >= roomSize - newcomers,
                at: window * Double(index) / Double(seats.count))
        }
    }

    /// Every student's arrival: a newcomer registers, joins and checks in, the others check in; then the quiz.
    func runMorning(
        _ arrivals: [Arrival], fixture: CampusFixture, campus: Campus, saves: CampusSaves, start: NIODeadline,
        on loop: any EventLoop, over pool: [LoopbackConnection]
    ) async throws -> Measurement {
        try await LoopbackRun(
            on: loop, count: arrivals.count, start: start, offset: { .nanoseconds(Int64(arrivals[$0].at * 1e9)) },
            countingFailures: true
        ) { connection, index, done in
            let arrival = arrivals[index]
            let room = fixture.rooms[arrival.room]
            let scheduled = start + .nanoseconds(Int64(arrival.at * 1e9))
            let code = { campus.code(of: arrival.room) }
            let afterwards: (String) -> Void = { token in
                guard let run = room.quizRunID else { return done(.success(())) }
                connection.send(
                    .POST, "/api/v1/quiz-runs/\(run)/attempts", token: token,
                    json: #"{"deviceId":"campus-\#(index)"}"#
                ) { result in
                    guard case .success(let answer) = result, answer.status == .created,
                        let started = try? answer.json(StartedAttempt.self)
                    else { return done(Self.expect(result, .created, "starting an attempt")) }
                    campus.started(index, token: token, attempt: started.attempt.id)
                    saves.attemptStarted { connection, sequence, saved in
                        save(
                            connection, attempt: started.attempt.id, sequence: sequence, token: token,
                            seat: arrival.seat, saved)
                    }
                    done(.success(()))
                }
            }
            if arrival.newcomer {
                let number = arrival.room * roomSize + arrival.seat
                newStudent(
                    connection, number: number, joinCode: room.joinCode, code: code,
                    checkInTimed: { campus.checkedIn(newcomer: true, took: NIODeadline.now() - $0) },
                    signedIn: { token in campus.noteToken(index, token) }
                ) { result in
                    guard case .success = result, let token = campus.token(of: index) else { return done(result) }
                    afterwards(token)
                }
            } else {
                let token = room.studentTokens[arrival.seat]
                checkIn(connection, code: code(), token: token, index: index) { result in
                    guard case .success = result else { return done(result) }
                    campus.checkedIn(newcomer: false, took: NIODeadline.now() - scheduled)
                    afterwards(token)
                }
            }
        }.run(over: pool)
    }

    /// One quiz save: the next draft of the student's answer.
    func save(
        _ connection: LoopbackConnection, attempt: Int64, sequence: Int, token: String, seat: Int,
        _ done: @escaping (Result<Void, any Error>) -> Void
    ) {
        connection.send(
            .PUT, "/api/v1/quiz-attempts/\(attempt)/answers/\(CampusFixture.questionID)", token: token,
            json: #"{"sequence":\#(sequence),"answer":{"text":"Draft \#(sequence) of \#(seat)"}}"#
        ) { result in
            done(Self.expect(result, .ok, "a save"))
        }
    }

    /// A started attempt's answer, as much as the bench reads.
    struct StartedAttempt: Decodable {
        struct Attempt: Decodable { var id: Int64 }
        var attempt: Attempt
    }

    /// A room's projector on its WebSocket: keeps the code it shows, as the phones in the room scan it.
    func projector(_ room: CampusFixture.Room, index: Int, campus: Campus, port: Int) async throws {
        var configuration = WebSocketClientConfiguration()
        configuration.additionalHeaders[.authorization] = "Bearer \(room.teacherToken)"
        configuration.maxFrameSize = 1 << 24
        try await WebSocketClient.connect(
            url: "ws://127.0.0.1:\(port)" + CheckInRoutes.projectorLive.filled(["sessionID": room.sessionID]),
            configuration: configuration, logger: Logger(label: "bench-projector")
        ) { inbound, _, _ in
            var first = true
            for try await message in inbound.messages(maxSize: 1 << 24) {
                guard case .text(let text) = message,
                    let frame = try? JSONDecoder().decode(ProjectorFrame.self, from: Data(text.utf8))
                else { continue }
                campus.show(frame.code, in: index)
                if first {
                    first = false
                    campus.socketOpened()
                }
            }
        }
    }

    /// A teacher's live room: notes how long after its commit each check-in arrives.
    func teacherRoom(_ room: CampusFixture.Room, index: Int, campus: Campus, port: Int) async throws {
        try await BenchLive.watchRoom(
            port: port, token: room.teacherToken, session: room.sessionID, opened: { campus.socketOpened() },
            arrived: { campus.eventArrived(after: $0) })
    }

    func campusReport(_ campus: Campus, _ outcome: CampusOutcome) -> String {
        let state = campus.results
        func percentile(_ values: [Double], _ p: Double) -> String {
            guard !values.isEmpty else { return "-" }
            let sorted = values.sorted()
            let index = min(sorted.count - 1, max(0, Int((Double(sorted.count) * p / 100).rounded(.up)) - 1))
            return String(format: "%.1f", sorted[index] * 1000)
        }
        func spread(_ values: [Double]) -> String {
            "\(percentile(values, 50)) / \(percentile(values, 95)) / \(percentile(values, 99)) / "
                + "\(percentile(values, 100)) ms"
        }
        let saves = outcome.saves
        let everyCheckIn = state.checkIns.count + state.newcomerCheckIns.count
        let requests =
            outcome.arrivals * 2 + state.newcomerCheckIns.count * 2 + state.attempts.count + saves.latencies.count
        let newcomerWhole = campus.newcomerArrivals(outcome.morning)
        let wholeArrival = "p50 \(percentile(newcomerWhole, 50)) / p99 \(percentile(newcomerWhole, 99)) ms"
        // Registering hashes the password once (it signs in with the same request): most of what a newcomer costs.
        let hash = Self.hashTimes(bcryptCost...bcryptCost).first?.milliseconds ?? .nan
        let hashes = state.newcomerCheckIns.count
        let hashing = String(
            format: "about %.0f s of it %d password hashes at %.0f ms", Double(hashes) * hash / 1000, hashes, hash)
        let cpuEach = String(format: "%.0f", outcome.serverCPU / Double(max(requests, 1)) * 1e6)
        let postgres =
            outcome.postgresCPU.map {
                String(
                    format: "\n  PostgreSQL CPU               %.0f s, %.0f µs a request", $0,
                    $0 / Double(max(requests, 1)) * 1e6)
            } ?? ""
        let rss = outcome.memory.map { String(format: "%.0f MB at the end, %.0f MB at the peak", $0.now, $0.peak) }
        return """

            Campus morning: \(rooms) rooms of \(roomSize) students arriving over \(duration) s on \(campusStore)
            (ROLLCALL_BCRYPT_COST=\(bcryptCost)); every room's projector and teacher's live room open (\(2 * rooms)
            WebSockets); one student in ten (\(outcome.newcomers) a room) registering (signed in by it) and joining on
            the way; \(quizRooms) rooms running a quiz that each student starts once checked in and saves every
            \(String(format: "%g", saveEvery)) s from then. Load generator: this process, one event loop, 2 × \(connections)
            keep-alive connections. The machine's load average before the run: \(outcome.loadBefore).

              check-ins                    \(everyCheckIn) of \(outcome.arrivals)
              check-in p50/p95/p99/max     \(spread(state.checkIns)) (arrival → checked in, \(state.checkIns.count) with accounts)
              newcomers' check-in          \(spread(state.newcomerCheckIns)) (scan → checked in, after registering)
              newcomers' whole arrival     \(wholeArrival) (register and sign in, join, check in)
              live event p50/p95/p99/max   \(spread(state.events)) (commit → the teacher's socket, \(state.events.count) events)
              quiz saves                   \(saves.latencies.count), due → answer \(spread(saves.latencies))
              arrivals that failed         \(Self.failureList(outcome.morning.failures))
              saves that failed            \(Self.failureList(saves.failures))
              server CPU                   \(String(format: "%.0f", outcome.serverCPU)) s over the morning (\(hashing)), \(cpuEach) µs a request \
            (\(requests) requests)\(postgres)
              server RSS                   \(rss.joined(separator: "; "))
            """
    }

    /// Failures counted by what went wrong, the most frequent first.
    static func failureList(_ failures: [String: Int]) -> String {
        guard !failures.isEmpty else { return "none" }
        let total = failures.values.reduce(0, +)
        let kinds = failures.sorted { $0.value > $1.value }.prefix(3).map { "\($0.value) × \($0.key.prefix(100))" }
        return "\(total): " + kinds.joined(separator: "; ")
    }
}

/// What the campus morning has seen so far: each room's current code, the students' tokens and attempts, and every
/// timing.
final class Campus: Sendable {
    struct Results {
        var codes: [String]
        var tokens: [Int: String] = [:]
        var attempts: [Int: (String, Int64)] = [:]
        var opened = 0
        var checkIns: [Double] = []
        var newcomerCheckIns: [Double] = []
        var events: [Double] = []
    }
    private let state: NIOLockedValueBox<Results>
    let expectedEvents: Int
    /// Which arrivals registered first, for their whole-arrival latencies.
    private let newcomers = NIOLockedValueBox<Set<Int>>([])

    init(rooms: Int, expectedEvents: Int) {
        state = NIOLockedValueBox(Results(codes: Array(repeating: "", count: rooms)))
        self.expectedEvents = expectedEvents
    }

    var results: Results { state.withLockedValue { $0 } }

    func show(_ code: String, in room: Int) { state.withLockedValue { $0.codes[room] = code } }
    func code(of room: Int) -> String { state.withLockedValue { $0.codes[room] } }
    func socketOpened() { state.withLockedValue { $0.opened += 1 } }
    func noteToken(_ arrival: Int, _ token: String) {
        state.withLockedValue { $0.tokens[arrival] = token }
        _ = newcomers.withLockedValue { $0.insert(arrival) }
    }
    func token(of arrival: Int) -> String? { state.withLockedValue { $0.tokens[arrival] } }
    func started(_ arrival: Int, token: String, attempt: Int64) {
        state.withLockedValue { $0.attempts[arrival] = (token, attempt) }
    }
    func checkedIn(newcomer: Bool, took: TimeAmount) {
        let seconds = Double(took.nanoseconds) / 1e9
        state.withLockedValue {
            if newcomer { $0.newcomerCheckIns.append(seconds) } else { $0.checkIns.append(seconds) }
        }
    }
    func eventArrived(after delay: Double) { state.withLockedValue { $0.events.append(delay) } }

    /// The whole arrivals of those who registered on the way.
    func newcomerArrivals(_ morning: Measurement) -> [Double] {
        newcomers.withLockedValue { $0 }.map { morning.byIndex[$0].seconds }
    }

    func waitUntilOpen(sockets: Int, timeout: Duration) async throws {
        let deadline = ContinuousClock.now + timeout
        while state.withLockedValue({ $0.opened < sockets || $0.codes.contains("") }) {
            guard ContinuousClock.now < deadline else {
                throw LoopbackError("only \(state.withLockedValue { $0.opened }) of \(sockets) sockets opened")
            }
            try await Task.sleep(for: .milliseconds(20))
        }
    }

    func waitForEvents(timeout: Duration) async throws {
        let deadline = ContinuousClock.now + timeout
        while state.withLockedValue({ $0.events.count }) < expectedEvents {
            guard ContinuousClock.now < deadline else {
                throw LoopbackError(
                    "only \(state.withLockedValue { $0.events.count }) of \(expectedEvents) check-ins reached the rooms"
                )
            }
            try await Task.sleep(for: .milliseconds(20))
        }
    }
}
