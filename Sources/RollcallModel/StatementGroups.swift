/// Statements in groups: whoever arrives while a group is being written (or read) waits for the next one, and the
/// first of them runs it. A burst thus costs a statement or transaction per group instead of one per caller, and each
/// caller is answered only once the group holding their item is done. Whoever runs a group hands the pen on after
/// their own, so that no caller works for others forever.
///
/// It lives beside its users, in this module, so that the compiler specializes it for each.
package actor StatementGroups<Item: Sendable, Outcome: Sendable> {
    /// Writes or reads one group; the outcomes come back in the group's order, one for each item.
    package typealias Write = @Sendable ([Item]) async -> [Result<Outcome, any Error>]

    private let largest: Int
    private let write: Write
    private var pending: [(Item, Slot)] = []
    private var writing = false

    /// `largest` items at most in one group.
    package init(largest: Int, write: @escaping Write) {
        precondition(largest > 0)
        self.largest = largest
        self.write = write
    }

    /// Where one caller's outcome is left for them.
    private final class Slot: @unchecked Sendable {
        // Touched only on the actor.
        var continuation: CheckedContinuation<Outcome, any Error>?
        var result: Result<Outcome, any Error>?

        func finish(_ result: Result<Outcome, any Error>) {
            if let continuation {
                continuation.resume(with: result)
            } else {
                self.result = result
            }
        }
    }

    /// Wakes a waiting caller to write the next groups.
    private struct Handoff: Error {}

    /// Runs `item` with whatever else is waiting, and answers its outcome.
    package func submit(_ item: Item) async throws -> Outcome {
        let slot = Slot()
        pending.append((item, slot))
        if writing {
            do {
                return try await withCheckedThrowingContinuation { slot.continuation = $0 }
            } catch is Handoff {
                slot.continuation = nil
            }
        }
        writing = true
        while slot.result == nil {
            let group = Array(pending.prefix(largest))
            pending.removeFirst(group.count)
            let results = await write(group.map(\.0))
            precondition(results.count == group.count, "a group's write answers each of its items")
            for ((_, groupSlot), result) in zip(group, results) {
                if groupSlot === slot { slot.result = result } else { groupSlot.finish(result) }
            }
        }
        if let next = pending.first?.1 {
            next.continuation?.resume(throwing: Handoff())
        } else {
            writing = false
        }
        return try slot.result!.get()
    }
}
