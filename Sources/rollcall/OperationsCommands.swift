import ArgumentParser
import Foundation
import RollcallServer
import RollcallWords

/// A command an operator runs on the server's machine, which speaks the school's language like `serve` does.
protocol OperatorCommand {}

struct Backup: SpeakingCommand, OperatorCommand {
    static let configuration = CommandConfiguration(
        abstract: "Copy the SQLite database while the server runs, and describe the copy in PATH.json.",
        discussion: "On PostgreSQL, use pg_dump or a base backup instead (docs/operations.md)."
    )
    @OptionGroup var options: ServerOptions
    @Argument(help: "Where to write the copy.")
    var path: String
    @Flag(help: "Replace a copy already at PATH.")
    var force = false

    func run(speaking language: CommandLineLanguage) async throws {
        let reader = language.reader
        let report = try await Operations.backup(try options.configuration(), to: path, force: force, in: reader)
        report.lines.forEach { print($0) }
    }
}

struct Check: SpeakingCommand, OperatorCommand {
    static let configuration = CommandConfiguration(
        abstract: "Check the database: SQLite's integrity and foreign keys, and Rollcall's own invariants.",
        discussion: "Exit status 0 when all is well; 1 with the list of problems otherwise."
    )
    @OptionGroup var options: ServerOptions
    @Option(help: "Check this SQLite file (a backup) instead of the configured database.")
    var file: String?

    func run(speaking language: CommandLineLanguage) async throws {
        let reader = language.reader
        let report = try await Operations.check(try options.configuration(), file: file, in: reader)
        report.summary.forEach { print($0) }
        guard report.passed else {
            report.problems.forEach { print("- " + $0) }
            throw CommandFailure(status: .refused, message: "\(report.problems.count) problems found.")
        }
        print(reader.say("No problems found."))
    }
}

struct Restore: SpeakingCommand, OperatorCommand {
    static let configuration = CommandConfiguration(
        abstract: "Restore a backup into a stopped server's data directory, or into an empty PostgreSQL database.",
        discussion: "The copy is checked and migrated first; the database it replaces is kept beside it."
    )
    @OptionGroup var options: ServerOptions
    @Argument(help: "The backup to restore (written by `rollcall backup`).")
    var path: String

    func run(speaking language: CommandLineLanguage) async throws {
        let reader = language.reader
        let report = try await Operations.restore(try options.configuration(), from: path, in: reader)
        report.lines.forEach { print($0) }
    }
}

struct CopyDatabase: SpeakingCommand, OperatorCommand {
    static let configuration = CommandConfiguration(
        commandName: "copy-database",
        abstract: "Copy every table into an empty database: postgres://… or an SQLite file. Stop the server first.",
        discussion: "Prints each table's row count and checksum on both sides; refuses a target that holds data."
    )
    @OptionGroup var options: ServerOptions
    @Option(help: "The empty database to copy into: a postgres:// URL or an SQLite file's path.")
    var to: String

    func run(speaking language: CommandLineLanguage) async throws {
        let reader = language.reader
        let report = try await Operations.copyDatabase(try options.configuration(), to: to, in: reader)
        report.lines.forEach { print($0) }
    }
}
