import Foundation
import RollcallDelivery
import RollcallModel
import RollcallStorage
import Testing

@testable import RollcallHealth
@testable import RollcallServer

/// The jobs table as a queue, on SQLite: a newer job of a key takes the waiting one's place, jobs of one key run one
/// at a time and oldest first, a claim that runs out is taken again, and a failed attempt waits longer each time.
@Suite("Job queue", .timeLimit(.minutes(5)))
struct JobQueueTests {
    @Test func a_newer_job_of_a_key_takes_the_place_of_the_one_still_waiting() async throws {
        try await withJobDatabase { database in
            let queue = JobQueue(database: database)
            try await queue.enqueue([try NumberJob.job("a", 60), try NumberJob.job("b", 70)])
            try await queue.enqueue([try NumberJob.job("a", 90)])

            let jobs = try await queue.all()
            #expect(jobs.map(\.payload) == [#"{"key":"a","number":90}"#, #"{"key":"b","number":70}"#], "\(jobs)")
            #expect(jobs.allSatisfy { $0.status == .pending && $0.kind == NumberJob.name })
            let courier = NumberCourier()
            let runner = JobRunner(
                queue: queue, couriers: [courier], bell: DeliveryBell(), ready: SchemaReady(), logger: .init(label: "t")
            )
            while let job = try await queue.claim(kinds: [NumberJob.name], lease: 60) { await runner.perform(job) }
            #expect(courier.done.map(\.number).sorted() == [70, 90], "60 was never sent")
        }
    }

    @Test func jobs_of_one_key_run_one_at_a_time_oldest_first() async throws {
        try await withJobDatabase { database in
            let queue = JobQueue(database: database)
            try await queue.enqueue([try NumberJob.job("a", 1)])
            let first = try #require(try await queue.claim(kinds: [NumberJob.name], lease: 60))
            // While the first is running, a second of its key and one of another key are queued.
            try await queue.enqueue([try NumberJob.job("a", 2), try NumberJob.job("b", 3)])
            let other = try #require(try await queue.claim(kinds: [NumberJob.name], lease: 60))
            #expect(other.key == "b", "the job of another key goes ahead")
            #expect(try await queue.claim(kinds: [NumberJob.name], lease: 60) == nil, "a's second waits for its first")
            #expect(try await queue.nextDue(kinds: [NumberJob.name]) == nil, "nothing the runner could take is due")

            try await queue.markDone(id: first.id)
            let second = try #require(try await queue.claim(kinds: [NumberJob.name], lease: 60))
            #expect(second.key == "a" && second.payload.contains("2"))
        }
    }

    @Test func a_claim_that_ran_out_is_taken_again_by_another_worker() async throws {
        try await withJobDatabase { database in
            let queue = JobQueue(database: database)
            try await queue.enqueue([try NumberJob.job("a", 1)])
            let start = Date()
            let claimed = try #require(try await queue.claim(kinds: [NumberJob.name], now: start, lease: 60))
            #expect(claimed.status == .running && claimed.attempts == 1)
            // The worker that holds it dies without a word.
            let early = try await queue.claim(kinds: [NumberJob.name], now: start.addingTimeInterval(59), lease: 60)
            #expect(early == nil, "a claim still held is not taken")
            let later = start.addingTimeInterval(61)
            let again = try #require(try await queue.claim(kinds: [NumberJob.name], now: later, lease: 60))
            #expect(again.id == claimed.id && again.attempts == 2)
            #expect(abs((again.claimedUntil ?? .distantPast).timeIntervalSince(later.addingTimeInterval(60))) < 0.01)
        }
    }

