import Foundation
import HummingbirdBcrypt
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1
import NIOPosix
import RollcallParts
import RollcallServer
import RollcallWeb

/// The first lecture of term: students who have no account yet register (signed in by it), join by code and check in, while
/// students who already have one check in at a steady pace and are timed.
extension Bench {
    /// What the registration rounds measured.
    struct Storm {
        var quiet: Round
        var registrations: Round
        /// The timed room's check-ins during the storm: those scheduled before its last registration finished.
        var duringStorm: Measurement
        var timedDuringStorm: Int
    }

    func measureRegistrations(
        _ server: MeasuredServer, _ fixture: BenchFixture, on loop: any EventLoop, loadBefore: String
    ) async throws {
        try await server.waitUntilUp(on: loop)
        func open(_ count: Int) async throws -> [LoopbackConnection] {
            var connected: [LoopbackConnection] = []
            for _ in 0..<count { connected.append(try await LoopbackConnection.open(to: port, on: loop).get()) }
            return connected
        }
        let timedPool = try await open(8)
        let stormPool = try await open(connections)
        defer { loop.execute { for connection in timedPool + stormPool { connection.close() } } }
        let timedCount = min(fixture.studentTokens.count / 2, quietRate * 10)
        let (quietSession, stormSession) = (fixture.sessionIDs[0], fixture.sessionIDs[1])

        let quietCode = try await projectedCode(timedPool[0], loop, session: quietSession, token: fixture.teacherToken)
        let quiet = try await round(server, timedPool, loop, count: timedCount, rate: quietRate) {
            connection, index, done in
            checkIn(connection, code: quietCode, token: fixture.studentTokens[index], index: index, done: done)
        }

        // A phone scans whatever the projector shows when the student gets there, and a storm at a high cost
        // outlasts one code's period: the code is read again every few seconds, as the projector changes it.
        let projector = try await open(1)[0]
        let (code, refresh) = try await followedCode(
            projector, loop, session: stormSession, token: fixture.teacherToken)
        defer {
            refresh.cancel()
            loop.execute { projector.close() }
        }
        let offset = fixture.studentTokens.count / 2
        async let timed = round(server, timedPool, loop, count: timedCount, rate: quietRate) {
            connection, index, done in
            checkIn(
                connection, code: code.withLockedValue { $0 }, token: fixture.studentTokens[offset + index],
                index: offset + index, done: done)
        }
        let storm = try await round(server, stormPool, loop, count: register, rate: nil) { connection, index, done in
            newStudent(connection, number: index, joinCode: fixture.joinCode, code: { code.withLockedValue { $0 } }) {
                done($0)
            }
        }
        let during = try await timed
        let spacing = 1.0 / Double(quietRate)
        let timedDuringStorm = min(timedCount, max(1, Int(storm.measurement.total.seconds / spacing)))
        print(
            report(
                Storm(
                    quiet: quiet, registrations: storm, duringStorm: during.measurement.only(0..<timedDuringStorm),
                    timedDuringStorm: timedDuringStorm),
                timedCount: timedCount, loadBefore: loadBefore))
    }

    /// The code a projector shows, read again every 2 seconds until the task is cancelled.
    func followedCode(_ projector: LoopbackConnection, _ loop: any EventLoop, session: Int64, token: String)
        async throws -> (NIOLockedValueBox<String>, RepeatedTask)
    {
        let code = NIOLockedValueBox(
            try await projectedCode(projector, loop, session: session, token: token))
        let refresh = loop.scheduleRepeatedAsyncTask(initialDelay: .seconds(2), delay: .seconds(2)) { _ in
            let promise = loop.makePromise(of: Void.self)
            projector.send(
                .GET, CheckInRoutes.projector.filled(["sessionID": session]), token: token
            ) { result in
                if case .success(let answer) = result, let frame = try? answer.json(ProjectorFrame.self) {
                    code.withLockedValue { $0 = frame.code }
                }
                promise.succeed(())
            }
            return promise.futureResult
        }
        return (code, refresh)
    }

