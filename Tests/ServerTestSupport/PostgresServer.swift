import Foundation

/// A throwaway PostgreSQL server on loopback, started from Debian's binaries in a temporary directory; a primary
/// can be given a standby made with PostgreSQL's own tools, for failover.
public struct PostgresServer: Sendable {
    public let directory: String
    public let port: Int
    public let binaries: String
    public let owner: String?
    /// The `-c` settings given at every start, so that `resume` starts the server as it was.
    public var settings: [String] = []

    public var url: String { "postgres://rollcall@127.0.0.1:\(port)/postgres?sslmode=disable" }

    /// One URL listing `servers` in order, as libpq takes it, for clients that look for the one that takes writes.
    public static func url(listing servers: [PostgresServer]) -> String {
        let hosts = servers.map { "127.0.0.1:\($0.port)" }.joined(separator: ",")
        return "postgres://rollcall@\(hosts)/postgres?sslmode=disable&target_session_attrs=read-write"
    }

    public struct Missing: Error, CustomStringConvertible {
        public var description: String
    }

    /// Starts a server, on another random port when the first one was taken meanwhile. With `synchronousStandby`,
    /// a commit waits until a standby has the change too, so none acknowledged is lost with this server; until a
    /// standby is connected (`startStandby`), every write waits.
    public static func start(synchronousStandby: Bool = false) throws -> PostgresServer {
        let settings =
            synchronousStandby
            ? ["max_wal_senders=4", "synchronous_commit=on", "synchronous_standby_names='*'"] : []
        return try onFreePort { try startOnce(settings: settings) }
    }

    private static func onFreePort(_ start: () throws -> PostgresServer) throws -> PostgresServer {
        var attempt = 0
        while true {
            do {
                return try start()
            } catch let error as Missing where attempt < 2 && error.description.contains("pg_ctl") {
                attempt += 1
            }
        }
    }

    private static func startOnce(settings: [String]) throws -> PostgresServer {
        let versions = (try? FileManager.default.contentsOfDirectory(atPath: "/usr/lib/postgresql")) ?? []
        guard let version = versions.sorted(by: { Int($0) ?? 0 < Int($1) ?? 0 }).last,
            FileManager.default.isExecutableFile(atPath: "/usr/lib/postgresql/\(version)/bin/initdb")
        else { throw Missing(description: "PostgreSQL is missing: install Debian's postgresql (make deps does).") }
        let server = try made(binaries: "/usr/lib/postgresql/\(version)/bin", settings: settings)
        try run(
            "\(server.binaries)/initdb", ["-D", "\(server.directory)/data", "-A", "trust", "-U", "rollcall"],
            as: server.owner)
        // initdb's own file trusts replication from loopback already; said here, as a real primary has to.
        let access = try FileHandle(forWritingTo: URL(fileURLWithPath: "\(server.directory)/data/pg_hba.conf"))
        try access.seekToEnd()
        try access.write(contentsOf: Data("host replication rollcall 127.0.0.1/32 trust\n".utf8))
        try access.close()
        try server.startOrRemove()
        return server
    }

