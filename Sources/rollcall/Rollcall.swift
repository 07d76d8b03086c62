import ArgumentParser
import Foundation
import Hummingbird
import NIOCore
import QRCode
import RollcallParts
import RollcallServer
import RollcallWords

/// The `rollcall` command: runs the server and its maintenance tasks, and speaks to a server's API for teachers.
@main
struct RollcallCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "rollcall",
        abstract: "Rollcall: class attendance in seconds.",
        discussion: ExitStatus.documentation,
        subcommands: [
            Serve.self, Migrate.self, DemoData.self, CreateAdmin.self, PrintQRCode.self, Login.self, Logout.self,
            Courses.self, CourseCommand.self, RosterCommand.self, SessionCommand.self, Export.self, Watch.self,
            Projector.self, ProximityCommand.self, Backup.self, Check.self, Restore.self, CopyDatabase.self,
        ],
        defaultSubcommand: Serve.self
    )

    /// Runs the command line, ending with one of the documented exit statuses (`ExitStatus`).
    static func main() async {
        // English until the command is known, as ArgumentParser's own words are.
        var language = CommandLineLanguage.english
        do {
            var command = try parseAsRoot()
            // The server's own commands speak the school's language (`ROLLCALL_DEFAULT_LANGUAGE`) to each person,
            // and English on the console; the client commands speak the language of the shell they run in.
            if !(command is Serve || command is Migrate || command is DemoData || command is CreateAdmin
                || command is OperatorCommand)
            {
                language = CommandLineLanguage()
            }
            if let command = command as? any SpeakingCommand {
                try await command.run(speaking: language)
            } else if var command = command as? any AsyncParsableCommand {
                try await command.run()
            } else {
                try command.run()
            }
        } catch {
            ExitStatus.exit(with: error, in: language.reader)
        }
    }
}

/// A command that says something itself: `main` runs it with the command line's language, made once.
protocol SpeakingCommand: AsyncParsableCommand {
    func run(speaking language: CommandLineLanguage) async throws
}

extension SpeakingCommand {
    /// Run without `main` (by ArgumentParser itself): in the environment's language.
    mutating func run() async throws {
        try await run(speaking: CommandLineLanguage())
    }
}

/// Where to listen and keep data; flags win over `ROLLCALL_*` variables.
struct ServerOptions: ParsableArguments {
    @Option(help: "Address to listen on (ROLLCALL_HOSTNAME). Use 0.0.0.0 to reach it from phones on the network.")
    var hostname: String?
    @Option(help: "Port to listen on (ROLLCALL_PORT, default 8080).")
    var port: Int?
    @Option(
        name: .customLong("data-dir"), help: "Directory for the SQLite database (ROLLCALL_DATA_DIR, default ./data).")
    var dataDirectory: String?

    func configuration() throws -> Configuration {
        try Configuration.fromEnvironment(hostname: hostname, port: port, dataDirectory: dataDirectory)
    }
}

struct Serve: SpeakingCommand {
    static let configuration = CommandConfiguration(abstract: "Run the Rollcall server.")
    @OptionGroup var options: ServerOptions
    @Flag(help: "Fill demo data first (see `rollcall demo`).")
    var demo = false

    func run(speaking language: CommandLineLanguage) async throws {
        let reader = language.reader
        let configuration = try options.configuration()
        if demo { print(try await Demo.fill(configuration)) }
        let running = reader.say("Rollcall is running at \(configuration.publicURL)")
        let app = try await buildApplication(configuration) {
            print(running)
            Terminal.flush()
        }
        do {
            try await app.runService()
        } catch let error as IOError where error.errnoCode == EADDRINUSE {
            let address = "\(configuration.hostname):\(configuration.port)"
            throw CommandFailure(
                status: .refused,
                message: """
                    Rollcall cannot listen on \(address): another program already uses that port. \
                    Stop it, or choose another port with --port or ROLLCALL_PORT.
                    """)
        }
    }
}

struct Migrate: SpeakingCommand {
    static let configuration = CommandConfiguration(abstract: "Bring the database schema up to date.")
    @OptionGroup var options: ServerOptions
    @Flag(help: "List the steps it would take, and change nothing.")
    var dryRun = false

    func run(speaking language: CommandLineLanguage) async throws {
        let reader = language.reader
        if dryRun {
            let steps = try await Operations.migrationPlan(try options.configuration())
            print(steps.isEmpty ? reader.say("The database is up to date.") : steps.joined(separator: "\n"))
            return
        }
        try await Maintenance.migrate(try options.configuration())
        print(reader.say("The database is up to date."))
    }
}

struct DemoData: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "demo", abstract: "Fill a demo institution: an admin, two teachers, two courses of 30 students."
    )
    @OptionGroup var options: ServerOptions

    func run() async throws {
        print(try await Demo.fill(try options.configuration()))
    }
}

struct CreateAdmin: SpeakingCommand {
    static let configuration = CommandConfiguration(commandName: "create-admin", abstract: "Create an admin account.")
    @OptionGroup var options: ServerOptions
    @Option var name: String
    @Option var email: String
    @Option(help: "At least 8 characters; read from ROLLCALL_ADMIN_PASSWORD when omitted.")
    var password: String?

    func run(speaking language: CommandLineLanguage) async throws {
        let reader = language.reader
        guard let password = password ?? ProcessInfo.processInfo.environment["ROLLCALL_ADMIN_PASSWORD"] else {
            throw ValidationError("Give --password or set ROLLCALL_ADMIN_PASSWORD.")
        }
        try await Maintenance.createAdmin(try options.configuration(), name: name, email: email, password: password)
        print(reader.say("Admin \(email) created."))
    }
}

struct PrintQRCode: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "qr", abstract: "Print the SVG of a QR code for any text, such as a check-in spot's link."
    )
    @Argument(help: "The text to encode.")
    var text: String
    @Option(help: "Error correction: low, medium, quartile or high.")
    var level: String = "medium"
    @Option(help: "Pixels per module.")
    var moduleSize: Int = 8

    func run() throws {
        guard let level = QRCode.ErrorCorrection(rawValue: level) else {
            throw ValidationError("--level must be low, medium, quartile or high.")
        }
        guard (1...100).contains(moduleSize) else { throw ValidationError("--module-size must be 1 to 100.") }
        print(try QRCode(encoding: text, errorCorrection: level).svg(moduleSize: moduleSize))
    }
}
