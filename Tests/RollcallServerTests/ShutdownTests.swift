import Foundation
import Testing

/// The real `rollcall serve` process stops promptly on SIGTERM, even with connections open that asked nothing.
@Suite("Shutdown", .timeLimit(.minutes(2)))
struct ShutdownTests {
    /// The `rollcall` binary `swift build` puts beside the test bundle.
    static var binary: String {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        return root.appendingPathComponent(".build/debug/rollcall").path
    }

    /// `rollcall serve` with `arguments`, not yet started: its data in a directory of its own, which the caller
    /// removes; its output and its log (errors only) in pipes.
    static func serve(_ arguments: [String], environment: [String: String] = [:]) -> (
        process: Process, output: Pipe, errors: Pipe, directory: String
    ) {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("rollcall-serve-\(UUID())").path
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Self.binary)
        process.arguments = ["serve"] + arguments + ["--data-dir", directory]
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
            .merging(["ROLLCALL_LOG_LEVEL": "error"]) { $1 }
        let (output, errors) = (Pipe(), Pipe())
        process.standardOutput = output
        process.standardError = errors
        return (process, output, errors, directory)
    }

    @Test func sigterm_stops_the_server_within_seconds_with_idle_connections_open() async throws {
        // The kernel's pick: a port drawn at random was once taken by another process on a busy machine.
        let port = try RawConnection.unusedPort()
        // Room for 40: the 50 idle connections below evict the oldest of them as they come.
        let (process, output, errors, directory) = Self.serve(
            ["--port", "\(port)"], environment: ["ROLLCALL_MAX_CONNECTIONS": "40"])
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let (exits, exited) = AsyncStream<Void>.makeStream()
        process.terminationHandler = { _ in
            exited.yield()
            exited.finish()
        }
        try process.run()
        defer { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }

        // Up once /healthz answers.
        let started = ContinuousClock.now
        var up = false
        while !up, ContinuousClock.now - started < .seconds(60) {
            if let probe = try? await RawConnection.open(port: port) {
                try await probe.send(ConnectionTests.healthz)
                _ = await probe.closed(within: 10)
                up = probe.received.hasPrefix("HTTP/1.1 200 ")
            }
            if !up { try await Task.sleep(for: .milliseconds(100)) }
        }
        try #require(up, "rollcall serve did not answer /healthz")

        var idle: [RawConnection] = []
        for _ in 0..<50 { idle.append(try await RawConnection.open(port: port)) }
        let halfSent = try await RawConnection.open(port: port)
        try await halfSent.send("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n")
        let keptAlive = try await RawConnection.open(port: port)
        try await keptAlive.send("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        let garbage = try await RawConnection.open(port: port)
        try await garbage.send("\u{16}\u{03}\u{01} this is not HTTP at all\r\n\r\n")
        #expect(await garbage.closed(within: 20) && garbage.received.hasPrefix("HTTP/1.1 400 "))

        let signalled = ContinuousClock.now
        kill(process.processIdentifier, SIGTERM)
        let stopped = await withTaskGroup(of: Bool.self) { group in
            group.addTask {
                for await _ in exits { return true }
                return true
            }
            group.addTask {
                try? await Task.sleep(for: .seconds(10))
                return false
            }
            let first = await group.next() ?? false
            group.cancelAll()
            return first
        }
        #expect(stopped, "rollcall serve still runs 10 s after SIGTERM")
        #expect(ContinuousClock.now - signalled < .seconds(10))
        for connection in idle + [halfSent, keptAlive, garbage] { await connection.close() }
        let said = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(said.contains("Rollcall is running at "))
        // Idle connections evicted or closed by the shutdown, and one answered 400, are routine, not errors in the log.
        let logged = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(!logged.contains(" error "), "\(logged)")
    }

    /// The probe the tests above wait with gives up at its deadline on a listener that never answers (the kernel
    /// accepts the connection; nothing reads it), where it once waited for the connection to close.
    @Test func a_probe_of_a_listener_that_never_answers_gives_up_at_its_deadline() async throws {
        let held = try RawConnection.heldPort()
        defer { Foundation.close(held.socket) }
        let probe = try await RawConnection.open(port: held.port)
        try await probe.send(ConnectionTests.healthz)
        let started = ContinuousClock.now
        #expect(await probe.closed(within: 1) == false)
        #expect(ContinuousClock.now - started < .seconds(30))
        await probe.close()
    }

    /// A port another program holds: a sentence saying so, exit status 1, and no claim that Rollcall is running.
    @Test func serve_on_a_port_another_program_holds_says_so_and_exits() async throws {
        let held = try RawConnection.heldPort()
        defer { Foundation.close(held.socket) }
        let (process, output, errors, directory) = Self.serve(["--hostname", "127.0.0.1", "--port", "\(held.port)"])
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try process.run()
        defer { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }
        // Reading to the end returns once the process has exited and closed its ends.
        let said = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        let complained = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 1)
        #expect(!said.contains("is running"), "printed \(said)")
        #expect(
            complained.contains(
                "Rollcall cannot listen on 127.0.0.1:\(held.port): another program already uses that port."),
            "said \(complained)")
    }
}
