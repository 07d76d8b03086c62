import Foundation
import RollcallDelivery
import RollcallModel
import RollcallStorage
import ServerTestSupport
import Testing

@testable import RollcallServer

/// The jobs with two server processes on one PostgreSQL database: each job is done once, and a key's jobs one at a
/// time, oldest first, even when a crashed process left claims behind.
@Suite("Jobs on PostgreSQL", .serialized, .timeLimit(.minutes(3)))
struct JobQueuePostgresTests {
    @Test func two_processes_never_do_the_same_job_twice() async throws {
        let postgres = try PostgresServer.start()
        defer { postgres.stop() }
        try await postgres.twoProcesses { first, second in
            let queues = [JobQueue(database: first), JobQueue(database: second)]
            // Twenty keys whose first job a process had claimed when it crashed (its claims ran out a minute ago;
            // they were retries due after the jobs queued since), each with a newer job waiting behind it, and twenty
            // keys with one job; queued half by each process.
            for key in 0..<20 { try await queues[key % 2].enqueue([try NumberJob.job("k\(key)", 0)]) }
            try await first.write { sql in
                try await sql.raw(
                    """
                    UPDATE jobs SET status = 'running', attempts = 1,
                      claimed_until = \(bind: Date().addingTimeInterval(-60)),
                      next_attempt_at = \(bind: Date().addingTimeInterval(60))
                    """
                ).run()
            }
            for key in 0..<40 { try await queues[key % 2].enqueue([try NumberJob.job("k\(key)", key < 20 ? 1 : 0)]) }
            // One courier for both processes, so that it sees two jobs of a key at once wherever they run.
            let courier = NumberCourier(pause: .milliseconds(5))
            let claims = try await withThrowingTaskGroup(of: Int.self) { group in
                for process in 0..<2 {
                    group.addTask {
                        let runner = JobRunner(
                            queue: queues[process], couriers: [courier], bell: DeliveryBell(), ready: SchemaReady(),
                            logger: .init(label: "process-\(process)"))
                        var claims = 0
                        while let job = try await queues[process].claim(kinds: [NumberJob.name], lease: 60) {
                            claims += 1
                            await runner.perform(job)
                        }
                        return claims
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }

            let done = courier.state.withLockedValue { $0.jobIDs }
            #expect(done.count == 60 && Set(done).count == 60, "each job once: \(done.count) done")
            #expect(claims.count == 2 && claims.allSatisfy { $0 > 0 }, "both processes did work: \(claims)")
            #expect(courier.state.withLockedValue { $0.overlaps }.isEmpty, "never two jobs of a key at once")
            let jobs = try await queues[1].all()
            #expect(jobs.allSatisfy { $0.status == .done }, "\(jobs.filter { $0.status != .done })")
            // Of each key, the crashed claim's job was done before the one queued after it.
            var seen: [String: Int] = [:]
            for payload in courier.done {
                #expect(payload.number == seen[payload.key, default: -1] + 1, "\(payload.key) out of order")
                seen[payload.key] = payload.number
            }
            #expect(seen.count == 40)
        }
    }

    @Test func a_job_of_a_key_another_process_holds_waits_and_a_newer_one_replaces_it_once() async throws {
        let postgres = try PostgresServer.start()
        defer { postgres.stop() }
        try await postgres.twoProcesses { first, second in
            let (a, b) = (JobQueue(database: first), JobQueue(database: second))
            try await a.enqueue([try NumberJob.job("k", 1)])
            let held = try #require(try await a.claim(kinds: [NumberJob.name], lease: 60))
            try await a.enqueue([try NumberJob.job("k", 2)])
            // Both processes queue a newer number for the key at once: one job waits, with one of the two.
            let (three, four) = (try NumberJob.job("k", 3), try NumberJob.job("k", 4))
            async let onA: Void = a.enqueue([three])
            async let onB: Void = b.enqueue([four])
            _ = try await (onA, onB)
            let waiting = try await b.all().filter { $0.status == .pending }
            #expect(waiting.count == 1, "\(waiting)")
            #expect(!(waiting.first?.payload.contains("2") ?? true), "2 was replaced: \(waiting)")
            #expect(try await b.claim(kinds: [NumberJob.name], lease: 60) == nil, "the held job goes first")
            try await a.markDone(id: held.id)
            let next = try #require(try await b.claim(kinds: [NumberJob.name], lease: 60))
            #expect(next.id == waiting.first?.id)
        }
    }
}
