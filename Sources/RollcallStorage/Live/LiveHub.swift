import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix

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
///
/// A wait with a timeout sets one timer on an event loop and cancels it when woken. A task group racing the wake-up
/// against a `Task.sleep` (two child tasks and a dispatch timer on every wake) was 1.9 % of a server's CPU in a quiz.
package final class LiveSubscription: Sendable {
    private struct Waiter {
        var ticket: Int
        var continuation: CheckedContinuation<Bool, Never>
        var timer: Scheduled<Void>?
    }

    private struct State {
        var pending = false
        var lastTicket = 0
        var waiter: Waiter?
    }

    private let state = NIOLockedValueBox(State())

    /// Whether a wait is under way, for tests.
    package var isWaiting: Bool {
        state.withLockedValue { $0.waiter != nil }
    }

    package func wake() {
        let waiter = state.withLockedValue { state -> Waiter? in
            guard let waiter = state.waiter else {
                state.pending = true
                return nil
            }
            state.waiter = nil
            return waiter
        }
        waiter?.timer?.cancel()
        waiter?.continuation.resume(returning: true)
    }

    /// Returns at the next wake-up (at once if one came since the last call), or when the task is cancelled.
    package func next() async {
        _ = await wait(timeout: nil)
    }

    /// Returns at the next wake-up or after `timeout`, whichever comes first; answers whether it was woken.
    @discardableResult
    package func next(timeout: Duration) async -> Bool {
        await wait(timeout: timeout)
    }

    /// Answers `true` when woken, `false` when the timeout passed or the task was cancelled first.
    private func wait(timeout: Duration?) async -> Bool {
        let ticket = state.withLockedValue { state in
            state.lastTicket &+= 1
            return state.lastTicket
        }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
                let now = state.withLockedValue { state -> Bool? in
                    if Task.isCancelled { return false }
                    if state.pending {
                        state.pending = false
                        return true
                    }
                    state.waiter = Waiter(ticket: ticket, continuation: continuation)
                    return nil
                }
                if let now { return continuation.resume(returning: now) }
                if let timeout { setTimer(after: timeout, for: ticket) }
            }
        } onCancel: {
            end(ticket)
        }
    }

    private func setTimer(after timeout: Duration, for ticket: Int) {
        let timer = MultiThreadedEventLoopGroup.singleton.any().scheduleTask(in: .init(timeout)) { self.end(ticket) }
        // Woken (or cancelled) before the timer was kept, the wait no longer needs it.
        let kept = state.withLockedValue { state in
            guard state.waiter?.ticket == ticket else { return false }
            state.waiter?.timer = timer
            return true
        }
        if !kept { timer.cancel() }
    }

    /// Ends the wait of `ticket`, if it is still waiting, as not woken.
    private func end(_ ticket: Int) {
        let waiter = state.withLockedValue { state -> Waiter? in
            guard state.waiter?.ticket == ticket else { return nil }
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.timer?.cancel()
        waiter?.continuation.resume(returning: false)
    }
}
