import Foundation
import Testing

/// The built `rollcall` binary, run as a teacher runs it, with its own configuration directory.
struct CommandLineRun: Sendable {
    let configDirectory: String
    /// The shell's locale (`LANG`); the POSIX one, which names no language, unless a test sets another.
    var locale = "C.UTF-8"

    init(locale: String = "C.UTF-8") {
        configDirectory =
            FileManager.default.temporaryDirectory
            .appendingPathComponent("rollcall-cli-\(UUID().uuidString)").path
        self.locale = locale
    }

    /// The `rollcall` binary `swift build` puts beside the test bundle.
    static var binary: String {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent()
        return root.appendingPathComponent(".build/debug/rollcall").path
    }

    /// What a finished command printed, and its exit status.
    struct Ended: Sendable {
        var status: Int32
        var output: String
        var errors: String
    }

    /// A command still running, such as `watch`.
    final class Running: @unchecked Sendable {
        let process = Process()
        let outputFile: String
        let errorFile: String
        let exits: AsyncStream<Int32>

        init(_ exits: AsyncStream<Int32>, outputFile: String, errorFile: String) {
            self.exits = exits
            self.outputFile = outputFile
            self.errorFile = errorFile
        }

        /// What it printed so far.
        var output: String { (try? String(contentsOfFile: outputFile, encoding: .utf8)) ?? "" }
        var errors: String { (try? String(contentsOfFile: errorFile, encoding: .utf8)) ?? "" }

        /// Waits for it to exit; stops it after a generous deadline.
        func ended(within deadline: Duration = .seconds(60)) async -> Ended {
            let status = await withTaskGroup(of: Int32?.self) { group in
                group.addTask {
                    for await status in self.exits { return status }
                    return nil
                }
                group.addTask {
                    try? await Task.sleep(for: deadline)
                    return nil
                }
                let first = await group.next() ?? nil
                group.cancelAll()
                return first
            }
            if status == nil, process.isRunning { kill(process.processIdentifier, SIGKILL) }
            defer {
                try? FileManager.default.removeItem(atPath: outputFile)
                try? FileManager.default.removeItem(atPath: errorFile)
            }
            return Ended(status: status ?? -1, output: output, errors: errors)
        }
    }

    /// Starts `rollcall arguments…` with `input` on its standard input.
    func start(_ arguments: [String], input: String = "") throws -> Running {
        let (running, stdin) = try startTyping(arguments)
        stdin.write(Data(input.utf8))
        try stdin.close()
        return running
    }

    /// Starts `rollcall arguments…` with its standard input open, for what the test types once it knows it (a code
    /// texted meanwhile); the caller closes it.
    func startTyping(_ arguments: [String]) throws -> (Running, FileHandle) {
        let directory = FileManager.default.temporaryDirectory
        let outputFile = directory.appendingPathComponent("rollcall-out-\(UUID().uuidString)").path
        let errorFile = directory.appendingPathComponent("rollcall-err-\(UUID().uuidString)").path
        _ = FileManager.default.createFile(atPath: outputFile, contents: nil)
        _ = FileManager.default.createFile(atPath: errorFile, contents: nil)
        let (exits, exited) = AsyncStream<Int32>.makeStream()
        let running = Running(exits, outputFile: outputFile, errorFile: errorFile)
        let process = running.process
        process.executableURL = URL(fileURLWithPath: Self.binary)
        process.arguments = arguments
        var environment = ProcessInfo.processInfo.environment
        environment["ROLLCALL_CONFIG_DIR"] = configDirectory
        environment["TZ"] = "UTC"
        environment["LC_ALL"] = nil
        environment["LC_MESSAGES"] = nil
        environment["LANG"] = locale
        process.environment = environment
        let inputPipe = Pipe()
        process.standardInput = inputPipe
        process.standardOutput = FileHandle(forWritingAtPath: outputFile)
        process.standardError = FileHandle(forWritingAtPath: errorFile)
        process.terminationHandler = { process in
            exited.yield(process.terminationStatus)
            exited.finish()
        }
        try process.run()
        return (running, inputPipe.fileHandleForWriting)
    }

    /// Runs `rollcall arguments…` to its end.
    func run(_ arguments: String..., input: String = "") async throws -> Ended {
        try await start(arguments, input: input).ended()
    }

    func remove() {
        try? FileManager.default.removeItem(atPath: configDirectory)
    }
}

/// Compares `text` with a golden file in `Tests/RollcallClientTests/Golden`, after `redacting` what differs on
/// every run (dates, join codes); `ROLLCALL_WRITE_GOLDEN=1` writes the file instead.
func expectGolden(
    _ text: String, _ name: String, redacting keys: [String] = Golden.variableKeys,
    sourceLocation: SourceLocation = #_sourceLocation
) throws {
    let redacted = Golden.redact(text, keys: keys)
    let file = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Golden/\(name)")
    if ProcessInfo.processInfo.environment["ROLLCALL_WRITE_GOLDEN"] == "1" {
        try redacted.write(to: file, atomically: true, encoding: .utf8)
        return
    }
    let golden = try String(contentsOf: file, encoding: .utf8)
    #expect(redacted == golden, "\(name) differs from its golden file", sourceLocation: sourceLocation)
}

enum Golden {
    static let variableKeys = ["createdAt", "joinCode", "openedAt", "closesAt", "closedAt", "invitedAt"]

    /// Replaces the value of each `"key" : value` in pretty JSON with `"…"`.
    static func redact(_ text: String, keys: [String]) -> String {
        var result = text
        for key in keys {
            let pattern = "(\"\(key)\" : )(\"[^\"]*\"|[0-9.]+)"
            result = result.replacingOccurrences(of: pattern, with: "$1\"…\"", options: .regularExpression)
        }
        return result
    }
}
