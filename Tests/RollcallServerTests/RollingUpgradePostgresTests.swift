import Foundation
import HTTPTypes
import NIOConcurrencyHelpers
import RollcallStorage
import SQLKit
import ServerTestSupport
import Testing

@testable import RollcallServer

/// A rolling upgrade, as docs/operations.md promises it: processes on one PostgreSQL replaced one at a time, the old
/// build beside the new across a migration the old code tolerates, while a room checks in. Two real builds would take
/// too long to make here, so the new build is today's code with one step more, the kind of step that document lists.
@Suite("Rolling upgrade on PostgreSQL", .timeLimit(.minutes(4)))
struct RollingUpgradePostgresTests {
    /// The next release's step: a table, a nullable column and a defaulted one on tables every check-in writes, a
    /// non-unique index on the nullable one, and nullable columns on tables the old code reads whole (`SELECT *`),
    /// whose statements it must not have prepared.
    static let tolerated = Migrations.Step(
        name: "900_rolling_upgrade_receipts",
        statements: [
            """
            CREATE TABLE check_in_receipts (
                id {id}, session_id BIGINT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
                student_id BIGINT NOT NULL REFERENCES users(id), sent_at {time} NOT NULL)
            """,
            "ALTER TABLE attendance ADD COLUMN receipt_id BIGINT",
            "ALTER TABLE check_in_evidence ADD COLUMN app_version TEXT NOT NULL DEFAULT ''",
            "CREATE INDEX attendance_receipt ON attendance(receipt_id)",
            "ALTER TABLE users ADD COLUMN pronouns TEXT",
            "ALTER TABLE courses ADD COLUMN building TEXT",
        ])

    @Test func a_rolling_upgrade_across_a_tolerated_migration_keeps_every_check_in_acknowledged_by_either_build()
        async throws
    {
        let postgres = try PostgresServer.start()
        defer { postgres.stop() }
        let old = try await RunningServer.start("old", migrations: Migrations.steps, on: postgres)
        var running = [old]
        var flow: CheckInFlow?
        var flowing: Task<Void, Never>?
        do {
            let room = try await Classroom.open(old.api)
            var students = [room.student]
            for index in 1..<40 { students.append(try await room.enrol(old.api, "Roller \(index)")) }
            let checkIns = CheckInFlow(room: room, students: students, serving: [old])
            (flow, flowing) = (checkIns, Task { await checkIns.run() })
            try await checkIns.waitForRounds(2, "check-ins on the old build alone")

            // The new build migrates at its start while the old one serves, then both take check-ins.
            let before = checkIns.tally.acknowledged.count
            let new = try await RunningServer.start(
                "new", migrations: Migrations.steps + [Self.tolerated], on: postgres)
            running.append(new)
            let duringMigration = checkIns.tally.acknowledged.count - before
            #expect(duringMigration > 0, "no check-in was acknowledged while the new build started and migrated")
            #expect(try await Self.applied(Self.tolerated.name, on: postgres))
            // A deadlock ends a request's statement; one retried six times over answers 500.
            let deadlocks = try postgres.log().components(separatedBy: "deadlock detected").count - 1
            #expect(deadlocks == 0, "the migration deadlocked with the old build's requests \(deadlocks) times")
            try await checkIns.serve([old, new], rounds: 3, "check-ins on the old and the new build")

            // The old build restarts on the newer schema, as a process of the old release does when it crashes or
            // its machine reboots before its turn to be upgraded; the new one serves alone meanwhile.
            try await checkIns.serve([new], rounds: 1, "check-ins on the new build alone")
            running.removeFirst()
            try await old.stop()
            let restarted = try await RunningServer.start("restarted old", migrations: Migrations.steps, on: postgres)
            running.append(restarted)
            try await checkIns.serve([restarted, new], rounds: 3, "check-ins on the restarted old and the new")
            checkIns.finish()
            await flowing?.value

            let tally = checkIns.tally
            #expect(tally.failures.isEmpty, "answers other than success: \(tally.failures)")
            #expect(tally.acknowledged.count == tally.sent, "check-ins sent \(tally.sent)")
            for process in ["old", "new", "restarted old"] {
                #expect(tally.acknowledged.contains { $0.by == process }, "no check-in acknowledged by the \(process)")
            }
            try await Self.expectKept(tally, room: room, students: students, reading: new.api)
        } catch {
            flow?.finish()
            await flowing?.value
            for server in running.reversed() { try? await server.stop() }
            throw error
        }
        for server in running.reversed() { try await server.stop() }
    }

