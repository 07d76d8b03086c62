import Foundation
import Testing

/// `rollcall-bench` refuses options it cannot run with, before it prepares anything: each with its sentence and the
/// usage error's exit status.
@Suite("rollcall-bench options", .timeLimit(.minutes(5)))
struct BenchOptionsTests {
    /// The `rollcall-bench` binary `swift build` puts beside the test bundle.
    static var binary: String {
        URL(fileURLWithPath: CommandLineRun.binary).deletingLastPathComponent()
            .appendingPathComponent("rollcall-bench").path
    }

    @Test(arguments: [
        (["--students", "0"], "--students must be 1 to 100000."),
        (["--connections", "2000"], "--connections must be 1 to 1024."),
        (["--processes", "0"], "--processes must be 1 to 16."),
        (["--database-url", "mysql://localhost/bench"], "--database-url must be a postgres:// URL."),
        (["--register=-1"], "--register must be 0 to 100000."),
        (["--bcrypt-cost", "3"], "--bcrypt-cost must be 10...16."),
        (["--quiz", "0"], "--quiz must be 1 to 100000."),
        (["--seconds", "2"], "--seconds must be 4 to 3600."),
        (["--campus", "--rooms", "0"], "--rooms must be 1 to 1000."),
        (["--campus", "--room-size", "5"], "--room-size must be 10 to 1000."),
        (["--campus", "--rooms", "2", "--quiz-rooms", "3"], "--quiz-rooms must be 0 to --rooms."),
        (["--campus", "--save-every", "0.1"], "--save-every must be 0.5 to 600."),
        (["--students", "many"], "--students"),
    ])
    func a_bad_option_is_refused_with_its_range(arguments: [String], says: String) async throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Self.binary)
        process.arguments = arguments
        let (errors, output) = (Pipe(), Pipe())
        process.standardError = errors
        process.standardOutput = output
        try process.run()
        let text = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        let printed = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 64, "\(arguments): \(text)")
        #expect(text.contains(says), "\(arguments): \(text)")
        #expect(printed.isEmpty, "nothing is prepared before the options are checked: \(printed)")
    }
}
