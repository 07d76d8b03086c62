import Foundation

/// A throwaway PostgreSQL server on loopback, started from Debian's binaries in a temporary directory.
public struct PostgresServer: Sendable {
    public let directory: String
    public let port: Int
    public let binaries: String
    public let owner: String?

    public var url: String { "postgres://rollcall@127.0.0.1:\(port)/postgres?sslmode=disable" }

    public struct Missing: Error, CustomStringConvertible {
        public var description: String
    }

    /// Starts a server, on another random port when the first one was taken meanwhile.
    public static func start() throws -> PostgresServer {
        var attempt = 0
        while true {
            do {
                return try startOnce()
            } catch let error as Missing where attempt < 2 && error.description.contains("pg_ctl") {
                attempt += 1
            }
        }
    }

    private static func startOnce() throws -> PostgresServer {
        let versions = (try? FileManager.default.contentsOfDirectory(atPath: "/usr/lib/postgresql")) ?? []
        guard let version = versions.sorted(by: { Int($0) ?? 0 < Int($1) ?? 0 }).last,
            FileManager.default.isExecutableFile(atPath: "/usr/lib/postgresql/\(version)/bin/initdb")
        else { throw Missing(description: "PostgreSQL is missing: install Debian's postgresql (make deps does).") }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "rollcall-pg-\(UUID().uuidString)"
        ).path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        // PostgreSQL refuses to run as root; as root, the server runs as the postgres account.
        let owner = getuid() == 0 ? "postgres" : nil
        if let owner { try run("/bin/chown", [owner, directory], as: nil) }
        let server = PostgresServer(
            directory: directory, port: Int.random(in: 20_000...60_000), binaries: "/usr/lib/postgresql/\(version)/bin",
            owner: owner
        )
        try run("\(server.binaries)/initdb", ["-D", "\(directory)/data", "-A", "trust", "-U", "rollcall"], as: owner)
        do {
            try run(
                "\(server.binaries)/pg_ctl",
                [
                    "-D", "\(directory)/data", "-w", "-l", "\(directory)/log",
                    "-o", "-p \(server.port) -k \(directory) -c listen_addresses=127.0.0.1 -c fsync=off", "start",
                ],
                as: owner
            )
        } catch {
            // Seen once on a busy machine: the random port was taken. The caller tries another.
            try? FileManager.default.removeItem(atPath: directory)
            throw error
        }
        return server
    }

    /// Stops the server and keeps its data, as an outage does; `resume` starts it again on the same port.
    public func halt() throws {
        try Self.run("\(binaries)/pg_ctl", ["-D", "\(directory)/data", "-m", "fast", "-w", "stop"], as: owner)
    }

    /// Starts a halted server again with its data.
    public func resume() throws {
        try Self.run(
            "\(binaries)/pg_ctl",
            [
                "-D", "\(directory)/data", "-w", "-l", "\(directory)/log",
                "-o", "-p \(port) -k \(directory) -c listen_addresses=127.0.0.1 -c fsync=off", "start",
            ],
            as: owner
        )
    }

    public func stop() {
        try? Self.run("\(binaries)/pg_ctl", ["-D", "\(directory)/data", "-m", "immediate", "stop"], as: owner)
        try? FileManager.default.removeItem(atPath: directory)
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