    /// Whether the step is recorded as applied.
    static func applied(_ step: String, on postgres: PostgresServer) async throws -> Bool {
        try await Database.postgres(url: postgres.url, logger: .init(label: "test")).closing { database in
            try await database.read { sql in
                try await sql.select().column("name").from("schema_migrations").where("name", .equal, step).first()
            } != nil
        }
    }

    /// Every check-in answered 201 is present in its session's records, as the teacher downloads them.
    static func expectKept(_ tally: CheckInFlow.Tally, room: Classroom, students: [Account], reading api: API)
        async throws
    {
        let emails = Dictionary(uniqueKeysWithValues: students.map { ($0.id, $0.email) })
        let sessions = Dictionary(grouping: tally.acknowledged, by: \.session)
        for (session, seats) in sessions {
            let rows = try await api.csv("/api/v1/sessions/\(session)/report.csv", as: room.teacher)
            let statuses = Dictionary(rows.dropFirst().map { ($0[1], $0[3]) }, uniquingKeysWith: { first, _ in first })
            for seat in seats {
                #expect(
                    statuses[emails[seat.student] ?? ""] == "present",
                    "session \(session): student \(seat.student)'s acknowledged check-in is not on record")
            }
        }
    }
}

/// A server in a task of its own, so that it can stop while the others serve on, as one process of several does.
final class RunningServer: Sendable {
    /// Which build and which process, for the figures.
    let name: String
    let api: API
    private let stopping: AsyncStream<Void>.Continuation
    private let running: Task<Void, any Error>

    private init(_ name: String, api: API, stopping: AsyncStream<Void>.Continuation, running: Task<Void, any Error>) {
        self.name = name
        self.api = api
        self.stopping = stopping
        self.running = running
    }

    /// Starts a server of the build whose schema is `migrations`; returns once it has migrated and serves.
    static func start(
        _ name: String, migrations: [Migrations.Step], on postgres: PostgresServer
    ) async throws -> RunningServer {
        let (started, starting) = AsyncThrowingStream<API, any Error>.makeStream()
        let (stop, stopping) = AsyncStream<Void>.makeStream()
        let running = Task {
            do {
                try await withServer(migrations: migrations, databaseURL: postgres.url) { api in
                    starting.yield(api)
                    for await _ in stop {}
                }
                starting.finish()
            } catch {
                starting.finish(throwing: error)
                throw error
            }
        }
        for try await api in started { return RunningServer(name, api: api, stopping: stopping, running: running) }
        throw NotServing()
    }

    struct NotServing: Error {}

    /// Stops the server, its pool and its background services, as a process stops.
    func stop() async throws {
        stopping.finish()
        try await running.value
    }
}

/// A room checking in, session after session, through whichever processes serve it at the time: each round opens a
/// session, checks every student in, spread over the processes, and closes it.
final class CheckInFlow: Sendable {
    struct Seat: Hashable {
        var session: Int64
        var student: Int64
        /// The process that acknowledged it.
        var by: String
    }

    struct Tally {
        var sent = 0
        var acknowledged: [Seat] = []
        /// Every answer that was not a success, as `METHOD path: status text`.
        var failures: [String] = []
    }

