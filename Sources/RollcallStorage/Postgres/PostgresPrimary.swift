import Foundation
import Logging
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import PostgresKit
import RollcallCore
import SQLKit

/// The PostgreSQL server Rollcall writes to, chosen from the URL's hosts as libpq chooses, and the pool of
/// connections to it (PostgresNIO's `PostgresClient`).
///
/// With one host and no `target_session_attrs`, the pool is made once and reconnects on its own, as behind a proxy
/// or a virtual IP; a lost connection has the host tried once, so that while it does not answer requests are refused
/// at once rather than each after waiting for a connection. Otherwise a lost connection or a read-only answer sends
/// Rollcall through the list again: the first host that takes writes gets a new pool, and the old pool closes with
/// whatever statements it had prepared.
final class PostgresPrimary: Sendable {
    let hosts: PostgresHosts
    private let logger: Logger
    private let connections: Int
    /// The pools' shared names for statements (a pool's connections prepare them as they meet them).
    let statements = PreparedStatements()
    /// The deadlines of the statements running on the pools' connections.
    private let watch = StatementWatch()

    private struct State {
        var pool: Pool?
        var election: Task<Void, Never>?
        /// When the last election found no host to use: until a moment later, requests are refused at once.
        var failedAt: ContinuousClock.Instant?
        var closed = false
    }

    /// A pool and the task that runs it.
    struct Pool: Sendable {
        var client: PostgresClient
        var host: Int
        var running: Task<Void, Never>
    }

    private let state = NIOLockedValueBox(State())

    init(hosts: PostgresHosts, connections: Int, logger: Logger) {
        self.hosts = hosts
        self.connections = connections
        self.logger = logger
        if !hosts.elects { state.withLockedValue { $0.pool = Self.start(hosts, host: 0, connections, logger) } }
    }

    /// A pool runs outside any service group: a graceful shutdown of the server must not close it while requests
    /// still drain. `close` ends it.
    private static func start(_ hosts: PostgresHosts, host: Int, _ connections: Int, _ logger: Logger) -> Pool {
        let client = PostgresClient(configuration: hosts.pool(host, connections: connections), backgroundLogger: logger)
        return Pool(client: client, host: host, running: Task.detached { await client.run() })
    }

    /// The pool of the server in use, after choosing one if none is chosen yet.
    func pool() async throws -> Pool {
        let (pool, waiting) = state.withLockedValue { state -> (Pool?, Task<Void, Never>?) in
            if state.closed { return (nil, nil) }
            if let failedAt = state.failedAt {
                if failedAt.duration(to: .now) < Self.retryAfterFailure { return (nil, nil) }
                // A moment has passed: the host is tried again before the pool is waited for.
                return (nil, electing(&state))
            }
            if let pool = state.pool { return (pool, nil) }
            return (nil, electing(&state))
        }
        if let pool { return pool }
        // Waited for by looking, not by awaiting the election: a caller whose deadline passes must be able to leave.
        while waiting != nil, state.withLockedValue({ $0.election != nil && ($0.pool == nil || $0.failedAt != nil) }) {
            try await Task.sleep(for: .milliseconds(20))
        }
        guard let pool = state.withLockedValue({ $0.failedAt == nil ? $0.pool : nil }) else {
            throw DatabaseUnavailable()
        }
        return pool
    }

    /// How long after finding no host requests are refused without trying again.
    static let retryAfterFailure = Duration.seconds(1)

    /// The connection settings of the server in use, for the listener of notifications.
    func server() async throws -> PostgresConnection.Configuration {
        hosts.servers[try await pool().host]
    }

    /// Says that the server in use failed in a way a failover explains: the hosts are tried again, once at a time.
    func suspect() {
        state.withLockedValue { state in _ = electing(&state) }
    }

    private func electing(_ state: inout State) -> Task<Void, Never> {
        if let election = state.election { return election }
        let election = Task.detached { await self.elect() }
        state.election = election
        return election
    }

    /// Tries each host in order and keeps the first that answers (and takes writes, when asked); with none, the pool
    /// in use is closed, so that requests are refused until a host answers. A single address keeps its pool, which
    /// reconnects on its own: only whether it answered is remembered.
    private func elect() async {
        var chosen: Int?
        for host in hosts.servers.indices {
            if await usable(host) {
                chosen = host
                break
            }
        }
        let retired = state.withLockedValue { state -> Pool? in
            defer { state.election = nil }
            guard !state.closed else { return nil }
            state.failedAt = chosen == nil ? .now : nil
            guard hosts.elects else { return nil }
            if let pool = state.pool, pool.host == chosen { return nil }
            let retired = state.pool
            state.pool = chosen.map { Self.start(hosts, host: $0, connections, logger) }
            return retired
        }
        if let retired {
            logger.warning("PostgreSQL: leaving host \(retired.host + 1) of the list")
            retired.running.cancel()
        }
        if let chosen, hosts.elects { logger.notice("PostgreSQL: using host \(chosen + 1) of the list") }
    }

