import Foundation
import PostgresKit
import RollcallWords

/// Where PostgreSQL is: one address, or libpq's list of hosts tried in order (`postgres://h1:5432,h2:5432/db`),
/// and whether only a server that takes writes will do (`target_session_attrs=read-write`).
package struct PostgresHosts: Sendable {
    /// One configuration per host, in the URL's order.
    package var servers: [PostgresConnection.Configuration]
    /// Whether a host must take writes to be chosen: a standby, or a primary since demoted, is passed over.
    package var needsWrites: Bool

    /// Whether the server in use may change while Rollcall runs: there are several, or the one may be demoted.
    package var elects: Bool { servers.count > 1 || needsWrites }

    /// Reads `ROLLCALL_DATABASE_URL`. Everything but the host list and `target_session_attrs` is PostgresKit's URL
    /// form, read by PostgresKit for each host in turn.
    package init(url: String) throws {
        guard let schemeEnd = url.range(of: "://"),
            ["postgres", "postgresql", "postgres+tcp", "postgresql+tcp", "postgres+uds", "postgresql+uds"]
                .contains(url[..<schemeEnd.lowerBound].lowercased())
        else { throw Self.refusal("must start with postgres:// (or postgresql://)") }
        if url[..<schemeEnd.lowerBound].lowercased().hasSuffix("+uds") {
            // A socket path has no host list: PostgresKit reads it whole.
            servers = [try Self.server(url)]
            needsWrites = false
            return
        }
        let afterScheme = url[schemeEnd.upperBound...]
        let authorityEnd = afterScheme.firstIndex(where: { $0 == "/" || $0 == "?" }) ?? afterScheme.endIndex
        let authority = afterScheme[..<authorityEnd]
        let userEnd = authority.lastIndex(of: "@")
        let user = userEnd.map { String(authority[...$0]) } ?? ""
        let hostList = userEnd.map { authority[authority.index(after: $0)...] } ?? authority
        let (rest, attributes) = try Self.takingSessionAttributes(from: String(afterScheme[authorityEnd...]))
        let hosts = hostList.split(separator: ",", omittingEmptySubsequences: false)
        guard !hosts.contains(where: \.isEmpty) else { throw Self.refusal("has an empty host in its list") }
        servers = try hosts.map { host in try Self.server("\(url[..<schemeEnd.upperBound])\(user)\(host)\(rest)") }
        needsWrites = attributes
    }

    /// One server's settings, read by PostgresKit.
    private static func server(_ url: String) throws -> PostgresConnection.Configuration {
        do {
            return try SQLPostgresConfiguration(url: url).coreConfiguration
        } catch {
            throw refusal("is not a PostgreSQL address Rollcall can read: \(url.replacingPassword())")
        }
    }

    /// The URL's path and query without `target_session_attrs`, and whether that asks for a server taking writes.
    private static func takingSessionAttributes(from rest: String) throws -> (String, Bool) {
        guard let queryStart = rest.firstIndex(of: "?") else { return (rest, false) }
        var kept: [Substring] = []
        var needsWrites = false
        for item in rest[rest.index(after: queryStart)...].split(separator: "&") {
            guard item.hasPrefix("target_session_attrs=") else {
                kept.append(item)
                continue
            }
            switch item.dropFirst("target_session_attrs=".count) {
            case "any": needsWrites = false
            case "read-write", "primary": needsWrites = true
            default:
                throw refusal("asks for target_session_attrs Rollcall cannot use: it writes, so say read-write or any")
            }
        }
        let path = rest[..<queryStart]
        return (kept.isEmpty ? String(path) : "\(path)?\(kept.joined(separator: "&"))", needsWrites)
    }

    private static func refusal(_ problem: String) -> ConfigurationError {
        ConfigurationError(variable: "ROLLCALL_DATABASE_URL", problem: problem)
    }

    /// The pool's settings for server `index`: its address and TLS as the URL said, with a connect deadline short
    /// enough that a host that is gone is passed over quickly.
    package func pool(_ index: Int, connections: Int) -> PostgresClient.Configuration {
        let server = servers[index]
        let tls: PostgresClient.Configuration.TLS =
            switch (server.tls.isEnforced, server.tls.isAllowed) {
            case (true, _): .require(server.tls.sslContext!.configuration)
            case (_, true): .prefer(server.tls.sslContext!.configuration)
            default: .disable
            }
        var pool: PostgresClient.Configuration
        if let socket = server.unixSocketPath {
            pool = .init(
                unixSocketPath: socket, username: server.username, password: server.password,
                database: server.database)
        } else {
            pool = .init(
                host: server.host ?? "localhost", port: server.port ?? 5432, username: server.username,
                password: server.password, database: server.database, tls: tls)
        }
        pool.options.connectTimeout = Self.connectDeadline
        pool.options.maximumConnections = connections
        pool.options.minimumConnections = 1
        return pool
    }

    /// How long a connection may take to open before its host counts as out of reach.
    package static let connectDeadline = Duration.seconds(3)
}

extension String {
    /// The URL with its password, if any, shown as `***`, for messages that may be logged.
    fileprivate func replacingPassword() -> String {
        guard let schemeEnd = range(of: "://"), let at = self[schemeEnd.upperBound...].lastIndex(of: "@"),
            let colon = self[schemeEnd.upperBound..<at].firstIndex(of: ":")
        else { return self }
        return String(self[..<index(after: colon)]) + "***" + String(self[at...])
    }
}
