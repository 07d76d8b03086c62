import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import PostgresNIO

/// The deadlines of the statements running on a pool's connections, looked over a few times a second: a statement
/// past its deadline has its connection closed under it, which fails the statement at once. Unlike a timer of its
/// own for each statement, the watch tells the statement's end whether its deadline closed the connection, so that a
/// connection whose close is still on its way never goes back to the pool to be lent again.
final class StatementWatch: Sendable {
    private struct Running {
        var connection: PostgresConnection
        var deadline: ContinuousClock.Instant
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
            let late = state.withLockedValue { state in
                let late = state.running.filter { $0.value.deadline <= now }
                for ticket in late.keys { state.running[ticket] = nil }
                return late.values.map(\.connection)
            }
            for running in late { _ = running.close() as EventLoopFuture<Void> }
        }
    }

    /// Watches a statement starting on `connection`; answers the ticket that `end` takes.
    func start(on connection: PostgresConnection, deadline: Duration) -> Int {
        let running = Running(connection: connection, deadline: .now + deadline)
        return state.withLockedValue { state in
            state.lastTicket &+= 1
            state.running[state.lastTicket] = running
            return state.lastTicket
        }
    }

    /// The statement of `ticket` has ended. Answers whether its deadline had closed its connection already: the close
    /// may still be on its way, and the connection must not go back to the pool before it is closed.
    func end(_ ticket: Int) -> Bool {
        state.withLockedValue { $0.running.removeValue(forKey: ticket) == nil }
    }

    /// Stops looking: the pool is closed.
    func stop() {
        sweep.cancel()
    }
}