    /// Whether host `index` answers within the connect deadline and, when the URL asks, takes writes. A host that
    /// accepts the connection and then says nothing (a machine gone silent behind a proxy) is passed over too.
    private func usable(_ index: Int) async -> Bool {
        let server = {
            var server = hosts.servers[index]
            server.options.connectTimeout = .init(PostgresHosts.connectDeadline)
            return server
        }()
        let logger = logger
        let connection: PostgresConnection
        do {
            connection = try await withThrowingTaskGroup(of: PostgresConnection?.self) { group in
                group.addTask {
                    try await PostgresConnection.connect(configuration: server, id: 0, logger: logger)
                }
                group.addTask {
                    try await Task.sleep(for: PostgresHosts.connectDeadline)
                    return nil
                }
                defer { group.cancelAll() }
                guard let connection = try await group.next() ?? nil else { throw DatabaseUnavailable() }
                return connection
            }
        } catch {
            logger.notice("PostgreSQL: host \(index + 1) of the list does not answer: \(String(reflecting: error))")
            return false
        }
        // Closing the connection ends a question the server never answers.
        let timer = connection.eventLoop.scheduleTask(in: .init(PostgresHosts.connectDeadline)) {
            _ = connection.close() as EventLoopFuture<Void>
        }
        defer { timer.cancel() }
        var usable = !hosts.needsWrites
        if !usable {
            do {
                let rows = try await connection.query("SHOW transaction_read_only", logger: logger)
                for try await readOnly in rows.decode(String.self) { usable = readOnly == "off" }
            } catch {
                logger.notice("PostgreSQL: host \(index + 1) of the list did not say whether it takes writes: \(error)")
            }
        }
        if !usable { logger.notice("PostgreSQL: host \(index + 1) of the list does not take writes") }
        // PostgresNIO requires a connection closed before it is released.
        try? await connection.close()
        return usable
    }

    /// Ends every pool; requests after this are refused. The pool's task is not waited for: a connection still
    /// opening to a server gone silent would hold it, and the server's shutdown with it.
    func close() async {
        let pool = state.withLockedValue { state -> Pool? in
            state.closed = true
            defer { state.pool = nil }
            return state.pool
        }
        pool?.running.cancel()
        watch.stop()
    }
}

extension TimeAmount {
    /// NIO's form of a Swift duration.
    init(_ duration: Duration) {
        self = .nanoseconds(Int64(duration.seconds * 1e9))
    }
}

extension PostgresPrimary {
    /// How long a statement may run before its connection is closed under it. Migrations and the operator's
    /// commands, which may rewrite whole tables, run with a longer one.
    @TaskLocal static var statementDeadline = Duration.seconds(15)
    /// How long a COMMIT or ROLLBACK may take: a connection whose server is gone never answers one.
    static let transactionEndDeadline = Duration.seconds(5)
    /// How long a request waits for a connection before the database counts as out of reach.
    static let leaseDeadline = Duration.seconds(5)

    /// Runs `body` on a connection of the server in use. A failure a lost server explains (no connection within the
    /// deadline, a connection closed or refused, a server shutting down or read-only) becomes `DatabaseUnavailable`,
    /// and sends Rollcall through the hosts again.
    func leasing<Result: Sendable>(
        logger: Logger, _ body: @Sendable (any SQLDatabase) async throws -> Result
    ) async throws -> Result {
        let leased = NIOLockedValueBox(false)
        do {
            // The group ends its tasks before it returns, so `body` does not outlive this call.
            return try await withoutActuallyEscaping(body) { body in
                try await withThrowingTaskGroup(of: Result?.self) { group in
                    group.addTask { try await self.lent(leased, body) }
                    // Only the wait for a connection is cut short: statements have deadlines of their own.
                    group.addTask { [watch] in
                        try await watch.waitOut(Self.leaseDeadline)
                        guard leased.withLockedValue({ $0 }) else { throw DatabaseUnavailable() }
                        return nil
                    }
                    while let next = try await group.next() {
                        guard let result = next else { continue }
                        group.cancelAll()
                        return result
                    }
                    throw DatabaseUnavailable()
                }
            }
        } catch {
            // A failure before a connection was lent is the pool's: none came within the deadline, or none can be made.
            guard !Task.isCancelled, !leased.withLockedValue({ $0 }) || Self.isOutage(error) else { throw error }
            suspect()
            throw DatabaseUnavailable()
        }
    }

    private func lent<Result: Sendable>(
        _ leased: NIOLockedValueBox<Bool>, _ body: @Sendable (any SQLDatabase) async throws -> Result
    ) async throws -> Result {
        let pool = try await pool()
        let (statements, watch) = (statements, watch)
        let deadline = Self.statementDeadline
        // A connection closed under an earlier statement (its deadline passed, its server went) goes back to the pool
        // before the pool hears of the close, and may be lent again at once: it is handed back unused, and another
        // is asked for, as many times as the pool has connections.
        for _ in 0...connections {
            let lent: Result? = try await pool.client.withConnection { connection in
                guard !connection.isClosed else { return nil }
                leased.withLockedValue { $0 = true }
                do {
                    return try await body(
                        PostgresSession(
                            connection: connection, statements: statements, watch: watch, deadline: deadline))
                } catch  where Self.isOutage(error) {
                    // Closed before it goes back: a connection its server just ended may not know it yet, and the
                    // pool would lend it to the next request at once. A read-only server's connection goes too.
                    try? await connection.close()
                    throw error
                }
            }
            if let lent { return lent }
            await Task.yield()
        }
        throw DatabaseUnavailable()
    }

    /// Whether `error` says the server is gone, going, or no longer the primary, rather than that a statement failed.
    static func isOutage(_ error: any Error) -> Bool {
        switch error {
        case is DatabaseUnavailable, is ChannelError, is IOError: return true
        case let error as PSQLError:
            switch error.code {
            case .serverClosedConnection, .clientClosedConnection, .connectionError, .uncleanShutdown, .poolClosed:
                return true
            case .server:
                // Connection exceptions, a server shutting down or starting, and a read-only transaction (a standby,
                // or a primary since demoted).
                let state = error.serverInfo?[.sqlState] ?? ""
                return state.hasPrefix("08") || state.hasPrefix("57P") || state == "25006"
            default: return false
            }
        default: return false
        }
    }
}
