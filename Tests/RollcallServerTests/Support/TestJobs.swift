import Foundation
import NIOConcurrencyHelpers
import RollcallDelivery
import RollcallModel
import RollcallStorage

@testable import RollcallServer

/// A kind of job of the tests' own: a number for a key, as a score is for a line item and student.
enum NumberJob: JobKind {
    struct Payload: Codable, Sendable, Equatable {
        var key: String
        var number: Int
    }

    static let name = "test_number"

    static func key(_ payload: Payload) -> String { payload.key }

    static func job(_ key: String, _ number: Int) throws -> NewJob {
        try NewJob(NumberJob.self, Payload(key: key, number: number))
    }
}

/// Records every number it is handed, in order; fails while told to, and notices two jobs of one key at once.
final class NumberCourier: JobCourier, Sendable {
    typealias Kind = NumberJob

    struct State {
        var done: [NumberJob.Payload] = []
        var jobIDs: [Int64] = []
        var failure: DeliveryFailure?
        var inFlight: Set<String> = []
        var overlaps: [String] = []
    }

    let state = NIOLockedValueBox(State())
    /// How long each job takes, so that two processes' attempts overlap.
    let pause: Duration

    init(pause: Duration = .zero) {
        self.pause = pause
    }

    func perform(_ payload: NumberJob.Payload, job: Job) async throws {
        let failure = state.withLockedValue { state in
            if !state.inFlight.insert(payload.key).inserted { state.overlaps.append(payload.key) }
            return state.failure
        }
        if pause > .zero { try await Task.sleep(for: pause) }
        state.withLockedValue { state in
            state.inFlight.remove(payload.key)
            if failure == nil {
                state.done.append(payload)
                state.jobIDs.append(job.id)
            }
        }
        if let failure { throw failure }
    }

    var done: [NumberJob.Payload] { state.withLockedValue { $0.done } }

    func fail(_ failure: DeliveryFailure?) {
        state.withLockedValue { $0.failure = failure }
    }
}

/// A migrated SQLite database in a directory of its own, shut down and removed afterwards.
func withJobDatabase<Result: Sendable>(
    before step: String? = nil, _ body: (Database) async throws -> Result
) async throws -> Result {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("rollcall-jobs-\(UUID())").path
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let database = try Database.sqlite(path: "\(directory)/db.sqlite", logger: .init(label: "test"))
    do {
        try await Migrations.apply(to: database, before: step)
        let result = try await body(database)
        try await database.shutdown()
        return result
    } catch {
        try? await database.shutdown()
        throw error
    }
}

extension JobQueue {
    /// Every job, oldest first.
    func all() async throws -> [Job] {
        try await database.read { sql in
            try await sql.select().column("*").from("jobs").orderBy("id").all(decoding: Job.self, with: .rollcall)
        }
    }
}
