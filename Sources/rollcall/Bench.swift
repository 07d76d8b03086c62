import ArgumentParser
import AsyncHTTPClient
import Foundation
import Hummingbird
import NIOCore
import RollcallServer

/// `rollcall bench`: a room of students checking in at once, measured against the same server's `/healthz`.
struct Bench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Measure check-ins per second and their latency on a fresh server over loopback."
    )
    @Option(help: "Students checking in, all at once.")
    var students = 1000
    @Option(help: "Open connections from the load generator to the server.")
    var connections = 64
    @Option(help: "Requests to /healthz for the baseline.")
    var healthRequests = 5000
    @Option(help: "Port for the measured server.")
    var port = 8099

    func validate() throws {
        guard (1...100_000).contains(students) else { throw ValidationError("--students must be 1 to 100000.") }
        guard (1...1024).contains(connections) else { throw ValidationError("--connections must be 1 to 1024.") }
    }

    func run() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "rollcall-bench-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let configuration = Configuration(
            hostname: "127.0.0.1", port: port, dataDirectory: directory.path, logLevel: .error
        )
        print("Preparing \(students) students on a fresh SQLite file…")
        let fixture = try await BenchFixture.make(configuration, students: students)
        let app = try await buildApplication(configuration)
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await app.runService(gracefulShutdownSignals: []) }
            let base = "http://127.0.0.1:\(port)"
            var clientConfiguration = HTTPClient.Configuration(redirectConfiguration: .disallow)
            clientConfiguration.connectionPool = .init(
                idleTimeout: .seconds(60), concurrentHTTP1ConnectionsPerHostSoftLimit: connections
            )
            let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: clientConfiguration)
            do {
                try await waitUntilUp(client, base)
                let health = try await measure(count: healthRequests) { _ in
                    let response = try await client.execute(
                        HTTPClientRequest(url: "\(base)/healthz"), timeout: .seconds(30))
                    _ = try await response.body.collect(upTo: 1024)
                    guard response.status == .ok else { throw BenchError("healthz answered \(response.status)") }
                }
                let code = try await projectedCode(client, base, fixture)
                let checkIns = try await measure(count: students) { index in
                    try await checkIn(client, base, code: code, token: fixture.studentTokens[index], index: index)
                }
                print(report(health: health, checkIns: checkIns))
                try await client.shutdown()
            } catch {
                try? await client.shutdown()
                group.cancelAll()
                throw error
            }
            group.cancelAll()
        }
    }

    /// One student's whole check-in: open the scanned link, follow it to the ticket, check in with it.
    func checkIn(_ client: HTTPClient, _ base: String, code: String, token: String, index: Int) async throws {
        var scan = HTTPClientRequest(url: "\(base)/C/\(code)")
        scan.headers.add(name: "Authorization", value: "Bearer \(token)")
        let scanned = try await client.execute(scan, timeout: .seconds(30))
        _ = try await scanned.body.collect(upTo: 64 * 1024)
        guard scanned.status == .found, let location = scanned.headers.first(name: "Location") else {
            throw BenchError("the scan answered \(scanned.status)")
        }
        var request = HTTPClientRequest(url: "\(base)/api/v1/check-ins")
        request.method = .POST
        request.headers.add(name: "Authorization", value: "Bearer \(token)")
        request.headers.add(name: "Content-Type", value: "application/json")
        let ticket = location.dropFirst("/check-in/".count)
        request.body = .bytes(ByteBuffer(string: #"{"ticket":"\#(ticket)","deviceId":"bench-device-\#(index)"}"#))
        let response = try await client.execute(request, timeout: .seconds(30))
        let body = try await response.body.collect(upTo: 64 * 1024)
        guard response.status == .created else {
            throw BenchError("a check-in answered \(response.status): \(String(buffer: body))")
        }
    }

    func projectedCode(_ client: HTTPClient, _ base: String, _ fixture: BenchFixture) async throws -> String {
        var request = HTTPClientRequest(url: "\(base)/api/v1/sessions/\(fixture.sessionID)/projector")
        request.headers.add(name: "Authorization", value: "Bearer \(fixture.teacherToken)")
        let response = try await client.execute(request, timeout: .seconds(30))
        let body = try await response.body.collect(upTo: 1024 * 1024)
        struct Frame: Decodable { var url: String }
        let frame = try JSONDecoder().decode(Frame.self, from: body)
        return String(frame.url.suffix(32))
    }

    func waitUntilUp(_ client: HTTPClient, _ base: String) async throws {
        for _ in 0..<100 {
            if let response = try? await client.execute(
                HTTPClientRequest(url: "\(base)/healthz"), timeout: .seconds(1)),
                response.status == .ok
            {
                return
            }
            try await Task.sleep(for: .milliseconds(100))
        }
        throw BenchError("the server did not start on port \(port)")
    }

    /// Runs `count` operations all at once and times each, and the whole.
    func measure(count: Int, _ operation: @escaping @Sendable (Int) async throws -> Void) async throws -> Measurement {
        let start = ContinuousClock.now
        let latencies = try await withThrowingTaskGroup(of: Duration.self) { group in
            for index in 0..<count {
                group.addTask {
                    let began = ContinuousClock.now
                    try await operation(index)
                    return ContinuousClock.now - began
                }
            }
            var latencies: [Duration] = []
            for try await latency in group { latencies.append(latency) }
            return latencies
        }
        return Measurement(total: ContinuousClock.now - start, latencies: latencies.sorted())
    }

    func report(health: Measurement, checkIns: Measurement) -> String {
        """

        \(students) students checking in at once over \(connections) connections (scan + check-in each):
          check-ins/s      \(Int(checkIns.perSecond))
          latency p50      \(checkIns.percentile(50)) ms
          latency p95      \(checkIns.percentile(95)) ms
          latency p99      \(checkIns.percentile(99)) ms
        /healthz baseline (\(healthRequests) requests, same server, same run):
          requests/s       \(Int(health.perSecond))
          latency p99      \(health.percentile(99)) ms
        ratio check-ins/s ÷ /healthz requests/s: \(String(format: "%.2f", checkIns.perSecond / health.perSecond))
        """
    }
}

struct Measurement {
    var total: Duration
    var latencies: [Duration]

    var perSecond: Double { Double(latencies.count) / total.seconds }

    func percentile(_ p: Int) -> String {
        let index = min(latencies.count - 1, Int((Double(latencies.count) * Double(p) / 100).rounded(.up)) - 1)
        return String(format: "%.1f", latencies[max(0, index)].seconds * 1000)
    }
}

extension Duration {
    var seconds: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }
}

struct BenchError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
