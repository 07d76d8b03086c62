import NIOConcurrencyHelpers

/// Opens once the migrations have run: every background service waits on it before its first round, and one signal
/// serves them all, however many there are.
package final class SchemaReady: Sendable {
    private struct State {
        package var isOpen = false
        package var waiters: [Int: CheckedContinuation<Void, Never>] = [:]
        package var nextWaiter = 0
    }

    private let state = NIOLockedValueBox(State())

    package init() {}

    /// Lets every waiter, present and future, go on.
    package func open() {
        let waiters = state.withLockedValue { state in
            state.isOpen = true
            defer { state.waiters = [:] }
            return Array(state.waiters.values)
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Returns once the schema is ready, or when the task is cancelled (the server stopping before it was).
    package func wait() async {
        let id = state.withLockedValue { state in
            defer { state.nextWaiter += 1 }
            return state.nextWaiter
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let goOn = state.withLockedValue { state in
                    guard !state.isOpen, !Task.isCancelled else { return true }
                    state.waiters[id] = continuation
                    return false
                }
                if goOn { continuation.resume() }
            }
        } onCancel: {
            state.withLockedValue { $0.waiters.removeValue(forKey: id) }?.resume()
        }
    }
}
