import ArgumentParser
import Hummingbird
import RollcallParts
import RollcallServer
import RollcallWeb

/// `rollcall-bench`: measures a Rollcall server on this machine over loopback. The server under measurement runs in
/// a process of its own (this executable's hidden `serve`, the same server as `rollcall serve`), so that its CPU
/// time can be read apart from the load generator's.
@main
struct RollcallBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "rollcall-bench",
        abstract: "Measure a Rollcall server on a fresh database over loopback.",
        discussion: """
            Without a subcommand, runs the check-in rounds (`run`): `rollcall-bench --students 1000`; or a \
            registration storm (--register N), a quiz (--quiz N), or several server processes on PostgreSQL \
            (--database-url postgres://… --processes N). `rollcall-bench live` measures the teacher's live view.

            Build with `swift build -c release` first for meaningful figures.
            """,
        subcommands: [Bench.self, BenchLive.self, MeasuredServe.self],
        defaultSubcommand: Bench.self
    )
}

/// The server under measurement, started by the bench itself: `rollcall serve` without its extras.
struct MeasuredServe: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve", abstract: "Run the server under measurement (started by the bench).",
        shouldDisplay: false
    )
    @Option var hostname: String?
    @Option var port: Int?
    @Option(name: .customLong("data-dir")) var dataDirectory: String?

    func run() async throws {
        let configuration = try Configuration.fromEnvironment(
            hostname: hostname, port: port, dataDirectory: dataDirectory)
        try await buildApplication(configuration).runService()
    }
}