    /// A server's directory, owned by whoever runs PostgreSQL, and a random port.
    private static func made(binaries: String, settings: [String]) throws -> PostgresServer {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "rollcall-pg-\(UUID().uuidString)"
        ).path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        // PostgreSQL refuses to run as root; as root, the server runs as the postgres account.
        let owner = getuid() == 0 ? "postgres" : nil
        if let owner { try run("/bin/chown", [owner, directory], as: nil) }
        return PostgresServer(
            directory: directory, port: Int.random(in: 20_000...60_000), binaries: binaries, owner: owner,
            settings: settings)
    }

    private func startOrRemove() throws {
        do {
            try start()
        } catch {
            // Seen once on a busy machine: the random port was taken. The caller tries another.
            try? FileManager.default.removeItem(atPath: directory)
            throw error
        }
    }

    /// Starts a standby of this server on a port of its own: a copy taken by `pg_basebackup -R`, which also writes
    /// how to follow this server, so the standby streams every change from then on. It answers reads only, until
    /// `promote`. The standby is not synchronous itself: once promoted, its commits wait for nobody.
    public func startStandby() throws -> PostgresServer {
        try Self.onFreePort {
            let standby = try Self.made(binaries: binaries, settings: [])
            do {
                try Self.run(
                    "\(binaries)/pg_basebackup",
                    ["-h", "127.0.0.1", "-p", "\(port)", "-U", "rollcall", "-D", "\(standby.directory)/data", "-R"],
                    as: owner)
            } catch {
                try? FileManager.default.removeItem(atPath: standby.directory)
                throw error
            }
            try standby.startOrRemove()
            return standby
        }
    }

    /// Waits until a standby confirms this server's commits, so that the writes which follow wait for it.
    public func waitForSynchronousStandby(within limit: Duration = .seconds(120)) async throws {
        let deadline = ContinuousClock.now + limit
        while try query("SELECT count(*) FROM pg_stat_replication WHERE sync_state = 'sync'") == "0" {
            guard ContinuousClock.now < deadline else {
                throw Missing(description: "no synchronous standby of the server on port \(port) within \(limit)")
            }
            try await Task.sleep(for: .milliseconds(100))
        }
    }

    /// Stops the server and keeps its data, as an outage does; `resume` starts it again on the same port.
    public func halt() async throws {
        try await offThread { try stop(mode: "fast") }
    }

    /// Starts a halted server again with its data.
    public func resume() async throws {
        try await offThread { try start() }
    }

    /// `pg_ctl start`, waiting on the caller's thread.
    private func start() throws {
        let options =
            ["-p \(port) -k \(directory) -c listen_addresses=127.0.0.1 -c fsync=off"] + settings.map { "-c \($0)" }
        try Self.run(
            "\(binaries)/pg_ctl",
            ["-D", "\(directory)/data", "-w", "-l", "\(directory)/log", "-o", options.joined(separator: " "), "start"],
            as: owner
        )
    }

    /// Stops the server as a crash does: at once, without a checkpoint and without waiting for its clients, whose
    /// connections simply break. The data stays, as a crashed machine's disk would.
    public func crash() async throws {
        try await offThread { try stop(mode: "immediate") }
    }

    /// `pg_ctl stop` in `mode`, waiting on the caller's thread until the server has stopped.
    private func stop(mode: String) throws {
        try Self.run("\(binaries)/pg_ctl", ["-D", "\(directory)/data", "-m", mode, "-w", "stop"], as: owner)
    }

    /// Makes a standby the primary, as an operator does after the primary is lost; returns once it takes writes.
    public func promote() throws {
        try Self.run("\(binaries)/pg_ctl", ["-D", "\(directory)/data", "-w", "promote"], as: owner)
    }

    /// The answer to `sql` from psql, unaligned: a test's look at the server beside the application's pool.
    public func query(_ sql: String) throws -> String {
        let output = "\(directory)-query-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: output) }
        try Self.run(
            "\(binaries)/psql",
            [
                "-X", "-At", "-h", "127.0.0.1", "-p", "\(port)", "-U", "rollcall", "-d", "postgres", "-o", output, "-c",
                sql,
            ],
            as: nil)
        return (try String(contentsOfFile: output, encoding: .utf8)).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    public func stop() {
        try? Self.run("\(binaries)/pg_ctl", ["-D", "\(directory)/data", "-m", "immediate", "stop"], as: owner)
        keepLog()
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// What the server has logged so far: its errors, as the deadlocks it detected and which statements they ended.
    public func log() throws -> String {
        try String(contentsOfFile: "\(directory)/log", encoding: .utf8)
    }

    /// With `ROLLCALL_TEST_POSTGRES_LOGS` set to a folder, the server's log is copied there before its directory goes,
    /// for a failure seen once in many runs (a deadlock, a lock wait) that only the server's side explains.
    private func keepLog() {
        guard let folder = ProcessInfo.processInfo.environment["ROLLCALL_TEST_POSTGRES_LOGS"] else { return }
        let name = "\(folder)/\((directory as NSString).lastPathComponent).log"
        try? FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try? FileManager.default.copyItem(atPath: "\(directory)/log", toPath: name)
    }

    /// Runs a command to completion. `system` rather than `Process`: pg_ctl leaves a daemon behind, and
    /// Foundation's `Process` on Linux was seen never to reap the finished child then.
    public static func run(_ executable: String, _ arguments: [String], as user: String?) throws {
        let words = (user.map { ["/usr/sbin/runuser", "-u", $0, "--"] } ?? []) + [executable] + arguments
        let command = words.map { "'" + $0.replacingOccurrences(of: "'", with: "'\\''") + "'" }.joined(separator: " ")
        let status = system(command + " >/dev/null 2>&1")
        guard status == 0 else {
            throw Missing(description: "\(executable) \(arguments.joined(separator: " ")) failed (\(status))")
        }
    }
}

/// Runs `work` on a thread of its own: a command that waits for another program (pg_ctl, psql) would otherwise hold
/// one of the few threads every task of the test process, and its server, runs on.
public func offThread<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        Thread { continuation.resume(with: Result { try work() }) }.start()
    }
}