    /// A student's first morning: register with an email address and a password, signed in by the same request (one
    /// bcrypt), join the course by its code, then scan and check in. Each student comes from an address of their own, as phones
    /// on a campus network behind a proxy appear, so that the per-address limits on registering do not apply.
    func newStudent(
        _ connection: LoopbackConnection, number: Int, joinCode: String, code: @escaping () -> String,
        checkInTimed: @escaping (NIODeadline) -> Void = { _ in }, signedIn: @escaping (String) -> Void = { _ in },
        done: @escaping (Result<Void, any Error>) -> Void
    ) {
        let email = "new\(number)@bench.rollcall.test"
        let password = "bench-password-\(number)"
        let address = "10.\(number / 65536 % 256).\(number / 256 % 256).\(number % 256)"
        func step(
            _ method: HTTPMethod, _ path: String, token: String? = nil, json: String, expect: HTTPResponseStatus,
            then: @escaping (LoopbackAnswer) -> Void
        ) {
            connection.send(method, path, token: token, json: json, forwardedFor: address) { result in
                switch result {
                case .failure(let error): done(.failure(error))
                case .success(let answer) where answer.status != expect:
                    done(.failure(LoopbackError("\(path) answered \(answer.status): \(String(buffer: answer.body))")))
                case .success(let answer): then(answer)
                }
            }
        }
        let registration =
            #"{"name":"New Student \#(number)","email":"\#(email)","password":"\#(password)","signIn":"token"}"#
        step(.POST, "/api/v1/auth/register", json: registration, expect: .created) { answer in
            guard let token = try? answer.json(SignedIn.self).token else {
                return done(.failure(LoopbackError("registering answered no token")))
            }
            signedIn(token)
            step(.POST, "/api/v1/courses/join", token: token, json: #"{"code":"\#(joinCode)"}"#, expect: .ok) { _ in
                let began = NIODeadline.now()
                checkIn(connection, code: code(), token: token, index: 1_000_000 + number) { result in
                    if case .success = result { checkInTimed(began) }
                    done(result)
                }
            }
        }
    }

    /// How long one bcrypt hash takes at each cost, on one core of this machine.
    static func hashTimes(_ costs: ClosedRange<Int>) -> [(cost: Int, milliseconds: Double)] {
        costs.map { cost in
            let start = ContinuousClock.now
            _ = Bcrypt.hash("bench-password", cost: UInt8(cost))
            return (cost, (ContinuousClock.now - start).seconds * 1000)
        }
    }

    func report(_ storm: Storm, timedCount: Int, loadBefore: String) -> String {
        let hashes = Self.hashTimes(Configuration.bcryptCosts.lowerBound...min(bcryptCost + 2, 14))
            .map { "cost \($0.cost): \(String(format: "%.0f", $0.milliseconds)) ms" }.joined(separator: ", ")
        let registrations = storm.registrations
        let perRegistration = registrations.serverCPU / Double(register) * 1000
        let ratio = { (during: Measurement, quiet: Measurement) -> String in
            let quietP99 = quiet.latencies[max(0, Int((Double(quiet.latencies.count) * 0.99).rounded(.up)) - 1)]
            let duringP99 = during.latencies[max(0, Int((Double(during.latencies.count) * 0.99).rounded(.up)) - 1)]
            return String(format: "%.2f", duringP99.seconds / quietP99.seconds)
        }(storm.duringStorm, storm.quiet.measurement)
        return """

            Server: in its own process (the same server as `rollcall serve`), fresh SQLite file (WAL),
            ROLLCALL_BCRYPT_COST=\(bcryptCost), on \(System.coreCount) cores; load generator: this process, one
            event loop. The machine's load average before the run: \(loadBefore).

            Quiet room: \(timedCount) students with accounts checking in, \(quietRate) a second (open loop):
              latency p50 / p95 / p99  \(storm.quiet.measurement.percentile(50)) / \
            \(storm.quiet.measurement.percentile(95)) / \(storm.quiet.measurement.percentile(99)) ms

            Registration storm: \(register) new students released at once over \(connections) connections, each
            registering (email and password, signed in by it), joining by code, scanning and checking in:
              registrations/s          \(String(format: "%.1f", registrations.measurement.perSecond)) at bcrypt cost \
            \(bcryptCost) (one hash each: registering signs in)
              whole first check-in p50 / p99  \(registrations.measurement.percentile(50)) / \
            \(registrations.measurement.percentile(99)) ms (from the release to "checked in")
              server CPU per student   \(String(format: "%.0f", perRegistration)) ms
              storm lasted             \(String(format: "%.1f", registrations.measurement.total.seconds)) s
            The same steady room during the storm (\(storm.timedDuringStorm) check-ins scheduled while it lasted):
              latency p50 / p95 / p99  \(storm.duringStorm.percentile(50)) / \(storm.duringStorm.percentile(95)) / \
            \(storm.duringStorm.percentile(99)) ms
              p99 during the storm ÷ p99 quiet: \(ratio)

            One bcrypt hash on one core of this machine: \(hashes).
            A first lecture without a password: none exists yet; every account starts with an email and a password
            (a passkey is added to an account, not used to create one), so there is nothing to time.
            """
    }
}