    @Test func a_failed_attempt_waits_longer_each_time_and_keeps_the_error() async throws {
        try await withJobDatabase { database in
            let queue = JobQueue(database: database)
            let courier = NumberCourier()
            courier.fail(DeliveryFailure(permanent: false, description: "the score was refused: HTTP 503 down"))
            let runner = JobRunner(
                queue: queue, couriers: [courier], bell: DeliveryBell(), ready: SchemaReady(),
                logger: .init(label: "t"),
                retry: RetryPolicy(first: 30, longest: 100, attempts: 3))
            try await queue.enqueue([try NumberJob.job("a", 1)])
            var waits: [TimeInterval] = []
            var moment = Date()
            for _ in 0..<3 {
                let job = try #require(try await queue.claim(kinds: [NumberJob.name], now: moment, lease: 60))
                let before = Date()
                await runner.perform(job)
                let stored = try #require(try await queue.all().first)
                #expect(stored.lastError == "the score was refused: HTTP 503 down")
                if let next = stored.nextAttemptAt {
                    #expect(stored.status == .pending)
                    waits.append((next.timeIntervalSince(before) / 10).rounded() * 10)
                    moment = next.addingTimeInterval(1)
                } else {
                    #expect(stored.status == .failed && stored.attempts == 3, "given up after the last attempt")
                }
            }
            #expect(waits == [30, 60], "doubling: \(waits)")
            #expect(
                try await queue.claim(kinds: [NumberJob.name], now: moment.addingTimeInterval(9999), lease: 60) == nil)
        }
    }

    @Test func a_job_refused_for_good_or_unreadable_is_not_tried_again() async throws {
        try await withJobDatabase { database in
            let queue = JobQueue(database: database)
            let courier = NumberCourier()
            let runner = JobRunner(
                queue: queue, couriers: [courier], bell: DeliveryBell(), ready: SchemaReady(), logger: .init(label: "t")
            )
            // A payload no version of its kind wrote, and one the courier's far end refuses.
            try await queue.enqueue([NewJob(kind: NumberJob.name, key: "x", payload: #"{"key":"x","number":"#)])
            let unreadable = try #require(try await queue.claim(kinds: [NumberJob.name], lease: 60))
            await runner.perform(unreadable)
            courier.fail(DeliveryFailure(permanent: true, description: "the score was refused: HTTP 400 bad"))
            try await queue.enqueue([try NumberJob.job("y", 1)])
            let refused = try #require(try await queue.claim(kinds: [NumberJob.name], lease: 60))
            await runner.perform(refused)

            let jobs = try await queue.all()
            #expect(jobs.map(\.status) == [.failed, .failed])
            #expect(jobs[0].lastError?.contains("not readable") == true, "\(jobs[0])")
            #expect(jobs[1].lastError == "the score was refused: HTTP 400 bad")
            #expect(courier.done.isEmpty)
            #expect(try await queue.claim(kinds: [NumberJob.name], now: .distantFuture, lease: 60) == nil)
        }
    }

    @Test func a_job_that_fails_while_a_newer_one_of_its_key_waits_gives_way_to_it() async throws {
        try await withJobDatabase { database in
            let queue = JobQueue(database: database)
            try await queue.enqueue([try NumberJob.job("a", 60)])
            let first = try #require(try await queue.claim(kinds: [NumberJob.name], lease: 60))
            try await queue.enqueue([try NumberJob.job("a", 90)])
            try await queue.markFailed(id: first.id, error: "platform down", retryAt: Date())

            let jobs = try await queue.all()
            #expect(jobs.map(\.status) == [.superseded, .pending], "\(jobs)")
            let next = try #require(try await queue.claim(kinds: [NumberJob.name], lease: 60))
            #expect(next.payload.contains("90"))
        }
    }

    @Test func finished_jobs_age_out_with_the_evidence_and_open_ones_stay_however_old() async throws {
        try await withJobDatabase { database in
            let queue = JobQueue(database: database)
            let long = Date().addingTimeInterval(-40 * 86_400)
            try await queue.enqueue((0..<5).map { try NumberJob.job("k\($0)", $0) }, now: long)
            for outcome in ["done", "failed", "superseded", "running"] {
                let job = try #require(try await queue.claim(kinds: [NumberJob.name], now: long, lease: 60))
                switch outcome {
                case "done": try await queue.markDone(id: job.id, at: long)
                case "failed": try await queue.markFailed(id: job.id, error: "no", retryAt: nil, now: long)
                case "superseded":
                    try await database.write { sql in
                        try await sql.raw("UPDATE jobs SET status = 'superseded' WHERE id = \(bind: job.id)").run()
                    }
                default: break
                }
            }
            try await EvidenceRetention.purge(database, days: 30, now: Date())
            #expect(try await queue.all().map(\.status) == [.running, .pending], "work still to do is kept")
        }
    }

    @Test func a_job_of_a_kind_no_courier_does_waits_for_a_process_that_does() async throws {
        try await withJobDatabase { database in
            let queue = JobQueue(database: database)
            try await queue.enqueue([NewJob(kind: "elsewhere", key: "k", payload: "{}")])
            #expect(try await queue.claim(kinds: [NumberJob.name], lease: 60) == nil)
            #expect(try await queue.claim(kinds: [], lease: 60) == nil)
            #expect(try await queue.all().map(\.status) == [.pending])
        }
    }
}
