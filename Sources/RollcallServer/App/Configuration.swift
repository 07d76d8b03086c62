import Foundation
import Logging
import NIOCore
import RollcallCore

/// Rollcall's settings, read in one place from flags and `ROLLCALL_*` environment variables, each with a safe default.
public struct Configuration: Sendable {
    public var hostname: String
    public var port: Int
    /// Where the SQLite file and other local state live.
    public var dataDirectory: String
    /// A `postgres://` URL; when set, PostgreSQL replaces the embedded SQLite file.
    public var databaseURL: String?
    /// The address people reach Rollcall at; links in emails and QR codes use it.
    public var publicURL: String
    /// Whether new teacher accounts wait for an admin's approval before they can create courses.
    public var teacherApproval: Bool
    public var logLevel: Logger.Level
    /// Days location readings, device ids, client addresses and other evidence are kept; exposure reports reach
    /// no further back.
    public var evidenceDays: Int
    /// Reverse proxies whose `X-Forwarded-For` and `Forwarded` headers name the client (`ClientAddress`).
    public var trustedProxies: [NetworkRange]
    /// When set, `/metrics` answers only requests with `Authorization: Bearer <token>`.
    public var metricsToken: String?
    /// When not empty, `/metrics` answers only clients in these ranges.
    public var metricsNetworks: [NetworkRange]
    /// Serve HTTPS with this certificate chain and key (PEM files), for a single server without a proxy.
    public var tls: TLSFiles?
    /// Connections open at once; beyond it, a connection that has not sent a request yet is closed to make room, or
    /// else the new one is closed at once (`ROLLCALL_MAX_CONNECTIONS`).
    public var maxConnections: Int = ConnectionGuard.defaultMaxConnections()
    /// How long a connection may stay silent, before its first request or between requests, before it is closed.
    public var idleTimeout: TimeAmount = .seconds(60)
    /// How long a request's head (its line and headers) may take to arrive once it has begun.
    public var requestHeadTimeout: TimeAmount = .seconds(10)
    /// bcrypt's work factor for new password hashes (`ROLLCALL_BCRYPT_COST`): each step up doubles the time a
    /// registration or a sign-in takes.
    public var bcryptCost: Int = Configuration.bcryptCosts.lowerBound
    /// The costs accepted: below 10 a stolen hash is cheap to crack; above 16 one sign-in takes many seconds.
    public static let bcryptCosts = 10...16
    /// The SMTP server email is delivered through (`ROLLCALL_SMTP_URL`); without one, email stays in the outbox.
    public var mailServer: MailServer?
    /// The sender of every email (`ROLLCALL_MAIL_FROM`, `Name <address>` or an address).
    public var mailFrom: Mailbox?
    /// A PEM file of certificates the SMTP server's may be signed by, for a school's own authority
    /// (`ROLLCALL_SMTP_CA_FILE`); the system's otherwise.
    public var mailTrustFile: String?
    /// The country of phone numbers written without `+` (`ROLLCALL_DEFAULT_REGION`, such as GB).
    public var defaultRegion: String?
    /// Where text messages are posted as JSON (`ROLLCALL_SMS_WEBHOOK_URL`); without it, they stay in the outbox.
    public var smsWebhook: URL?
    /// Sent in the `X-Rollcall-Secret` header of every post, for the gateway to check (`ROLLCALL_SMS_WEBHOOK_SECRET`).
    public var smsWebhookSecret: String?
    /// The school's name in every letter (`ROLLCALL_SCHOOL_NAME`).
    public var schoolName: String = "Rollcall"
    /// Waits between attempts at a message whose delivery failed.
    var mailRetry = RetryPolicy()
    /// How often the delivery reads the queue when nothing wakes it.
    var mailPoll: Duration = .seconds(5)
    /// Seconds between two texted codes to one number.
    var phoneCodeInterval: TimeInterval = 30
    /// How long the SMTP server may take to answer each command.
    var smtpTimeout: TimeAmount = .seconds(30)

    public init(
        hostname: String = "127.0.0.1", port: Int = 8080, dataDirectory: String = "data", databaseURL: String? = nil,
        publicURL: String? = nil, teacherApproval: Bool = false, logLevel: Logger.Level = .info,
        evidenceDays: Int = Retention.defaultDays,
        trustedProxies: [NetworkRange] = [], metricsToken: String? = nil, metricsNetworks: [NetworkRange] = [],
        tls: TLSFiles? = nil
    ) {
        self.hostname = hostname
        self.port = port
        self.dataDirectory = dataDirectory
        self.databaseURL = databaseURL
        self.publicURL = publicURL ?? "\(tls == nil ? "http" : "https")://localhost:\(port)"
        self.teacherApproval = teacherApproval
        self.logLevel = logLevel
        self.evidenceDays = evidenceDays
        self.trustedProxies = trustedProxies
        self.metricsToken = metricsToken
        self.metricsNetworks = metricsNetworks
        self.tls = tls
    }

