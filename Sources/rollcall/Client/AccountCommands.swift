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

/// `rollcall login URL`: signs in with a password and keeps the token for the other commands.
struct Login: SpeakingCommand {
    static let configuration = CommandConfiguration(
        abstract: "Sign in to a Rollcall server; the other commands then use that sign-in.",
        discussion: """
            The token is kept in $ROLLCALL_CONFIG_DIR, else $XDG_CONFIG_HOME/rollcall, else ~/.config/rollcall \
            (login.json, readable by you only). The password is asked for without echo, or read from standard \
            input with --password-stdin. With --phone instead of --email, the server texts a code to your \
            confirmed phone and the code is asked for, or read from standard input.
            """
    )
    @Argument(help: "The server's address, such as https://rollcall.school.edu.")
    var url: String
    @Option(help: "Your email address.")
    var email: String?
    @Option(help: "Your confirmed phone number, to sign in with a texted code instead of a password.")
    var phone: String?
    @Flag(help: "Read the password from the first line of standard input instead of asking for it.")
    var passwordStdin = false
    @Flag(help: "Print JSON for scripts instead of text for people.")
    var json = false

    var serverURL: URL? {
        var text = url
        while text.hasSuffix("/") { text.removeLast() }
        guard let url = URL(string: text), ["http", "https"].contains(url.scheme ?? ""), url.host != nil else {
            return nil
        }
        return url
    }

    func validate() throws {
        guard serverURL != nil else {
            throw ValidationError(
                "The address must be an http:// or https:// URL, such as https://rollcall.school.edu.")
        }
        guard (email == nil) != (phone == nil) else {
            throw ValidationError("Give --email (and a password) or --phone (and a texted code), one of them.")
        }
    }

    func run(speaking language: CommandLineLanguage) async throws {
        let reader = language.reader
        let server = serverURL!
        let signedIn: Rollcall
        let user: User
        if let phone {
            let client = Rollcall(serverURL: server, language: language.tag)
            try await client.sendSignInCode(phone: phone)
            (signedIn, user) = try await client.signIn(
                phone: phone, code: try readLine(prompt: reader.say("Code texted to \(phone): ")))
        } else {
            (signedIn, user) = try await Rollcall(serverURL: server, language: language.tag).signIn(
                email: email ?? "", password: try readPassword(in: reader))
        }
        try SavedLogin(server: server.absoluteString, token: signedIn.token ?? "", email: user.email, name: user.name)
            .save()
        if json {
            try Terminal.printJSON(user)
        } else {
            print(reader.say("Signed in to \(server.absoluteString) as \(user.name) (\(user.role.rawValue))."))
        }
    }

    /// A code from standard input, after a prompt when a person is typing.
    func readLine(prompt: String) throws -> String {
        if Terminal.inputIsTerminal && !passwordStdin { FileHandle.standardError.write(Data(prompt.utf8)) }
        guard let line = Swift.readLine(strippingNewline: true), !line.isEmpty else {
            throw CommandFailure(status: .usage, message: "No code on standard input.")
        }
        return line
    }

    func readPassword(in reader: Reader) throws -> String {
        if passwordStdin || !Terminal.inputIsTerminal {
            guard let line = Swift.readLine(strippingNewline: true), !line.isEmpty else {
                throw CommandFailure(status: .usage, message: "No password on standard input.")
            }
            return line
        }
        guard let typed = getpass(reader.say("Password for \(email ?? ""): ")) else {
            throw CommandFailure(status: .usage, message: "No password was typed.")
        }
        return String(cString: typed)
    }
}

/// `rollcall logout`: revokes the saved token on the server and forgets it.
struct Logout: SpeakingCommand {
    static let configuration = CommandConfiguration(abstract: "Sign out: revoke the saved token and forget it.")
    @Flag(help: "Forget the token even when the server cannot be reached to revoke it.")
    var forget = false

    func run(speaking language: CommandLineLanguage) async throws {
        let reader = language.reader
        guard let login = try SavedLogin.load(), let url = URL(string: login.server) else {
            print(reader.say("You were not signed in."))
            return
        }
        do {
            try await Rollcall(serverURL: url, token: login.token, language: language.tag).signOut()
        } catch let error as RollcallError where [.invalidToken, .notSignedIn].contains(error.errorCode) {
            // Already revoked or expired: only the local copy is left to forget.
        } catch let error as RollcallError where error.isNetworkFailure && !forget {
            throw CommandFailure(
                status: .network,
                message: "\(error.message) The token was kept; use --forget to drop it without revoking it.")
        } catch let error as RollcallError where error.isNetworkFailure {
            Terminal.standardError(
                reader.say("rollcall: \(error.message) The token was forgotten here but not revoked."))
        }
        try SavedLogin.remove()
        print(reader.say("Signed out of \(login.server)."))
    }
}

/// `rollcall courses`: the courses one teaches (or has joined).
struct Courses: SpeakingCommand {
    static let configuration = CommandConfiguration(abstract: "List your courses.")
    @OptionGroup var options: ClientOptions

    func run(speaking language: CommandLineLanguage) async throws {
        let reader = language.reader
        let courses = try await options.rollcall(speaking: language).courses()
        if options.json { return try Terminal.printJSON(courses) }
        if courses.isEmpty {
            return print(reader.say("No courses yet: create one with `rollcall course create NAME`."))
        }
        print(
            Table.render(
                ["ID", "NAME", "STUDENTS", "JOIN CODE", "TEACHER"],
                courses.map { course in
                    [
                        String(course.id), course.name, String(course.studentCount), course.joinCode ?? "-",
                        course.teacher.name,
                    ]
                }))
    }
}

/// `rollcall course create NAME`.
struct CourseCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "course", abstract: "Create courses.", subcommands: [Create.self])

    struct Create: SpeakingCommand {
        static let configuration = CommandConfiguration(abstract: "Create a course you teach.")
        @Argument(help: "The course's name.")
        var name: String
        @Option(help: "A description.")
        var description: String?
        @Option(help: "How many sessions the course plans.")
        var plannedSessions: Int?
        @Option(help: "The IANA time zone its reports are written in, such as Europe/Berlin.")
        var timeZone: String?
        @OptionGroup var options: ClientOptions

        func run(speaking language: CommandLineLanguage) async throws {
            let reader = language.reader
            let course = try await options.rollcall(speaking: language).createCourse(
                name: name, description: description, plannedSessions: plannedSessions, timeZone: timeZone)
            if options.json { return try Terminal.printJSON(course) }
            print(
                reader.say(
                    "Created course \(course.id), “\(course.name)”; students join with the code \(course.joinCode ?? "-")."
                ))
        }
    }
}

/// Columns of text aligned for people.
enum Table {
    static func render(_ header: [String], _ rows: [[String]]) -> String {
        let all = [header] + rows
        let widths = header.indices.map { column in all.map { $0[column].count }.max() ?? 0 }
        return all.map { row in
            row.enumerated().map { column, cell in
                column == row.count - 1 ? cell : cell.padding(toLength: widths[column], withPad: " ", startingAt: 0)
            }.joined(separator: "  ")
        }.joined(separator: "\n")
    }
}
