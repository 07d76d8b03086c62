import Foundation
import NIOConcurrencyHelpers

/// Wakes the live views of a session (the teacher's dashboard, the projector) after a change to it has committed.
///
/// A wake-up carries no data: a woken view reads the session's events after the last one it sent from
/// `session_events`, so what it shows is always what the database holds, whichever process wrote it. Wake-ups
/// arriving while a view is busy fold into one. In the embedded default every writer is in this process and calls
/// `published(sessionID:)` after its commit; across processes, PostgreSQL's notifications call the same method.
public final class LiveHub: Sendable {
    private struct State {
        var subscribers: [Int64: [ObjectIdentifier: LiveSubscription]] = [:]
    }
    private let state = NIOLockedValueBox(State())

    public init() {}

    /// Tells every view of the session that something changed; call it after the transaction has committed.
    public func published(sessionID: Int64) {
        let woken = state.withLockedValue { $0.subscribers[sessionID].map { Array($0.values) } ?? [] }
        for subscription in woken { subscription.wake() }
    }

    /// Tells the views of several sessions, as after a group commit of check-ins.
    public func published(sessionIDs: some Sequence<Int64>) {
        for id in Set(sessionIDs) { published(sessionID: id) }
    }

    /// Wakes every view of every session, when notifications from other processes may have been missed.
    func publishedToAll() {
        let woken = state.withLockedValue { $0.subscribers.values.flatMap(\.values) }
        for subscription in woken { subscription.wake() }
    }

    /// Runs `body` with a subscription to the session's wake-ups, which ends when `body` returns.
    ///
    /// Subscribe before reading what to send first: a change that commits after the read began then still wakes
    /// the view, and the view's next read (after the last id it sent) finds it.
    func subscribe<Result: Sendable>(
        sessionID: Int64, _ body: (LiveSubscription) async throws -> Result
    ) async throws -> Result {
        let subscription = LiveSubscription()
        let key = ObjectIdentifier(subscription)
        state.withLockedValue { $0.subscribers[sessionID, default: [:]][key] = subscription }
        defer {
            state.withLockedValue { state in
                state.subscribers[sessionID]?[key] = nil
                if state.subscribers[sessionID]?.isEmpty == true { state.subscribers[sessionID] = nil }
            }
        }
        return try await body(subscription)
    }

    /// How many views are watching the session, for tests and metrics.
    func subscriberCount(sessionID: Int64) -> Int {
        state.withLockedValue { $0.subscribers[sessionID]?.count ?? 0 }
    }
}

/// One view's wake-ups: at most one is kept while the view is busy, so a burst of changes costs one read.
final class LiveSubscription: Sendable {
    private struct State {
        var pending = false
        var waiter: CheckedContinuation<Void, Never>?
    }
    private let state = NIOLockedValueBox(State())

    func wake() {
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

    /// Whether a wake-up came since the last `next()`: more to read at once.
    var isWoken: Bool { state.withLockedValue { $0.pending } }

    /// Returns at the next wake-up (at once if one came since the last call), or when the task is cancelled.
    func next() async {
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
    func next(timeout: Duration) async -> Bool {
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
