import Foundation
import NIOConcurrencyHelpers
import RollcallStorage
import SQLKit
import Testing

@testable import RollcallServer

/// What a test holds in a transaction of its own, as a change under way would, until it lets go: committed, or
/// rolled back with `rollingBack`.
final class HeldLock: Sendable {
    private let release: AsyncStream<Void>.Continuation
    private let holder: Task<Void, any Error>

    private init(release: AsyncStream<Void>.Continuation, holder: Task<Void, any Error>) {
        self.release = release
        self.holder = holder
    }

    private struct RolledBack: Error {}

    static func hold(
        on database: Database, rollingBack: Bool = false,
        _ take: @escaping @Sendable (Transaction) async throws -> Void
    ) async throws -> HeldLock {
        let (letGo, release) = AsyncStream<Void>.makeStream()
        let taken = NIOLockedValueBox(false)
        let holder = Task {
            do {
                try await database.transaction { sql in
                    try await take(sql)
                    taken.withLockedValue { $0 = true }
                    for await _ in letGo {}
                    if rollingBack { throw RolledBack() }
                }
            } catch is RolledBack {}
        }
        try await waitUntil("the test holds its lock") { taken.withLockedValue { $0 } }
        return HeldLock(release: release, holder: holder)
    }

    func letGo() async throws {
        release.finish()
        try await holder.value
    }
}

extension Database {
    /// How many statements on this PostgreSQL database wait for a lock now.
    func lockWaiters() async throws -> Int {
        try await count(
            "SELECT COUNT(*) AS n FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND datname = current_database()"
        )
    }
}
