import Foundation
import Logging
import RollcallCore
import RollcallModel
import RollcallWords

/// One environment variable: its name, and how its text becomes a setting of `Configuration`.
package struct Setting: Sendable {
    package let name: String
    package let apply: @Sendable (_ text: String, _ configuration: inout Configuration) throws -> Void

    package init<Value>(
        _ name: String, _ keyPath: WritableKeyPath<Configuration, Value> & Sendable,
        _ parse: @escaping @Sendable (_ text: String, _ variable: String) throws -> Value
    ) {
        self.name = name
        apply = { text, configuration in configuration[keyPath: keyPath] = try parse(text, name) }
    }

    package init<Value>(
        _ name: String, _ keyPath: WritableKeyPath<Configuration, Value?> & Sendable,
        _ parse: @escaping @Sendable (_ text: String, _ variable: String) throws -> Value
    ) {
        self.name = name
        apply = { text, configuration in configuration[keyPath: keyPath] = try parse(text, name) }
    }
}

/// The parsers of settings: each reads one variable's text, or throws a `ConfigurationError` naming the variable and
/// saying what it must be.
package enum Parse {
    package static func text(_ text: String, _ variable: String) -> String { text }

    package static func singleLine(_ text: String, _ variable: String) -> String { MailHeader.singleLine(text) }

    package static func port(_ text: String, _ variable: String) throws -> Int {
        guard let port = Int(text), (1...65535).contains(port) else {
            throw ConfigurationError(variable: variable, problem: "must be a port number, got “\(text)”")
        }
        return port
    }

    package static func logLevel(_ text: String, _ variable: String) throws -> Logger.Level {
        guard let level = Logger.Level(rawValue: text.lowercased()) else {
            throw ConfigurationError(
                variable: variable, problem: "must be one of trace, debug, info, notice, warning, error, critical")
        }
        return level
    }

    package static func flag(_ text: String, _ variable: String) throws -> Bool {
        switch text.lowercased() {
        case "1", "true", "yes", "on": return true
        case "0", "false", "no", "off": return false
        default: throw ConfigurationError(variable: variable, problem: "must be true or false")
        }
    }

    package static func evidenceDays(_ text: String, _ variable: String) throws -> Int {
        guard let days = Int(text), Retention.allowedDays.contains(days) else {
            throw ConfigurationError(
                variable: variable,
                problem: "must be a number of days from 1 to \(Retention.allowedDays.upperBound), got “\(text)”")
        }
        return days
    }

    package static func publicURL(_ text: String, _ variable: String) throws -> String {
        guard URL(string: text)?.host != nil else {
            throw ConfigurationError(variable: variable, problem: "must be a URL such as https://rollcall.school.edu")
        }
        return String(text.trimmingSuffix("/"))
    }

    package static func networkRanges(_ text: String, _ variable: String) throws -> [NetworkRange] {
        let items = text.split(whereSeparator: { $0 == "," || $0 == " " || $0 == "\t" || $0 == "\n" })
        return try items.map { item in
            guard let range = NetworkRange(cidr: String(item)) else {
                throw ConfigurationError(
                    variable: variable,
                    problem: "must be address ranges separated by commas, such as 10.0.0.0/8, ::1/128; "
                        + "“\(item)” is not one")
            }
            return range
        }
    }

    package static func positiveNumber(_ text: String, _ variable: String) throws -> Int {
        guard let number = Int(text), number >= 1 else {
            throw ConfigurationError(variable: variable, problem: "must be a positive number, got “\(text)”")
        }
        return number
    }

    package static func bcryptCost(_ text: String, _ variable: String) throws -> Int {
        let costs = Configuration.bcryptCosts
        guard let cost = Int(text), costs.contains(cost) else {
            throw ConfigurationError(
                variable: variable,
                problem: "must be a whole number from \(costs.lowerBound) to \(costs.upperBound) "
                    + "(each step doubles the time a sign-in takes), got “\(text)”")
        }
        return cost
    }

    package static func mailServer(_ text: String, _ variable: String) throws -> MailServer {
        do throws(RuleViolation) {
            return try MailServer(url: text)
        } catch {
            throw ConfigurationError(variable: variable, problem: error.message.description)
        }
    }

    package static func mailbox(_ text: String, _ variable: String) throws -> Mailbox {
        guard let mailbox = Configuration.mailbox(text) else {
            throw ConfigurationError(
                variable: variable,
                problem: "must be an address such as rollcall@school.edu or Rollcall <rollcall@school.edu>")
        }
        return mailbox
    }

    package static func readableFile(_ text: String, _ variable: String) throws -> String {
        guard FileManager.default.isReadableFile(atPath: text) else {
            throw ConfigurationError(variable: variable, problem: "names no readable file: \(text)")
        }
        return text
    }

    /// A language people read: the pseudo-locale is a testing tool, asked for by name in a browser, never a
    /// school's default.
    package static func language(_ text: String, _ variable: String) throws -> String {
        let catalogs = Catalogs.shipped
        guard let found = catalogs.named(text), found != PseudoLocale.language else {
            throw ConfigurationError(
                variable: variable,
                problem: "must be one of \(catalogs.choices.map(\.language).joined(separator: ", ")), got “\(text)”")
        }
        return found
    }

    package static func timeZone(_ text: String, _ variable: String) throws -> String {
        guard CourseTimeZone.isKnown(text) else {
            throw ConfigurationError(
                variable: variable, problem: "must be an IANA time zone such as Europe/Paris, got “\(text)”")
        }
        return text
    }

    package static func region(_ text: String, _ variable: String) throws -> String {
        guard PhoneNumber.regions[text.uppercased()] != nil else {
            throw ConfigurationError(
                variable: variable,
                problem: "must be one of \(PhoneNumber.regions.keys.sorted().joined(separator: ", ")), got “\(text)”")
        }
        return text.uppercased()
    }

    package static func webhookURL(_ text: String, _ variable: String) throws -> URL {
        guard let url = URL(string: text), let scheme = url.scheme?.lowercased(),
            scheme == "https" || scheme == "http", url.host != nil
        else {
            throw ConfigurationError(variable: variable, problem: "must be a URL such as https://sms.school.edu/send")
        }
        return url
    }
}
