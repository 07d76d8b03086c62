import RollcallStorage

/// Statements in groups: whoever arrives while a group is being written (or read) waits for the next one, and the
/// first of them runs it. A burst thus costs a statement or transaction per group instead of one per caller, and each
/// caller is answered only once the group holding their item is done. Whoever runs a group hands the pen on after
/// their own, so that no caller works for others forever. A group the database does not answer fails everyone
/// waiting with it.
///
/// It lives beside its users, in this module, so that the compiler specializes it for each.
package actor StatementGroups<Item: Sendable, Outcome: Sendable> {
    /// Writes or reads one group; the outcomes come back in the group's order, one for each item.
    package typealias Write = @Sendable ([Item]) async -> [Result<Outcome, any Error>]

    private let largest: Int
    private let gathering: Duration
    private let write: Write
    private var pending: [(Item, Slot)] = []
    private var writing = false

    /// `largest` items at most in one group; each group's writer first waits `gathering` for more to arrive, for
    /// items nobody waits on.
    package init(largest: Int, gathering: Duration = .zero, write: @escaping Write) {
        precondition(largest > 0)
        self.largest = largest
        self.gathering = gathering
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
            if gathering > .zero { try? await Task.sleep(for: gathering) }
            let group = Array(pending.prefix(largest))
            pending.removeFirst(group.count)
            let results = await write(group.map(\.0))
            precondition(results.count == group.count, "a group's write answers each of its items")
            for ((_, groupSlot), result) in zip(group, results) {
                if groupSlot === slot { slot.result = result } else { groupSlot.finish(result) }
            }
            if let unavailable = Self.unreachable(results) { failWaiting(unavailable, writer: slot) }
        }
        if let next = pending.first?.1 {
            next.continuation?.resume(throwing: Handoff())
        } else {
            writing = false
        }
        return try slot.result!.get()
    }

    /// Callers whose items wait for a group.
    package var waiting: Int { pending.count }

    /// The error when a whole group failed because the database does not answer.
    private static func unreachable(_ results: [Result<Outcome, any Error>]) -> DatabaseUnavailable? {
        var unavailable: DatabaseUnavailable?
        for result in results {
            guard case .failure(let error) = result, let error = error as? DatabaseUnavailable else { return nil }
            unavailable = error
        }
        return unavailable
    }

    /// Answers everyone waiting with the group's refusal: each next group would wait for a connection in its turn,
    /// so the last of a crowd would learn of an outage only after a deadline per group ahead of them. Those who come
    /// later try again.
    private func failWaiting(_ error: DatabaseUnavailable, writer: Slot) {
        for (_, waiter) in pending {
            if waiter === writer { writer.result = .failure(error) } else { waiter.finish(.failure(error)) }
        }
        pending.removeAll()
    }
}

/// Reads a crowd asks for at once, one statement per group on PostgreSQL (`StatementGroups`), where each statement
/// costs the server more than the reading. On SQLite each is read at once: its statements cost no protocol, and its
/// readers run in parallel where one group at a time would only queue them.
package struct GroupedReads<Item: Hashable & Sendable, Value: Sendable>: Sendable {
    /// Reads distinct items, answering what it found for each; an item without an answer has none.
    package typealias Read = @Sendable ([Item]) async throws -> [Item: Value]

    private let groups: StatementGroups<Item, Value?>?
    private let read: Read

    package init(database: Database, read: @escaping Read) {
        self.read = read
        guard database.engine == .postgres else {
            groups = nil
            return
        }
        groups = StatementGroups(largest: listLengths.last!) { items in
            do {
                let found = try await read(Array(Set(items)))
                return items.map { .success(found[$0]) }
            } catch {
                return items.map { _ in .failure(error) }
            }
        }
    }

    /// What `item` reads, with whatever else is asked meanwhile.
    package func value(of item: Item) async throws -> Value? {
        guard let groups else { return try await read([item])[item] }
        return try await groups.submit(item)
    }

    /// `items` padded with its first to one of `listLengths`, so that a few statements serve every group and each
    /// stays prepared on PostgreSQL.
    package static func padded(_ items: [Item]) -> [Item] {
        let length = listLengths.first { $0 >= items.count } ?? items.count
        return items + Array(repeating: items[0], count: length - items.count)
    }
}

/// The lengths a group's list of values is padded to.
private let listLengths = [1, 4, 16, 64]
