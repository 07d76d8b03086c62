import ArgumentParser
import Foundation
import RollcallClient
import RollcallCore
import RollcallServer
import RollcallWords

/// The sign-in `rollcall login` keeps for the other commands: the server and its token, readable by its owner only.
struct SavedLogin: Codable, Equatable {
    var server: String
    var token: String
    var email: String
    var name: String

    /// The directory: `$ROLLCALL_CONFIG_DIR`, else `$XDG_CONFIG_HOME/rollcall`, else `~/.config/rollcall`.
    static func directory(_ environment: [String: String] = ProcessInfo.processInfo.environment) -> URL {
        if let directory = environment["ROLLCALL_CONFIG_DIR"], !directory.isEmpty {
            return URL(fileURLWithPath: directory)
        }
        if let base = environment["XDG_CONFIG_HOME"], !base.isEmpty {
            return URL(fileURLWithPath: base).appendingPathComponent("rollcall")
        }
        let home =
            environment["HOME"].map { URL(fileURLWithPath: $0) }
            ?? FileManager.default.homeDirectoryForCurrentUser
        return home.appendingPathComponent(".config/rollcall")
    }

    static var file: URL { directory().appendingPathComponent("login.json") }

    static func load() throws -> SavedLogin? {
        guard let data = FileManager.default.contents(atPath: file.path) else { return nil }
        do {
            return try JSONDecoder().decode(SavedLogin.self, from: data)
        } catch {
            throw CommandFailure(
                status: .notSignedIn,
                message: "The saved sign-in in \(file.path) cannot be read: run `rollcall login URL` again.")
        }
    }

    /// Writes the file with mode 0600 (its directory 0700) before any token is in it.
    func save() throws {
        let directory = Self.directory()
        try FileManager.default.createDirectory(
            at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes]
        let temporary = directory.appendingPathComponent(".login-\(UUID().uuidString).json")
        guard
            FileManager.default.createFile(
                atPath: temporary.path, contents: nil, attributes: [.posixPermissions: 0o600])
        else {
            throw CommandFailure(status: .refused, message: "Cannot write the sign-in to \(directory.path).")
        }
        let handle = try FileHandle(forWritingTo: temporary)
        try handle.write(contentsOf: try encoder.encode(self))
        try handle.close()
        if FileManager.default.fileExists(atPath: Self.file.path) {
            _ = try FileManager.default.replaceItemAt(Self.file, withItemAt: temporary)
        } else {
            try FileManager.default.moveItem(at: temporary, to: Self.file)
        }
    }

    static func remove() throws {
        if FileManager.default.fileExists(atPath: file.path) { try FileManager.default.removeItem(at: file) }
    }
}

/// Options of every command that speaks to the server as the signed-in person.
struct ClientOptions: ParsableArguments {
    @Flag(help: "Print JSON for scripts instead of text for people.")
    var json = false

    /// A client of the saved server with the saved token, asking for the command line's language.
    func rollcall(speaking language: CommandLineLanguage) throws -> Rollcall {
        guard let login = try SavedLogin.load(), let url = URL(string: login.server) else {
            throw CommandFailure.notSignedIn
        }
        return Rollcall(serverURL: url, token: login.token, language: language.tag)
    }
}
