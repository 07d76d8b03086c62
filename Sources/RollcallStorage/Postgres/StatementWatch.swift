import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import PostgresNIO

/// The deadlines of the statements running on a pool's connections, looked over a few times a second.
///
/// A statement past its deadline has its connection closed under it, and its caller is let go at once. So is a
/// statement still running on a connection that has closed: PostgresNIO fails what it was given before the close,
/// but a statement that reached the connection just after it closed is never answered, nor cancelled.
final class StatementWatch: Sendable {
    private struct Running {
        var connection: PostgresConnection
        /// `nil` for a request that lasts as long as its connection, as listening does.
        var deadline: ContinuousClock.Instant?
        /// The caller, resumed once: by the statement's task, or by the sweep that took the statement.
        var caller: CheckedContinuation<Void, any Error>
    }

    private struct State {
        var lastTicket = 0
        var running: [Int: Running] = [:]
    }

    private let state = NIOLockedValueBox(State())
    private let sweep: RepeatedTask
    /// How often the deadlines are looked over: a statement may run this much past its own.
    static let interval = Duration.milliseconds(250)

    init() {
        let state = state
        sweep = MultiThreadedEventLoopGroup.singleton.any().scheduleRepeatedTask(
            initialDelay: .init(Self.interval), delay: .init(Self.interval)
        ) { _ in
            let now = ContinuousClock.now
            let given = state.withLockedValue { state in
                let given = state.running.filter { running in
                    running.value.connection.isClosed || running.value.deadline.map { $0 <= now } ?? false
                }
                for ticket in given.keys { state.running[ticket] = nil }
                return given.values
            }
            for running in given {
                _ = running.connection.close() as EventLoopFuture<Void>
                running.caller.resume(throwing: DatabaseUnavailable())
            }
        }
    }

    /// Runs `statement` on `connection` (from a task of its own), and answers what it answers; or
    /// `DatabaseUnavailable` once its deadline (if any) has passed or its connection has closed, whether or not it
    /// ever ends.
    func run(
        on connection: PostgresConnection, deadline: Duration?,
        _ statement: @escaping @Sendable () async throws -> Void
    ) async throws {
        try await withCheckedThrowingContinuation { caller in
            let ticket = start(Running(connection: connection, deadline: deadline.map { .now + $0 }, caller: caller))
            Task {
                let result: Result<Void, any Error>
                do {
                    try await statement()
                    result = .success(())
                } catch {
                    result = .failure(error)
                }
                // Once the watch has taken the statement, its answer is the watch's: the connection is closing, and
                // the caller closes it before it goes back to the pool, even if the statement answered meanwhile.
                end(ticket)?.resume(with: result)
            }
        }
    }

    private func start(_ running: Running) -> Int {
        state.withLockedValue { state in
            state.lastTicket &+= 1
            state.running[state.lastTicket] = running
            return state.lastTicket
        }
    }

    /// The caller of `ticket`'s statement, while the statement is still its own to answer, not taken by the watch.
    private func end(_ ticket: Int) -> CheckedContinuation<Void, any Error>? {
        state.withLockedValue { $0.running.removeValue(forKey: ticket)?.caller }
    }

    /// Stops looking: the pool is closed.
    func stop() {
        sweep.cancel()
    }
}
