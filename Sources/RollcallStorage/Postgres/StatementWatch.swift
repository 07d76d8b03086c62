import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import PostgresNIO

/// The deadlines of the statements running on a pool's connections, and of the requests waiting for a connection,
/// looked over a few times a second.
///
/// A statement past its deadline has its connection closed under it, and its caller is let go at once. So is a
/// statement still running on a connection that has closed: PostgresNIO fails what it was given before the close,
/// but a statement that reached the connection just after it closed is never answered, nor cancelled.
///
/// A request's wait for a connection ends at its deadline the same way (`waitOut`). A timer of its own for each
/// (`Task.sleep`, set and then cancelled on every lease) was 7 % of a server's CPU in a quiz on PostgreSQL.
final class StatementWatch: Sendable {
    private struct Running {
        /// `nil` for a wait that is not a statement (`waitOut`).
        var connection: PostgresConnection?
        /// `nil` for a request that lasts as long as its connection, as listening does.
        var deadline: ContinuousClock.Instant?
        /// The caller, resumed once: by the statement's task, or by the sweep that took the statement.
        var caller: CheckedContinuation<Void, any Error>
    }

    private struct State {
        var lastTicket = 0
        var running: [Int: Running] = [:]
        var stopped = false
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
                    running.value.connection?.isClosed ?? false || running.value.deadline.map { $0 <= now } ?? false
                }
                for ticket in given.keys { state.running[ticket] = nil }
                return given.values
            }
            for running in given {
                guard let connection = running.connection else {
                    running.caller.resume()
                    continue
                }
                _ = connection.close() as EventLoopFuture<Void>
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

    /// Returns once `duration` has passed, as the sweep sees it (up to `interval` later), or the watch has stopped;
    /// throws `CancellationError` as soon as the task is cancelled.
    func waitOut(_ duration: Duration) async throws {
        let ticket = state.withLockedValue { state in
            state.lastTicket &+= 1
            return state.lastTicket
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { caller in
                // Registered, the wait is ended by the handler; cancelled before, it is not registered at all.
                let ended: Result<Void, any Error>? = state.withLockedValue { state in
                    if state.stopped { return .success(()) }
                    if Task.isCancelled { return .failure(CancellationError()) }
                    state.running[ticket] = Running(deadline: .now + duration, caller: caller)
                    return nil
                }
                if let ended { caller.resume(with: ended) }
            }
        } onCancel: {
            end(ticket)?.resume(throwing: CancellationError())
        }
    }

    /// How many waits for a connection are not over.
    var waits: Int {
        state.withLockedValue { state in state.running.values.count { $0.connection == nil } }
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

    /// Stops looking: the pool is closed. The waits for a connection end now, as at their deadlines.
    func stop() {
        sweep.cancel()
        let waits = state.withLockedValue { state in
            state.stopped = true
            let waits = state.running.filter { $0.value.connection == nil }
            for ticket in waits.keys { state.running[ticket] = nil }
            return waits.values
        }
        for wait in waits { wait.caller.resume() }
    }
}