    /// Settings from the environment, flags given on the command line taking precedence.
    public static func fromEnvironment(
        _ environment: [String: String] = ProcessInfo.processInfo.environment,
        hostname: String? = nil, port: Int? = nil, dataDirectory: String? = nil
    ) throws -> Configuration {
        func value(_ name: String) -> String? {
            environment[name].flatMap { $0.isEmpty ? nil : $0 }
        }
        let port =
            try port
            ?? value("ROLLCALL_PORT").map { text in
                guard let port = Int(text), (1...65535).contains(port) else {
                    throw ConfigurationError(variable: "ROLLCALL_PORT", problem: "must be a port number, got “\(text)”")
                }
                return port
            }
        let level = try value("ROLLCALL_LOG_LEVEL").map { text in
            guard let level = Logger.Level(rawValue: text.lowercased()) else {
                throw ConfigurationError(
                    variable: "ROLLCALL_LOG_LEVEL",
                    problem: "must be one of trace, debug, info, notice, warning, error, critical")
            }
            return level
        }
        let approval = try value("ROLLCALL_TEACHER_APPROVAL").map { text in
            switch text.lowercased() {
            case "1", "true", "yes", "on": return true
            case "0", "false", "no", "off": return false
            default: throw ConfigurationError(variable: "ROLLCALL_TEACHER_APPROVAL", problem: "must be true or false")
            }
        }
        let evidenceDays = try value("ROLLCALL_EVIDENCE_DAYS").map { text in
            guard let days = Int(text), Retention.allowedDays.contains(days) else {
                throw ConfigurationError(
                    variable: "ROLLCALL_EVIDENCE_DAYS",
                    problem: "must be a number of days from 1 to \(Retention.allowedDays.upperBound), got “\(text)”")
            }
            return days
        }
        let publicURL = value("ROLLCALL_PUBLIC_URL")
        if let publicURL, URL(string: publicURL)?.host == nil {
            throw ConfigurationError(
                variable: "ROLLCALL_PUBLIC_URL", problem: "must be a URL such as https://rollcall.school.edu")
        }
        func ranges(_ name: String) throws -> [NetworkRange] {
            guard let text = value(name) else { return [] }
            let items = text.split(whereSeparator: { $0 == "," || $0 == " " || $0 == "\t" || $0 == "\n" })
            return try items.map { item in
                guard let range = NetworkRange(cidr: String(item)) else {
                    throw ConfigurationError(
                        variable: name,
                        problem: "must be address ranges separated by commas, such as 10.0.0.0/8, ::1/128; "
                            + "“\(item)” is not one")
                }
                return range
            }
        }
        let trustedProxies = try ranges("ROLLCALL_TRUSTED_PROXIES")
        let metricsNetworks = try ranges("ROLLCALL_METRICS_NETWORKS")
        let tls = try TLSFiles.fromEnvironment(
            certificate: value("ROLLCALL_TLS_CERT"), key: value("ROLLCALL_TLS_KEY"))
        if let tls { _ = try tls.serverConfiguration() }
        let maxConnections = try value("ROLLCALL_MAX_CONNECTIONS").map { text in
            guard let limit = Int(text), limit >= 1 else {
                throw ConfigurationError(
                    variable: "ROLLCALL_MAX_CONNECTIONS", problem: "must be a positive number, got “\(text)”")
            }
            return limit
        }
        let bcryptCost = try value("ROLLCALL_BCRYPT_COST").map { text in
            guard let cost = Int(text), bcryptCosts.contains(cost) else {
                throw ConfigurationError(
                    variable: "ROLLCALL_BCRYPT_COST",
                    problem: "must be a whole number from \(bcryptCosts.lowerBound) to \(bcryptCosts.upperBound) "
                        + "(each step doubles the time a sign-in takes), got “\(text)”")
            }
            return cost
        }
        let mailServer = try value("ROLLCALL_SMTP_URL").map { text in
            do throws(RuleViolation) {
                return try MailServer(url: text)
            } catch {
                throw ConfigurationError(variable: "ROLLCALL_SMTP_URL", problem: error.message)
            }
        }
        let mailFrom = try value("ROLLCALL_MAIL_FROM").map { text in
            guard let mailbox = Self.mailbox(text) else {
                throw ConfigurationError(
                    variable: "ROLLCALL_MAIL_FROM",
                    problem: "must be an address such as rollcall@school.edu or Rollcall <rollcall@school.edu>")
            }
            return mailbox
        }
        if mailServer != nil, mailFrom == nil {
            throw ConfigurationError(
                variable: "ROLLCALL_MAIL_FROM",
                problem: "must name the sender of Rollcall's email when ROLLCALL_SMTP_URL is set")
        }
        let defaultRegion = try value("ROLLCALL_DEFAULT_REGION").map { text in
            guard PhoneNumber.regions[text.uppercased()] != nil else {
                throw ConfigurationError(
                    variable: "ROLLCALL_DEFAULT_REGION",
                    problem:
                        "must be one of \(PhoneNumber.regions.keys.sorted().joined(separator: ", ")), got “\(text)”")
            }
            return text.uppercased()
        }
        let smsWebhook = try value("ROLLCALL_SMS_WEBHOOK_URL").map { text in
            guard let url = URL(string: text), let scheme = url.scheme?.lowercased(),
                scheme == "https" || scheme == "http", url.host != nil
            else {
                throw ConfigurationError(
                    variable: "ROLLCALL_SMS_WEBHOOK_URL", problem: "must be a URL such as https://sms.school.edu/send")
            }
            return url
        }
        let smsWebhookSecret = value("ROLLCALL_SMS_WEBHOOK_SECRET")
        if smsWebhook != nil, (smsWebhookSecret ?? "").count < 16 {
            throw ConfigurationError(
                variable: "ROLLCALL_SMS_WEBHOOK_SECRET",
                problem: "must be at least 16 characters when ROLLCALL_SMS_WEBHOOK_URL is set: the gateway checks it")
        }
        let mailTrustFile = value("ROLLCALL_SMTP_CA_FILE")
        if let mailTrustFile, !FileManager.default.isReadableFile(atPath: mailTrustFile) {
            throw ConfigurationError(
                variable: "ROLLCALL_SMTP_CA_FILE", problem: "names no readable file: \(mailTrustFile)")
        }
        var configuration = Configuration(
            hostname: hostname ?? value("ROLLCALL_HOSTNAME") ?? "127.0.0.1",
            port: port ?? 8080,
            dataDirectory: dataDirectory ?? value("ROLLCALL_DATA_DIR") ?? "data",
            databaseURL: value("ROLLCALL_DATABASE_URL"),
            publicURL: publicURL.map { String($0.trimmingSuffix("/")) },
            teacherApproval: approval ?? false,
            logLevel: level ?? .info,
            evidenceDays: evidenceDays ?? Retention.defaultDays,
            trustedProxies: trustedProxies,
            metricsToken: value("ROLLCALL_METRICS_TOKEN"),
            metricsNetworks: metricsNetworks,
            tls: tls
        )
        if let maxConnections { configuration.maxConnections = maxConnections }
        if let bcryptCost { configuration.bcryptCost = bcryptCost }
        configuration.mailServer = mailServer
        configuration.mailFrom = mailFrom
        configuration.mailTrustFile = mailTrustFile
        configuration.defaultRegion = defaultRegion
        configuration.smsWebhook = smsWebhook
        configuration.smsWebhookSecret = smsWebhookSecret
        if let school = value("ROLLCALL_SCHOOL_NAME") { configuration.schoolName = MailHeader.singleLine(school) }
        return configuration
    }

