import NIOConcurrencyHelpers

/// Writes that a request starts and does not wait for, such as a newcomer's first language on PostgreSQL: the
/// database finishes them before it closes (`Database.shutdown`), so that what a request left for later is not lost
/// with a process that stops on purpose.
package final class LaterWork: Sendable {
    private struct State {
        var running = 0
        var waiting: [CheckedContinuation<Void, Never>] = []
    }

    private let state = NIOLockedValueBox(State())

    package init() {}

    /// Runs `work` in a task of its own, counted until it returns.
    package func start(_ work: @escaping @Sendable () async -> Void) {
        state.withLockedValue { $0.running += 1 }
        Task {
            await work()
            let finished = state.withLockedValue { state -> [CheckedContinuation<Void, Never>] in
                state.running -= 1
                guard state.running == 0 else { return [] }
                defer { state.waiting = [] }
                return state.waiting
            }
            for continuation in finished { continuation.resume() }
        }
    }

    /// Returns once no work started here is running.
    package func finished() async {
        await withCheckedContinuation { continuation in
            let idle = state.withLockedValue { state in
                if state.running == 0 { return true }
                state.waiting.append(continuation)
                return false
            }
            if idle { continuation.resume() }
        }
    }

    /// How many are running now.
    package var running: Int { state.withLockedValue { $0.running } }
}
