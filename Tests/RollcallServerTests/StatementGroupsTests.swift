import Foundation
import Logging
import RollcallCore
import RollcallStorage
import Testing

@testable import RollcallModel

/// A crowd queued behind a group when the database stops answering: told at once, not a deadline per group ahead.
@Suite("Statement groups when the database does not answer", .timeLimit(.minutes(1)))
struct StatementGroupsTests {
    @Test func a_group_the_database_does_not_answer_fails_everyone_waiting_behind_it() async throws {
        let log = GroupLog()
        let groups = StatementGroups<Int, Int>(largest: 4) { items in
            await log.write(items)
            return items.map { _ in .failure(DatabaseUnavailable()) }
        }
        let errors = try await crowd(of: 12, behind: groups, log: log)
        #expect(errors.count == 12 && errors.allSatisfy { $0 is DatabaseUnavailable }, "\(errors)")
        #expect(await log.sizes == [1])
    }

    @Test func a_group_refused_for_another_reason_answers_only_its_own() async throws {
        let log = GroupLog()
        let groups = StatementGroups<Int, Int>(largest: 4) { items in
            let first = await log.write(items)
            return items.map { first ? .failure(Refused()) : .success($0) }
        }
        let errors = try await crowd(of: 12, behind: groups, log: log)
        #expect(errors.count == 1 && errors[0] is Refused, "\(errors)")
        #expect(await log.sizes == [1, 4, 4, 3])
    }

    @Test func a_group_of_saves_the_database_does_not_answer_answers_each_save() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("rollcall-saves-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let database = try Database.sqlite(
            path: directory.appendingPathComponent("rollcall.sqlite").path, logger: Logger(label: "test"))
        try await database.shutdown()
        let saves = (1...3).map { attempt in
            AnswerSaves.Save(
                attemptID: Int64(attempt), questionID: "q1", answer: .choice(1), text: #"{"choice":1}"#,
                sequence: 1, now: Date())
        }
        let results = await AnswerSaves.write(saves, database: database)
        #expect(results.count == 3)
        for result in results {
            #expect(throws: DatabaseUnavailable.self) { try result.get() }
        }
    }

    /// Submits one item, and once its group is being written, `count - 1` more behind it; then lets the first
    /// group end. Answers the errors the callers were given.
    private func crowd(
        of count: Int, behind groups: StatementGroups<Int, Int>, log: GroupLog
    ) async throws -> [any Error] {
        try await withThrowingTaskGroup(of: (any Error)?.self) { tasks in
            for item in 0..<count {
                tasks.addTask {
                    do {
                        _ = try await groups.submit(item)
                        return nil
                    } catch {
                        return error
                    }
                }
                if item == 0 { try await waitUntil { await log.sizes.count == 1 } }
            }
            try await waitUntil { await groups.waiting == count - 1 }
            await log.release()
            return try await tasks.reduce(into: []) { errors, error in if let error { errors.append(error) } }
        }
    }

    private func waitUntil(_ condition: @Sendable () async -> Bool) async throws {
        let deadline = ContinuousClock.now + .seconds(20)
        while await !condition() {
            guard ContinuousClock.now < deadline else { throw Refused() }
            try await Task.sleep(for: .milliseconds(5))
        }
    }
}

/// Any refusal that is not the database's.
private struct Refused: Error {}

/// The sizes of the groups written; the first group is held until released, so that a crowd queues behind it.
private actor GroupLog {
    private(set) var sizes: [Int] = []
    private var held: CheckedContinuation<Void, Never>?
    private var released = false

    /// Notes a group; answers whether it was the first.
    @discardableResult
    func write(_ items: [Int]) async -> Bool {
        sizes.append(items.count)
        guard sizes.count == 1, !released else { return false }
        await withCheckedContinuation { held = $0 }
        return true
    }

    func release() {
        released = true
        held?.resume()
        held = nil
    }
}