    /// `Name <address>` or a bare address.
    static func mailbox(_ text: String) -> Mailbox? {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        if let open = trimmed.lastIndex(of: "<"), trimmed.hasSuffix(">") {
            let address = String(trimmed[trimmed.index(after: open)..<trimmed.index(before: trimmed.endIndex)])
            let name = trimmed[..<open].trimmingCharacters(in: .whitespaces)
                .trimmingCharacters(in: CharacterSet(charactersIn: "\""))
            guard let email = try? AccountRules.email(address) else { return nil }
            return Mailbox(address: email, name: name.isEmpty ? nil : name)
        }
        return (try? AccountRules.email(trimmed)).map { Mailbox(address: $0) }
    }

    /// The embedded database file.
    public var sqlitePath: String {
        URL(fileURLWithPath: dataDirectory).appendingPathComponent("rollcall.sqlite").path
    }

    /// Session cookies are marked Secure whenever people reach Rollcall over HTTPS.
    var secureCookies: Bool { publicURL.lowercased().hasPrefix("https://") }
}

/// A setting that cannot be used, naming the variable so the person starting Rollcall can fix it.
public struct ConfigurationError: Error, CustomStringConvertible {
    public var variable: String
    public var problem: String
    public var description: String { "\(variable) \(problem)." }
}

extension String {
    func trimmingSuffix(_ suffix: Character) -> Substring {
        var text = self[...]
        while text.last == suffix { text = text.dropLast() }
        return text
    }
}
