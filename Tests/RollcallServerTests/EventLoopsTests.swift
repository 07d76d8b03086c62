import Foundation
import NIOCore
import RollcallParts
import RollcallWords
import ServerTestSupport
import Testing

/// The real `rollcall serve` process runs as many event loops as `ROLLCALL_EVENT_LOOPS` says, its default when
/// nothing does (every core on SQLite, half on PostgreSQL), and refuses a count it cannot run.
@Suite("Event loops", .timeLimit(.minutes(2)))
struct EventLoopsTests {
    @Test func the_count_is_read_and_checked_at_start() throws {
        let embedded = try Configuration.fromEnvironment([:])
        #expect(embedded.eventLoops == nil && embedded.defaultEventLoops == System.coreCount)
        let shared = try Configuration.fromEnvironment(["ROLLCALL_DATABASE_URL": "postgres://db.school.edu/rollcall"])
        #expect(shared.defaultEventLoops == max(1, System.coreCount / 2))
        #expect(try Configuration.fromEnvironment(["ROLLCALL_EVENT_LOOPS": "3"]).eventLoops == 3)
        for bad in ["0", "-1", "two", "1.5", "1025", "3 threads"] {
            let error = #expect(throws: ConfigurationError.self, "\(bad)") {
                try Configuration.fromEnvironment(["ROLLCALL_EVENT_LOOPS": bad])
            }
            #expect(error?.variable == "ROLLCALL_EVENT_LOOPS")
            #expect(error?.description.contains("from 1 to 1024") == true, "\(String(describing: error))")
        }
    }

    @Test func serve_on_sqlite_runs_a_loop_per_core_by_default_and_the_count_it_is_given() async throws {
        #expect(try await loops(environment: [:]) == System.coreCount)
        #expect(try await loops(environment: ["ROLLCALL_EVENT_LOOPS": "3"]) == 3)
    }

    @Test func serve_on_postgresql_runs_a_loop_for_two_cores_by_default() async throws {
        let postgres = try PostgresServer.start()
        defer { postgres.stop() }
        #expect(try await loops(environment: ["ROLLCALL_DATABASE_URL": postgres.url]) == max(1, System.coreCount / 2))
    }

    @Test func serve_refuses_a_count_it_cannot_run_naming_the_setting() async throws {
        let (process, output, errors, directory) = ShutdownTests.serve(
            ["--port", "\(try RawConnection.unusedPort())"], environment: ["ROLLCALL_EVENT_LOOPS": "0"])
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try process.run()
        defer { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }
        let said = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        let complained = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus != 0)
        #expect(!said.contains("is running"), "printed \(said)")
        #expect(complained.contains("ROLLCALL_EVENT_LOOPS"), "said \(complained)")
    }

    /// How many event loop threads a `rollcall serve` started with `environment` runs once it answers.
    private func loops(environment: [String: String]) async throws -> Int {
        let port = try RawConnection.unusedPort()
        // The test's own environment may name a count: the default is asked for by its absence.
        var environment = environment
        if environment["ROLLCALL_EVENT_LOOPS"] == nil { environment["ROLLCALL_EVENT_LOOPS"] = "" }
        let (process, _, _, directory) = ShutdownTests.serve(["--port", "\(port)"], environment: environment)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try process.run()
        defer {
            if process.isRunning {
                kill(process.processIdentifier, SIGKILL)
                process.waitUntilExit()
            }
        }
        let started = ContinuousClock.now
        var up = false
        while !up, process.isRunning, ContinuousClock.now - started < .seconds(60) {
            if let probe = try? await RawConnection.open(port: port) {
                try await probe.send(ConnectionTests.healthz)
                _ = await probe.closed(within: 10)
                up = probe.received.hasPrefix("HTTP/1.1 200 ")
            }
            if !up { try await Task.sleep(for: .milliseconds(100)) }
        }
        try #require(up, "rollcall serve did not answer /healthz")
        // NIO names each loop of its shared group NIO-SGLTN-<group>-#<loop>.
        let tasks = "/proc/\(process.processIdentifier)/task"
        return try FileManager.default.contentsOfDirectory(atPath: tasks).count { thread in
            let name = try? String(contentsOfFile: "\(tasks)/\(thread)/comm", encoding: .utf8)
            return name?.hasPrefix("NIO-SGLTN-") == true
        }
    }
}
