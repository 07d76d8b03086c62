import Foundation
import Logging
import NIOCore
import PostgresKit
import ServiceLifecycle

/// Carries live wake-ups between server processes that share one PostgreSQL database.
///
/// `EventLog.append` sends `NOTIFY rollcall_session_events, '<feed>:<key>'` in the change's transaction, so
/// PostgreSQL delivers it only if and when the change commits, to every process. This service listens on its own
/// connection and wakes that key's live views in this process, which then read the log as after a local change.
///
/// The same connection listens for `ChangeNotices` on a channel of their own, which PostgreSQL sends in the
/// transaction of every change to a row that a process's caches may hold (`Migrations.step044ChangesAnnounced`).
package struct LiveNotifications: Service {
    package static let channel = "rollcall_session_events"
    package static let changes = "rollcall_changes"

    /// The server in use when the listener (re)connects: after a failover, the new primary.
    package let server: @Sendable () async throws -> PostgresConnection.Configuration
    package let hubs: LiveHubs
    package let notices: ChangeNotices
    package let logger: Logger

    package func run() async throws {
        while !Task.isCancelled && !Task.isShuttingDownGracefully {
            do {
                // Whatever ends a listen, a change may go unheard from then on: said here too, since a listen let go
                // on a connection that closed under it (`StatementWatch`) may not have ended yet.
                defer { notices.stoppedHearing() }
                try await cancelWhenGracefulShutdown { try await listen() }
            } catch {
                guard !Task.isCancelled && !Task.isShuttingDownGracefully else { return }
                logger.warning("live notifications lost; reconnecting", metadata: ["error": "\(error)"])
                // Every view reads at once: with the database gone each closes saying "try again later", rather than
                // learning it at its next catch-up, and with it there each finds what it may have missed.
                hubs.publishedToAll()
                try? await Task.sleep(for: .seconds(1))
            }
        }
    }

    private func listen() async throws {
        let connection = try await PostgresConnection.connect(
            configuration: try await server(), id: 1, logger: logger)
        do {
            // Closed at once when cancelled: the UNLISTEN that ends a listen is never answered by a server gone silent.
            try await withTaskCancellationHandler {
                // Both under a watch: PostgresNIO never answers a request that meets the connection just closed, and
                // the group could not end while one waits.
                let watch = StatementWatch()
                defer { watch.stop() }
                try await withThrowingTaskGroup(of: Void.self) { group in
                    group.addTask {
                        try await watch.run(on: connection, deadline: nil) { try await listening(on: connection) }
                    }
                    group.addTask { try await Self.probe(connection, watch: watch, logger: logger) }
                    try await group.next()
                    group.cancelAll()
                }
            } onCancel: {
                _ = connection.close() as EventLoopFuture<Void>
            }
            try await connection.close()
        } catch {
            try? await connection.close()
            throw error
        }
    }

    /// How often the listening connection is asked a question, and how long it has to answer. A primary whose
    /// machine is lost sends no reset: without a question, this process would never hear another process again.
    static let probeEvery = Duration.seconds(5)
    static let probeDeadline = Duration.seconds(5)

    /// Asks the server a question every `probeEvery`, and closes the connection when it is not answered in time. The
    /// watch lets the question go too when the connection closes under it, which PostgresNIO may never answer.
    private static func probe(_ connection: PostgresConnection, watch: StatementWatch, logger: Logger) async throws {
        while true {
            try await Task.sleep(for: probeEvery)
            try await watch.run(on: connection, deadline: probeDeadline) {
                _ = try await connection.query("SELECT 1", logger: logger).collect()
            }
        }
    }

    /// Wakes this process's live views and caches for each notification, until the connection ends.
    private func listening(on connection: PostgresConnection) async throws {
        try await connection.listen(on: Self.channel) { notifications in
            try await connection.listen(on: Self.changes) { changes in
                // Anything committed while this process was not listening is found by a read after the last id;
                // any cached copy may be older than a change made meanwhile.
                hubs.publishedToAll()
                let listen = notices.beganHearing()
                defer { notices.stoppedHearing(listen) }
                try await withThrowingTaskGroup(of: Void.self) { group in
                    group.addTask {
                        for try await notification in notifications {
                            if let (feed, key) = LiveFeed.parse(notification: notification.payload) {
                                hubs[feed].published(key)
                            }
                        }
                    }
                    group.addTask {
                        for try await change in changes {
                            if let notice = ChangeNotice(payload: change.payload) { notices.received(notice) }
                        }
                    }
                    try await group.next()
                    group.cancelAll()
                }
            }
        }
    }
}
