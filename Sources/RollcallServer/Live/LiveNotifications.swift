import Foundation
import Logging
import NIOCore
import PostgresKit
import ServiceLifecycle

/// Carries live wake-ups between server processes that share one PostgreSQL database.
///
/// `SessionEvents.append` sends `NOTIFY rollcall_session_events, '<session id>'` in the change's transaction, so
/// PostgreSQL delivers it only if and when the change commits, to every process. This service listens on its own
/// connection and wakes the session's live views in this process, which then read the log as after a local change.
///
/// The same connection listens for `ChangeNotices` on a channel of their own, sent by `Database.announce` after a
/// change that other processes' caches may hold.
struct LiveNotifications: Service {
    static let channel = "rollcall_session_events"
    static let changes = "rollcall_changes"
    static let quizPrefix = "quiz:"

    let configuration: PostgresConnection.Configuration
    let hub: LiveHub
    /// Quiz runs' dashboards, woken by payloads `quiz:<run id>` (`QuizEvents.append`).
    let quizHub: LiveHub
    let notices: ChangeNotices
    let logger: Logger

    func run() async throws {
        while !Task.isCancelled && !Task.isShuttingDownGracefully {
            do {
                try await cancelWhenGracefulShutdown { try await listen() }
            } catch {
                guard !Task.isCancelled && !Task.isShuttingDownGracefully else { return }
                logger.warning("live notifications lost; reconnecting", metadata: ["error": "\(error)"])
                try? await Task.sleep(for: .seconds(1))
            }
        }
    }

    private func listen() async throws {
        let connection = try await PostgresConnection.connect(
            configuration: configuration, id: 1, logger: logger)
        do {
            try await connection.listen(on: Self.channel) { notifications in
                try await connection.listen(on: Self.changes) { changes in
                    // Anything committed while this process was not listening is found by a read after the last id;
                    // any cached copy may be older than a change made meanwhile.
                    hub.publishedToAll()
                    quizHub.publishedToAll()
                    notices.received(nil)
                    try await withThrowingTaskGroup(of: Void.self) { group in
                        group.addTask {
                            for try await notification in notifications {
                                if let sessionID = Int64(notification.payload) {
                                    hub.published(sessionID: sessionID)
                                } else if notification.payload.hasPrefix(Self.quizPrefix),
                                    let runID = Int64(notification.payload.dropFirst(Self.quizPrefix.count))
                                {
                                    quizHub.published(sessionID: runID)
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
            try await connection.close()
        } catch {
            try? await connection.close()
            throw error
        }
    }
}
