import ArgumentParser
import Foundation
import RollcallApp
import RollcallClient
import RollcallCore
import RollcallServer
import RollcallWords

/// `rollcall proximity simulate`: many phones with the Rollcall app, simulated, against a real server.
struct ProximityCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "proximity", abstract: "The phones' own proximity evidence.", subcommands: [Simulate.self])

    struct Simulate: SpeakingCommand {
        static let configuration = CommandConfiguration(
            abstract: "Drive a server's API as phones with the Rollcall app would, for demonstrations and tests.",
            discussion: """
                Registers --phones student accounts (name@example.com addresses, which receive no mail), turns \
                proximity on for each, fetches their pseudo-IDs, places them in rooms of --group phones for \
                --minutes starting now (their radios simulated: phones in one room hear each other), and lets \
                --uploads of them upload what they heard. Prints what the server kept. The server is the one of \
                the saved sign-in, or --server.
                """)

        @Option(help: "How many phones (2 to 400).")
        var phones = 40
        @Option(help: "Phones per room (2 or more).")
        var group = 5
        @Option(help: "Minutes the phones spend together, from now (1 to 5: pseudo-IDs are issued from now on).")
        var minutes = 4
        @Option(help: "How many of the phones upload what they heard afterwards.")
        var uploads: Int?
        @Option(help: "The server's address; the saved sign-in's server when left out.")
        var server: String?
        @Flag(help: "Print JSON for scripts instead of text for people.")
        var json = false

        func validate() throws {
            guard (2...400).contains(phones) else { throw ValidationError("--phones must be 2 to 400.") }
            guard group >= 2 else { throw ValidationError("--group must be 2 or more.") }
            guard (1...5).contains(minutes) else { throw ValidationError("--minutes must be 1 to 5.") }
            if let uploads, !(0...phones).contains(uploads) {
                throw ValidationError("--uploads must be 0 to the number of phones.")
            }
            if let server, URL(string: server)?.host == nil {
                throw ValidationError("--server must be an http:// or https:// URL.")
            }
        }

        /// What the simulation did, as printed.
        struct Summary: Codable {
            var phones: Int
            var rooms: Int
            var minutes: Int
            var pseudoIDs: Int
            var encountersKept: Int
            var pairsHeard: Int
            var uploads: Int
            var sent: Int
            var kept: Int
            var unknown: Int
        }

        func run(speaking language: CommandLineLanguage) async throws {
            let reader = language.reader
            let url: URL
            if let server, let given = URL(string: server) {
                url = given
            } else {
                url = try ClientOptions().rollcall(speaking: language).serverURL
            }
            let summary = try await Self.simulate(
                server: url, phones: phones, group: group, minutes: minutes, uploads: uploads ?? phones / 2,
                language: language.tag)
            if json { return try Terminal.printJSON(summary) }
            print(
                reader.say(
                    "\(summary.phones) phones in \(summary.rooms) rooms for \(summary.minutes) minutes: \(summary.pseudoIDs) pseudo-IDs issued, \(summary.encountersKept) encounters kept on the phones (\(summary.pairsHeard) pairs of phones heard each other)."
                ))
            print(
                reader.say(
                    "\(summary.uploads) phones uploaded \(summary.sent) encounters: the server kept \(summary.kept), \(summary.unknown) were not its pseudo-IDs."
                ))
        }

        @MainActor
        static func simulate(
            server: URL, phones count: Int, group: Int, minutes: Int, uploads: Int, language: String?
        ) async throws -> Summary {
            let run = String(UUID().uuidString.prefix(8)).lowercased()
            var signedIn: [Rollcall] = []
            for number in 1...count {
                let password = UUID().uuidString + UUID().uuidString
                signedIn.append(
                    try await Rollcall(serverURL: server, language: language).register(
                        name: "Phone \(number) of simulation \(run)", email: "phone-\(number)-\(run)@example.com",
                        password: password
                    ).rollcall)
            }
            // The clock starts once everyone is registered: the server issues pseudo-IDs from its own now, and a
            // window that ended while the phones registered would be one some phones have and others not.
            let simulation = ProximitySimulation(start: Date())
            for (number, phone) in zip(1..., signedIn) { simulation.addPhone(name: "Phone \(number)", rollcall: phone) }
            try await simulation.turnOn()
            let pseudoIDs = simulation.phones.reduce(0) { total, phone in
                total
                    + Int(
                        ((phone.tracer.idsUntil ?? simulation.now).timeIntervalSince(simulation.now) / 300).rounded(.up)
                    )
            }
            await simulation.run(minutes: Double(minutes)) { phone, _ in "room \(phone / group)" }
            let kept = simulation.phones.reduce(0) { $0 + $1.tracer.encounterCount }
            let receipt = try await simulation.upload(Array(0..<uploads))
            return Summary(
                phones: count, rooms: (count + group - 1) / group, minutes: minutes, pseudoIDs: pseudoIDs,
                encountersKept: kept, pairsHeard: simulation.heard.count, uploads: uploads, sent: receipt.sent,
                kept: receipt.kept, unknown: receipt.unknown)
        }
    }
}
