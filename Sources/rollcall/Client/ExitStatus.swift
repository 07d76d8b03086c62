import ArgumentParser
import Foundation
import RollcallClient
import RollcallCore
import RollcallProtocol
import RollcallServer
import RollcallWords

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// How a `rollcall` command ended, as its exit status: scripts branch on these.
enum ExitStatus: Int32 {
    /// Done.
    case ok = 0
    /// The server refused the request (the message says why); or another failure.
    case refused = 1
    /// The command line was wrong: an unknown option, a missing argument, a bad value.
    case usage = 2
    /// The server could not be reached.
    case network = 3
    /// Not signed in, or the saved sign-in ran out or was revoked: run `rollcall login URL`.
    case notSignedIn = 4

    static let documentation = """
        Exit status: 0 done; 1 refused by the server (or another failure); 2 wrong usage; 3 server not reachable; \
        4 not signed in (run `rollcall login URL`).
        """

    /// Prints what went wrong in one sentence on standard error, said to `reader`, and exits with its status.
    static func exit(with error: any Error, in reader: Reader) -> Never {
        let (status, message) = describe(error, in: reader)
        if status == .ok {
            print(message)
        } else if !message.isEmpty {
            Terminal.standardError("rollcall: " + message)
        }
        Foundation.exit(status.rawValue)
    }

    static func describe(_ error: any Error, in reader: Reader) -> (ExitStatus, String) {
        switch error {
        case let error as CommandFailure:
            return (error.status, reader.say(error.message))
        case let error as RollcallError where error.isNetworkFailure:
            return (.network, error.message)
        case let error as RollcallError where [.notSignedIn, .invalidToken].contains(error.errorCode):
            return (.notSignedIn, reader.say("\(error.message) Sign in again with `rollcall login URL`."))
        case let error as RollcallError:
            return (.refused, error.message)
        default:
            let code = RollcallCommand.exitCode(for: error)
            var message = RollcallCommand.fullMessage(for: error)
            if message.hasPrefix("Error: ") { message.removeFirst("Error: ".count) }
            if code == .success { return (.ok, message) }
            return (code == .validationFailure ? .usage : .refused, message)
        }
    }
}

/// A failure the command line itself detects, with its exit status and sentence.
struct CommandFailure: Error {
    var status: ExitStatus
    /// Said in the command line's language when it is printed.
    var message: Phrase

    static let notSignedIn = CommandFailure(
        status: .notSignedIn, message: "You are not signed in: run `rollcall login URL` first.")
}

/// Where output goes, and whether a person is watching it.
enum Terminal {
    static func standardError(_ line: String) {
        FileHandle.standardError.write(Data((line + "\n").utf8))
    }

    /// Whether standard output is a terminal (redraw in place) rather than a file or a pipe (plain lines).
    static var outputIsTerminal: Bool { isatty(STDOUT_FILENO) == 1 }
    static var errorIsTerminal: Bool { isatty(STDERR_FILENO) == 1 }
    static var inputIsTerminal: Bool { isatty(STDIN_FILENO) == 1 }

    /// Sends what `print` buffered, so that a line reaches a pipe as soon as it is printed.
    static func flush() {
        fflush(nil)
    }

    /// Clears the terminal and puts the cursor at its top left.
    static let clearScreen = "\u{1B}[H\u{1B}[2J"

    /// Prints a value as JSON for scripts: keys sorted, dates in UTC with milliseconds as the API writes them.
    static func printJSON(_ value: some Encodable, pretty: Bool = true) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = pretty ? [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes] : [.sortedKeys]
        encoder.dateEncodingStrategy = .custom { date, encoder in
            var container = encoder.singleValueContainer()
            try container.encode(Dates.text(date))
        }
        print(String(decoding: try encoder.encode(value), as: UTF8.self))
        Terminal.flush()
    }
}

/// Dates as the API writes them, and as people read them.
enum Dates {
    static func text(_ date: Date) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter.string(from: date)
    }

    /// A time of day in a course's zone, such as `09:01:02`: the course's clock, wherever the terminal is.
    static func clock(_ date: Date, in zone: TimeZone) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = zone
        formatter.dateFormat = "HH:mm:ss"
        return formatter.string(from: date)
    }

    /// The zone a course names, or UTC where this machine does not know it.
    static func zone(of course: Course) -> TimeZone {
        TimeZone(identifier: course.timeZone) ?? TimeZone(identifier: "UTC")!
    }
}
