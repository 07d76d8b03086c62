import Foundation
import Logging
import NIOCore
import RollcallCore
import RollcallDelivery
import RollcallModel
import RollcallWeb
import RollcallWords

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
    /// The language of people whose browser asks for none Rollcall speaks, and of letters to people who chose none
    /// (`ROLLCALL_DEFAULT_LANGUAGE`, such as fr).
    public var defaultLanguage = "en"
    /// The school's name in every letter (`ROLLCALL_SCHOOL_NAME`).
    public var schoolName: String = "Rollcall"
    /// The school's OpenID Connect sign-in (`ROLLCALL_OIDC_*`), when it is set up.
    public var singleSignOn: SingleSignOnSettings?
    /// Whether people may register and sign in with a password (`ROLLCALL_PASSWORD_SIGN_IN`); admins always may.
    public var passwordSignIn = true
    /// Invitation letters each teacher's imports may send in any 24 hours (`ROLLCALL_INVITATIONS_PER_DAY`); the
    /// rest wait.
    public var invitationsPerDay = 500
    /// The school's time zone (`ROLLCALL_DEFAULT_TIME_ZONE`, an IANA name such as Europe/Paris): a new course takes
    /// it when neither its teacher's profile nor their browser names one. Without it, the server's own zone.
    public var defaultTimeZone: String?
    /// The clock proximity and exposure reports read; tests run a week of phones on one of their own.
    public var clock: @Sendable () -> Date = { Date() }
    /// Waits between attempts at a message whose delivery failed.
    package var mailRetry = RetryPolicy()
    /// How often the delivery reads the queue when nothing wakes it.
    package var mailPoll: Duration = .seconds(5)
    /// Waits between attempts at a background job that failed (a score a platform did not take).
    package var jobRetry = RetryPolicy()
    /// How often the jobs are read when nothing wakes their runner.
    package var jobPoll: Duration = .seconds(5)
    /// Seconds between two texted codes to one number.
    package var phoneCodeInterval: TimeInterval = 30
    /// How long the SMTP server may take to answer each command.
    package var smtpTimeout: TimeAmount = .seconds(30)

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

    /// Settings from the environment (`Configuration.settings`), flags given on the command line taking precedence.
    public static func fromEnvironment(
        _ environment: [String: String] = ProcessInfo.processInfo.environment,
        hostname: String? = nil, port: Int? = nil, dataDirectory: String? = nil
    ) throws -> Configuration {
        func value(_ name: String) -> String? {
            environment[name].flatMap { $0.isEmpty ? nil : $0 }
        }
        // A server people can register on waits for an admin to approve each new teacher, unless told otherwise:
        // otherwise anyone could call themselves a teacher and reach students.
        var configuration = Configuration(teacherApproval: true)
        for setting in settings {
            if let text = value(setting.name) { try setting.apply(text, &configuration) }
        }
        if let hostname { configuration.hostname = hostname }
        if let port { configuration.port = port }
        if let dataDirectory { configuration.dataDirectory = dataDirectory }
        configuration.tls = try TLSFiles.fromEnvironment(
            certificate: value("ROLLCALL_TLS_CERT"), key: value("ROLLCALL_TLS_KEY"))
        if let tls = configuration.tls { _ = try tls.serverConfiguration() }
        configuration.singleSignOn = try SingleSignOnSettings.fromEnvironment(value)
        if value("ROLLCALL_PUBLIC_URL") == nil {
            configuration.publicURL = Configuration(port: configuration.port, tls: configuration.tls).publicURL
        }
        // Settings that only make sense together.
        if configuration.mailServer != nil, configuration.mailFrom == nil {
            throw ConfigurationError(
                variable: "ROLLCALL_MAIL_FROM",
                problem: "must name the sender of Rollcall's email when ROLLCALL_SMTP_URL is set")
        }
        if !configuration.passwordSignIn, configuration.singleSignOn == nil {
            throw ConfigurationError(
                variable: "ROLLCALL_PASSWORD_SIGN_IN",
                problem: "can be false only with the school's sign-in set up (ROLLCALL_OIDC_ISSUER)")
        }
        if configuration.smsWebhook != nil, (configuration.smsWebhookSecret ?? "").count < 16 {
            throw ConfigurationError(
                variable: "ROLLCALL_SMS_WEBHOOK_SECRET",
                problem: "must be at least 16 characters when ROLLCALL_SMS_WEBHOOK_URL is set: the gateway checks it")
        }
        return configuration
    }

    /// Every `ROLLCALL_*` variable but the TLS pair and the `ROLLCALL_OIDC_*` group (`SingleSignOnSettings`), each with
    /// the setting it fills and its parser.
    package static let settings: [Setting] = [
        Setting("ROLLCALL_HOSTNAME", \.hostname, Parse.text),
        Setting("ROLLCALL_PORT", \.port, Parse.port),
        Setting("ROLLCALL_DATA_DIR", \.dataDirectory, Parse.text),
        Setting("ROLLCALL_DATABASE_URL", \.databaseURL, Parse.text),
        Setting("ROLLCALL_PUBLIC_URL", \.publicURL, Parse.publicURL),
        Setting("ROLLCALL_TEACHER_APPROVAL", \.teacherApproval, Parse.flag),
        Setting("ROLLCALL_LOG_LEVEL", \.logLevel, Parse.logLevel),
        Setting("ROLLCALL_EVIDENCE_DAYS", \.evidenceDays, Parse.evidenceDays),
        Setting("ROLLCALL_TRUSTED_PROXIES", \.trustedProxies, Parse.networkRanges),
        Setting("ROLLCALL_METRICS_TOKEN", \.metricsToken, Parse.text),
        Setting("ROLLCALL_METRICS_NETWORKS", \.metricsNetworks, Parse.networkRanges),
        Setting("ROLLCALL_MAX_CONNECTIONS", \.maxConnections, Parse.positiveNumber),
        Setting("ROLLCALL_BCRYPT_COST", \.bcryptCost, Parse.bcryptCost),
        Setting("ROLLCALL_SMTP_URL", \.mailServer, Parse.mailServer),
        Setting("ROLLCALL_MAIL_FROM", \.mailFrom, Parse.mailbox),
        Setting("ROLLCALL_SMTP_CA_FILE", \.mailTrustFile, Parse.readableFile),
        Setting("ROLLCALL_DEFAULT_REGION", \.defaultRegion, Parse.region),
        Setting("ROLLCALL_SMS_WEBHOOK_URL", \.smsWebhook, Parse.webhookURL),
        Setting("ROLLCALL_SMS_WEBHOOK_SECRET", \.smsWebhookSecret, Parse.text),
        Setting("ROLLCALL_SCHOOL_NAME", \.schoolName, Parse.singleLine),
        Setting("ROLLCALL_DEFAULT_LANGUAGE", \.defaultLanguage, Parse.language),
        Setting("ROLLCALL_PASSWORD_SIGN_IN", \.passwordSignIn, Parse.flag),
        Setting("ROLLCALL_INVITATIONS_PER_DAY", \.invitationsPerDay, Parse.positiveNumber),
        Setting("ROLLCALL_DEFAULT_TIME_ZONE", \.defaultTimeZone, Parse.timeZone),
    ]

    /// `Name <address>` or a bare address.
    package static func mailbox(_ text: String) -> Mailbox? {
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

    /// The zone a new course takes when nothing better is known: the school's, else the server's.
    package var schoolTimeZone: String { defaultTimeZone ?? CourseTimeZone.serverDefault }

    /// Session cookies are marked Secure whenever people reach Rollcall over HTTPS.
    package var secureCookies: Bool { publicURL.lowercased().hasPrefix("https://") }
}

extension String {
    package func trimmingSuffix(_ suffix: Character) -> Substring {
        var text = self[...]
        while text.last == suffix { text = text.dropLast() }
        return text
    }
}
