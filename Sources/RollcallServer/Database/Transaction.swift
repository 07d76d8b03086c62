import Logging
import NIOConcurrencyHelpers
import NIOCore
import SQLKit

/// A transaction in progress: its connection, and the sessions and quiz runs whose live views its commit must wake.
///
/// Whatever writes a session's event log inside the transaction marks the session here (`SessionEvents.append`
/// does), and `Database.transaction` wakes their live views once the commit has succeeded: nobody publishes by hand,
/// and nothing is published for a change that rolled back.
final class Transaction: SQLDatabase {
    private let connection: any SQLDatabase
    private let sessions = NIOLockedValueBox<Set<Int64>>([])
    private let quizRuns = NIOLockedValueBox<Set<Int64>>([])

    init(_ connection: any SQLDatabase) {
        self.connection = connection
    }

    /// Marks a session as changed by this transaction.
    func touched(sessionID: Int64) {
        _ = sessions.withLockedValue { $0.insert(sessionID) }
    }

    /// The sessions changed so far.
    var touchedSessions: Set<Int64> { sessions.withLockedValue { $0 } }

    /// Marks a quiz run as changed by this transaction (`QuizEvents.append` does).
    func touched(quizRunID: Int64) {
        _ = quizRuns.withLockedValue { $0.insert(quizRunID) }
    }

    /// The quiz runs changed so far.
    var touchedQuizRuns: Set<Int64> { quizRuns.withLockedValue { $0 } }

    var logger: Logger { connection.logger }
    var eventLoop: any EventLoop { connection.eventLoop }
    var version: (any SQLDatabaseReportedVersion)? { connection.version }
    var dialect: any SQLDialect { connection.dialect }
    var queryLogLevel: Logger.Level? { connection.queryLogLevel }

    func execute(sql query: any SQLExpression, _ onRow: @escaping @Sendable (any SQLRow) -> Void)
        -> EventLoopFuture<Void>
    {
        connection.execute(sql: query, onRow)
    }

    func execute(sql query: any SQLExpression, _ onRow: @escaping @Sendable (any SQLRow) -> Void) async throws {
        try await connection.execute(sql: query, onRow)
    }
}