    private struct State {
        var serving: [RunningServer]
        var finished = false
        var started = 0
        var ended = 0
        var tally = Tally()
    }

    let room: Classroom
    let students: [Account]
    private let state: NIOLockedValueBox<State>

    init(room: Classroom, students: [Account], serving: [RunningServer]) {
        self.room = room
        self.students = students
        self.state = NIOLockedValueBox(State(serving: serving))
    }

    var tally: Tally { state.withLockedValue { $0.tally } }

    /// Sends rounds until `finish`.
    func run() async {
        while true {
            let next = state.withLockedValue { state -> (Int, [RunningServer])? in
                guard !state.finished else { return nil }
                state.started += 1
                return (state.started, state.serving)
            }
            guard let (round, serving) = next else { return }
            await self.round(round, serving)
            state.withLockedValue { $0.ended = round }
        }
    }

    /// Ends the flow after the round in progress.
    func finish() {
        state.withLockedValue { $0.finished = true }
    }

    /// Sends the rounds from the next one on to `serving`, and waits for `rounds` of them to end; the processes
    /// left out receive nothing more once this returns, as behind a proxy that has drained them.
    func serve(_ serving: [RunningServer], rounds: Int, _ what: String) async throws {
        let begun = state.withLockedValue { state in
            state.serving = serving
            return state.started
        }
        try await waitForRounds(begun + rounds, what)
    }

    /// Waits until `count` rounds have ended.
    func waitForRounds(_ count: Int, _ what: String) async throws {
        try await waitUntil(what, timeout: .seconds(120)) { state.withLockedValue { $0.ended >= count } }
    }

    private func round(_ round: Int, _ serving: [RunningServer]) async {
        let teacher = serving[round % serving.count].api
        let opened = await send(teacher, .post, "/api/v1/courses/\(room.courseID)/sessions", json: [:])
        guard let session = opened?.int("session.id") else { return }
        let lanes = 8
        await withTaskGroup(of: Void.self) { group in
            for lane in 0..<lanes {
                group.addTask {
                    for index in stride(from: lane, to: self.students.count, by: lanes) {
                        await self.checkIn(
                            self.students[index], in: session, on: serving[(index + round) % serving.count])
                    }
                }
            }
        }
        _ = await send(teacher, .post, "/api/v1/sessions/\(session)/close", json: [:])
    }

    /// A student scans the projected code and checks in with its ticket, as a phone does.
    private func checkIn(_ student: Account, in session: Int64, on process: RunningServer) async {
        let api = process.api
        guard let url = await send(api, .get, "/api/v1/sessions/\(session)/projector")?.string("url"),
            let start = url.range(of: "/C/")?.lowerBound,
            let ticket = await send(api, .get, String(url[start...]), as: student)?.string("ticket")
        else { return }
        state.withLockedValue { $0.tally.sent += 1 }
        let reply = await send(api, .post, "/api/v1/check-ins", as: student, json: ["ticket": ticket])
        guard let reply, reply.status == .created else {
            if let reply { record("check-in of \(student.email) answered \(reply.status.code): \(reply.text)") }
            return
        }
        state.withLockedValue {
            $0.tally.acknowledged.append(Seat(session: session, student: student.id, by: process.name))
        }
    }

    /// Sends a request as the teacher or `account`; answers the reply when it succeeded, and records it otherwise.
    private func send(
        _ api: API, _ method: HTTPRequest.Method, _ path: String, as account: Account? = nil, json: Any? = nil
    ) async -> Reply? {
        do {
            let reply = try await api.call(method, path, as: account ?? room.teacher, json: json)
            guard (200..<300).contains(reply.status.code) else {
                record("\(method) \(path): \(reply.status.code) \(reply.text)")
                return nil
            }
            return reply
        } catch {
            record("\(method) \(path): \(error)")
            return nil
        }
    }

    private func record(_ failure: String) {
        state.withLockedValue { $0.tally.failures.append(failure) }
    }
}
