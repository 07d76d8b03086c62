import Foundation
import RollcallDelivery
import RollcallParts
import Testing

@testable import RollcallCore
@testable import RollcallServer

/// A real SMTP server (Tests/mail/smtp_server.py, aiosmtpd) on loopback, run as a process of the test; every message
/// it accepts is kept as the bytes it received.
final class MailServerProcess: @unchecked Sendable {
    /// How the server protects connections: `none`, `starttls` or `implicit`.
    let tls: String
    let credentials: (user: String, password: String)?
    /// Offers AUTH LOGIN alone.
    let onlyLogin: Bool
    /// Takes addresses outside ASCII (SMTPUTF8).
    let smtputf8: Bool
    let directory: URL
    private(set) var port = 0
    private var process: Process?

    init(
        tls: String, credentials: (user: String, password: String)? = ("rollcall", "s3cret pass"),
        onlyLogin: Bool = false, smtputf8: Bool = true
    ) throws {
        self.tls = tls
        self.credentials = credentials
        self.onlyLogin = onlyLogin
        self.smtputf8 = smtputf8
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("rollcall-smtp-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        try start()
    }

    static var root: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent()
    }

    /// Starts the server, on the port it had before when it ran already, and waits until it listens.
    func start() throws {
        let python = Self.root.appendingPathComponent(".build/python/bin/python").path
        try #require(
            FileManager.default.isExecutableFile(atPath: python),
            "the tests' Python environment is missing: run make deps")
        let ready = directory.appendingPathComponent("ready")
        try? FileManager.default.removeItem(at: ready)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: python)
        var arguments = [
            Self.root.appendingPathComponent("Tests/mail/smtp_server.py").path, "--dir", directory.path, "--port",
            String(port), "--tls", tls,
        ]
        if let credentials { arguments += ["--auth", "\(credentials.user):\(credentials.password)"] }
        if onlyLogin { arguments.append("--only-login") }
        if !smtputf8 { arguments.append("--no-smtputf8") }
        process.arguments = arguments
        process.standardOutput = FileHandle.nullDevice
        process.standardError = try FileHandle(
            forWritingTo: {
                let log = directory.appendingPathComponent("server.log")
                if !FileManager.default.fileExists(atPath: log.path) {
                    _ = FileManager.default.createFile(atPath: log.path, contents: nil)
                }
                return log
            }())
        try process.run()
        self.process = process
        let deadline = Date().addingTimeInterval(60)
        while !FileManager.default.fileExists(atPath: ready.path) {
            try #require(process.isRunning, "the SMTP server stopped: \(log)")
            try #require(Date() < deadline, "the SMTP server did not start within a minute: \(log)")
            Thread.sleep(forTimeInterval: 0.05)
        }
        port = Int(try String(contentsOf: ready, encoding: .utf8)) ?? 0
    }

    /// Kills the server at once, as a crash would.
    func kill() {
        guard let process, process.isRunning else { return }
        Foundation.kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }

    func stop() {
        kill()
        try? FileManager.default.removeItem(at: directory)
    }

    var log: String {
        (try? String(contentsOf: directory.appendingPathComponent("server.log"), encoding: .utf8)) ?? ""
    }

    /// The certificate the server presents, to trust.
    var certificate: String { directory.appendingPathComponent("cert.pem").path }

    /// The server as Rollcall's settings name it.
    var mailServer: MailServer {
        MailServer(
            host: "localhost", port: port,
            security: tls == "starttls" ? .startTLS : tls == "implicit" ? .implicitTLS : .none,
            username: credentials?.user, password: credentials?.password)
    }

    /// Every message accepted so far, in order: the bytes received after DATA, and the envelope.
    func messages() throws -> [(data: String, envelope: [String: Any])] {
        let folder = directory.appendingPathComponent("messages")
        let names = ((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? [])
            .filter { $0.hasSuffix(".eml") }.sorted()
        return try names.map { name in
            let data = try String(contentsOf: folder.appendingPathComponent(name), encoding: .utf8)
            let envelope = try Data(
                contentsOf: folder.appendingPathComponent(name.replacingOccurrences(of: ".eml", with: ".json")))
            return (data, try JSONSerialization.jsonObject(with: envelope) as? [String: Any] ?? [:])
        }
    }

    /// Waits, up to a generous deadline, until `count` messages have arrived.
    func waitForMessages(
        _ count: Int, sourceLocation: SourceLocation = #_sourceLocation
    ) async throws -> [(data: String, envelope: [String: Any])] {
        let deadline = Date().addingTimeInterval(60)
        while true {
            let messages = try messages()
            if messages.count >= count || Date() > deadline {
                #expect(messages.count == count, "messages delivered", sourceLocation: sourceLocation)
                return messages
            }
            try await Task.sleep(for: .milliseconds(50))
        }
    }
}

extension Configuration {
    /// Delivers email to `mail`, trusting its certificate, retrying quickly.
    mutating func deliver(to mail: MailServerProcess, from: Mailbox = Mailbox(address: "rollcall@school.test")) {
        mailServer = mail.mailServer
        mailFrom = from
        mailTrustFile = mail.tls == "none" ? nil : mail.certificate
        mailRetry = RetryPolicy(first: 0.2, longest: 0.5, attempts: 1000)
        mailPoll = .milliseconds(200)
        smtpTimeout = .seconds(20)
    }
}
