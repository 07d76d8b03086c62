import Foundation
import NIOConcurrencyHelpers

/// Wakes the live views of one feed's keys (a session's room and projector, a quiz run's dashboard) after a change
/// to them has committed.
///
/// A wake-up carries no data: a woken view reads the key's events after the last one it sent from the feed's log
/// (`EventLog`), so what it shows is always what the database holds, whichever process wrote it. Wake-ups arriving
/// while a view is busy fold into one. In the embedded default every writer is in this process and its commit
/// calls `published`; across processes, PostgreSQL's notifications call the same method.
package final class LiveHub: Sendable {
    private struct State {
        package var subscribers: [Int64: [ObjectIdentifier: LiveSubscription]] = [:]
    }

    private let state = NIOLockedValueBox(State())

    package init() {}

    /// Tells every view of the key that something changed; call it after the transaction has committed.
    package func published(_ key: Int64) {
        let woken = state.withLockedValue { $0.subscribers[key].map { Array($0.values) } ?? [] }
        for subscription in woken { subscription.wake() }
    }

    /// Tells the views of several keys, as after a group commit of check-ins.
    package func published(_ keys: some Sequence<Int64>) {
        for key in Set(keys) { published(key) }
    }

    /// Wakes every view of every key, when notifications from other processes may have been missed.
    package func publishedToAll() {
        let woken = state.withLockedValue { $0.subscribers.values.flatMap(\.values) }
        for subscription in woken { subscription.wake() }
    }

    /// Runs `body` with a subscription to the key's wake-ups, which ends when `body` returns.
    ///
    /// Subscribe before reading what to send first: a change that commits after the read began then still wakes
    /// the view, and the view's next read (after the last id it sent) finds it.
    package func subscribe<Result: Sendable>(
        _ key: Int64, _ body: (LiveSubscription) async throws -> Result
    ) async throws -> Result {
        let subscription = LiveSubscription()
        let id = ObjectIdentifier(subscription)
        state.withLockedValue { $0.subscribers[key, default: [:]][id] = subscription }
        defer {
            state.withLockedValue { state in
                state.subscribers[key]?[id] = nil
                if state.subscribers[key]?.isEmpty == true { state.subscribers[key] = nil }
            }
        }
        return try await body(subscription)
    }

    /// How many views are watching the key, for tests and metrics.
    package func subscriberCount(_ key: Int64) -> Int {
        state.withLockedValue { $0.subscribers[key]?.count ?? 0 }
    }
}

/// One view's wake-ups: at most one is kept while the view is busy, so a burst of changes costs one read.
package final class LiveSubscription: Sendable {
    private struct State {
        package var pending = false
        package var waiter: CheckedContinuation<Void, Never>?
    }

    private let state = NIOLockedValueBox(State())

    /// Whether a wait is under way, for tests.
    package var isWaiting: Bool {
        state.withLockedValue { $0.waiter != nil }
    }

    package func wake() {
        let waiter = state.withLockedValue { state -> CheckedContinuation<Void, Never>? in
            guard let waiter = state.waiter else {
                state.pending = true
                return nil
            }
            state.waiter = nil
            return waiter
        }
        waiter?.resume()
    }

    /// Returns at the next wake-up (at once if one came since the last call), or when the task is cancelled.
    package func next() async {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let now = state.withLockedValue { state -> Bool in
                    if state.pending || Task.isCancelled {
                        state.pending = false
                        return true
                    }
                    state.waiter = continuation
                    return false
                }
                if now { continuation.resume() }
            }
        } onCancel: {
            let waiter = state.withLockedValue { state -> CheckedContinuation<Void, Never>? in
                defer { state.waiter = nil }
                return state.waiter
            }
            waiter?.resume()
        }
    }

    /// Returns at the next wake-up or after `timeout`, whichever comes first; answers whether it was woken.
    @discardableResult
    package func next(timeout: Duration) async -> Bool {
        await withTaskGroup(of: Bool.self) { group in
            group.addTask {
                await self.next()
                return !Task.isCancelled
            }
            group.addTask {
                try? await Task.sleep(for: timeout)
                return false
            }
            let first = await group.next() ?? false
            group.cancelAll()
            return first
        }
    }
}
